// MSR traces are outside files: parsing must not crash, and what it accepts must keep the
// promises replay relies on (time order from 0, sizes and offsets in range), and a refusal must
// say why.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/msr_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto trace = erails::parse_msr_trace(text, "fuzz.csv");
  if (!trace.ok()) {
    if (trace.error().key.empty() || trace.error().message.empty()) __builtin_trap();
    return 0;
  }
  double last = 0;
  for (const auto& r : trace.value()) {
    if (r.time < last || r.size == 0 || r.size > (64u << 20) || r.offset > (uint64_t{1} << 60)) __builtin_trap();
    last = r.time;
  }
  if (trace.value().front().time != 0) __builtin_trap();
  return 0;
}
