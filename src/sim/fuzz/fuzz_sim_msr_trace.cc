// libFuzzer target for the MSR Cambridge trace parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sim/msr_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto t = erails::sim::parse_msr_trace(text, "fuzz.csv");
  if (t.ok()) {
    double last = 0;
    for (const auto& r : t.value()) {
      if (r.time < last || r.size == 0) __builtin_trap();  // parser promises ordered, sized records
      last = r.time;
    }
  } else if (t.error().message.empty()) {
    __builtin_trap();
  }
  return 0;
}
