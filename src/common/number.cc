#include "common/number.h"

#include <charconv>
#include <cmath>

namespace erails {
namespace {

// from_chars is locale-independent and refuses white space and a leading '+' on its own; what is
// left to check is that it consumed everything.
template <class T>
std::optional<T> parse_whole(std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  auto [stop, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || stop != end) return std::nullopt;
  return value;
}

}  // namespace

std::optional<double> parse_real(std::string_view text) {
  // from_chars also reads "inf", "nan" and, with a "0x" prefix refused below, nothing else odd.
  for (char c : text) {
    const bool decimal = (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+';
    if (!decimal) return std::nullopt;
  }
  if (!text.empty() && text.front() == '+') return std::nullopt;
  auto value = parse_whole<double>(text);
  if (!value || !std::isfinite(*value)) return std::nullopt;
  return value;
}

std::optional<int64_t> parse_int(std::string_view text) { return parse_whole<int64_t>(text); }

std::optional<uint64_t> parse_uint(std::string_view text) {
  if (!text.empty() && text.front() == '-') return std::nullopt;
  return parse_whole<uint64_t>(text);
}

}  // namespace erails
