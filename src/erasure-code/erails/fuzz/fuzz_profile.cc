// Fuzzes the profile parser with arbitrary key=value lines: it must never crash, and a profile it
// accepts must be accepted again unchanged once its defaults are written back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "erasure-code/erails/profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  erails::ProfileMap profile;
  std::string text(reinterpret_cast<const char*>(data), size);
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    size_t eq = line.find('=');
    if (eq != std::string::npos) profile[line.substr(0, eq)] = line.substr(eq + 1);
    start = end + 1;
  }
  const auto result = erails::parse_profile(profile);
  if (!result.ok()) {
    // The key may be empty (a line "=value" names the empty key), the message never.
    if (result.error().message.empty()) std::abort();
    return 0;
  }
  const erails::Profile& parsed = result.value();
  erails::ProfileMap again = profile;
  if (!erails::parse_profile(again).ok() || again != profile) std::abort();
  const int n = parsed.k + parsed.m;
  const bool in_range = parsed.k >= 1 && parsed.m >= 1 && n <= erails::kMaxChunks &&
                        parsed.schedule.colors == n && parsed.schedule.readers >= parsed.k &&
                        parsed.schedule.readers < n && erails::rails::validate(parsed.schedule).ok() &&
                        (parsed.crush_colors.empty() || static_cast<int>(parsed.crush_colors.size()) == n);
  if (!in_range) std::abort();
  return 0;
}
