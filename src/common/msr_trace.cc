#include "common/msr_trace.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "common/number.h"

namespace erails {
namespace {

constexpr uint64_t kMaxOffset = uint64_t{1} << 60;
constexpr uint64_t kMaxSize = uint64_t{64} << 20;

// ASCII only: the result must not depend on the process locale.
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

std::optional<Operation> parse_type(std::string_view text) {
  if (iequals(text, "Read")) return Operation::read;
  if (iequals(text, "Write")) return Operation::write;
  return std::nullopt;
}

}  // namespace

Expected<std::vector<TraceRecord>> parse_msr_trace(std::string_view text, const std::string& origin) {
  std::vector<TraceRecord> records;
  uint64_t first = 0, previous = 0;
  size_t line_number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (records.empty() && line.substr(0, 9) == "Timestamp") continue;

    const std::string at = origin + ":" + std::to_string(line_number) + ": ";
    std::string_view field[7];
    size_t count = 0;
    for (size_t start = 0;; ++count) {
      const auto comma = line.find(',', start);
      if (count < 7) field[count] = line.substr(start, comma == std::string_view::npos ? comma : comma - start);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    ++count;
    if (count != 7) {
      return Error{"record", at + std::to_string(count) + " comma-separated fields; accepted: 7 "
                                  "(Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)"};
    }
    const auto refuse = [&](const char* name, std::string_view value, const char* accepted) {
      return Error{name, at + name + " '" + std::string(value) + "' is not accepted; accepted: " + accepted};
    };
    const auto stamp = parse_uint(field[0]);
    if (!stamp) return refuse("Timestamp", field[0], "an unsigned decimal integer (100 ns ticks)");
    if (!parse_uint(field[2])) return refuse("DiskNumber", field[2], "an unsigned decimal integer");
    const auto operation = parse_type(field[3]);
    if (!operation) return refuse("Type", field[3], "Read, Write (any letter case)");
    const auto offset = parse_uint(field[4]);
    if (!offset || *offset > kMaxOffset) return refuse("Offset", field[4], "bytes in 0..2^60");
    const auto size = parse_uint(field[5]);
    if (!size || *size == 0 || *size > kMaxSize) return refuse("Size", field[5], "bytes in 1..67108864");
    if (!parse_uint(field[6])) return refuse("ResponseTime", field[6], "an unsigned decimal integer (100 ns ticks)");
    if (records.empty()) first = previous = *stamp;
    if (*stamp < previous) {
      return Error{"Timestamp", at + "Timestamp " + std::to_string(*stamp) + " is before the previous record's " +
                                    std::to_string(previous) + "; accepted: nondecreasing timestamps"};
    }
    previous = *stamp;
    records.push_back(TraceRecord{static_cast<double>(*stamp - first) * 1e-7, *operation, *offset,
                                  static_cast<uint32_t>(*size)});
  }
  if (records.empty()) return Error{"trace", origin + ": no records; accepted: at least one record line"};
  return records;
}

Expected<std::vector<TraceRecord>> load_msr_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"trace", "cannot read trace file '" + path + "': " + std::strerror(errno)};
  std::ostringstream text;
  text << in.rdbuf();
  return parse_msr_trace(text.str(), path);
}

}  // namespace erails
