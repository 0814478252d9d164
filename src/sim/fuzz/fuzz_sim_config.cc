// libFuzzer target for the simulator config parser: any bytes must yield a config or an Error,
// never a crash, hang or sanitizer report. Includes are refused (no file access while fuzzing).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sim/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto c = erails::sim::parse_config(text, "fuzz.conf", {});
  if (!c.ok() && c.error().message.empty()) __builtin_trap();  // every error must explain itself
  return 0;
}
