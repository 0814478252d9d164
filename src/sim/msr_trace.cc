#include "sim/msr_trace.h"

#include <charconv>
#include <fstream>
#include <sstream>

namespace erails::sim {

namespace {

bool to_u64(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

}  // namespace

erails::Expected<std::vector<TraceRecord>> parse_msr_trace(std::string_view text, const std::string& origin) {
  std::vector<TraceRecord> out;
  uint64_t first = 0, previous = 0;
  int line_number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    std::string_view field[7];
    int count = 0;
    for (size_t start = 0;; ++count) {
      const auto comma = line.find(',', start);
      if (count < 7) field[count] = line.substr(start, comma == std::string_view::npos ? comma : comma - start);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    ++count;
    const std::string at = origin + ":" + std::to_string(line_number) + ": ";
    if (count != 7)
      return Error{"line", at + "expected 7 comma-separated fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)"};
    uint64_t stamp = 0, offset = 0, size = 0, unused = 0;
    if (!to_u64(field[0], &stamp))
      return Error{"Timestamp", at + "Timestamp '" + std::string(field[0]) + "' is not accepted; accepted: an unsigned integer (100 ns ticks)"};
    if (!to_u64(field[2], &unused))
      return Error{"DiskNumber", at + "DiskNumber '" + std::string(field[2]) + "' is not accepted; accepted: an unsigned integer"};
    const bool is_read = iequals(field[3], "Read");
    if (!is_read && !iequals(field[3], "Write"))
      return Error{"Type", at + "Type '" + std::string(field[3]) + "' is not accepted; accepted: Read, Write"};
    if (!to_u64(field[4], &offset) || offset > (uint64_t{1} << 60))
      return Error{"Offset", at + "Offset '" + std::string(field[4]) + "' is not accepted; accepted: bytes in 0..2^60"};
    if (!to_u64(field[5], &size) || size == 0 || size > (64u << 20))
      return Error{"Size", at + "Size '" + std::string(field[5]) + "' is not accepted; accepted: bytes in 1..67108864"};
    if (!to_u64(field[6], &unused))
      return Error{"ResponseTime", at + "ResponseTime '" + std::string(field[6]) + "' is not accepted; accepted: an unsigned integer"};
    if (out.empty()) first = previous = stamp;
    if (stamp < previous)
      return Error{"Timestamp", at + "Timestamp goes backwards; accepted: nondecreasing timestamps"};
    previous = stamp;
    out.push_back(TraceRecord{static_cast<double>(stamp - first) * 1e-7, is_read, offset, static_cast<uint32_t>(size)});
  }
  if (out.empty()) return Error{"trace", origin + ": no records; accepted: at least one line"};
  return out;
}

erails::Expected<std::vector<TraceRecord>> load_msr_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"trace", "cannot read trace file '" + path + "'"};
  std::ostringstream s;
  s << in.rdbuf();
  return parse_msr_trace(s.str(), path);
}

}  // namespace erails::sim
