// Device profiles come from files an operator supplies: parsing and querying must not crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "qbox/broker.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto profile = erails::qbox::DeviceProfile::parse(text);
  if (!profile) return 0;
  erails::qbox::Broker broker(profile.value());
  int n = 0;
  for (const auto& [type, samples] : profile.value().samples()) {
    for (const double granularity : {profile.value().interval(), 2 * profile.value().interval()}) {
      (void)broker.admit("c" + std::to_string(n++),
                         erails::qbox::ThroughputRequirement{type, 10, granularity, 0.95});
    }
  }
  return 0;
}
