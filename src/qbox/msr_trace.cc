#include "qbox/msr_trace.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "qbox/validate.h"

namespace erails::qbox {
namespace {


Error at(std::size_t line, const std::string& field, const std::string& message) {
  return Error{"line " + std::to_string(line) + ": " + field, message};
}

}  // namespace

Expected<std::vector<TraceRecord>> parse_msr_trace(const std::string& text) {
  std::vector<TraceRecord> records;
  std::istringstream lines(text);
  std::string line;
  std::size_t number = 0;
  std::uint64_t first_tick = 0;
  std::uint64_t last_tick = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (records.empty() && line.rfind("Timestamp", 0) == 0) continue;
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (start <= line.size()) {
      const std::size_t comma = std::min(line.find(',', start), line.size());
      fields.push_back(line.substr(start, comma - start));
      start = comma + 1;
    }
    if (fields.size() != 7) {
      return at(number, "record", "expected 7 comma-separated fields "
                                  "(Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), got " +
                                      std::to_string(fields.size()));
    }
    std::uint64_t tick = 0;
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
    std::uint64_t ignored = 0;
    if (!parse_u64(fields[0], &tick)) return at(number, "Timestamp", "must be a whole number of 100 ns ticks");
    if (!parse_u64(fields[2], &ignored)) return at(number, "DiskNumber", "must be a whole number");
    TraceRecord record;
    if (fields[3] == "Read") {
      record.operation = Operation::read;
    } else if (fields[3] == "Write") {
      record.operation = Operation::write;
    } else {
      return at(number, "Type", "must be Read or Write, got '" + fields[3] + "'");
    }
    if (!parse_u64(fields[4], &offset)) return at(number, "Offset", "must be a whole number of bytes");
    if (!parse_u64(fields[5], &size) || size == 0 || size > (64u << 20)) {
      return at(number, "Size", "must be 1..67108864 bytes");
    }
    if (!parse_u64(fields[6], &ignored)) return at(number, "ResponseTime", "must be a whole number of ticks");
    if (records.empty()) {
      first_tick = tick;
    } else if (tick < last_tick) {
      return at(number, "Timestamp", "goes back in time; records must be in time order");
    }
    last_tick = tick;
    record.time = static_cast<double>(tick - first_tick) * 1e-7;
    record.offset = offset;
    record.size = static_cast<std::uint32_t>(size);
    records.push_back(record);
  }
  if (records.empty()) return Error{"trace", "no records"};
  return records;
}

Expected<std::vector<TraceRecord>> load_msr_trace(const std::string& path) {
  std::ifstream file(path);
  if (!file) return Error{"trace", path + ": " + std::strerror(errno)};
  std::ostringstream text;
  text << file.rdbuf();
  return parse_msr_trace(text.str());
}

}  // namespace erails::qbox
