#pragma once
// MSR Cambridge block I/O traces (SNIA IOTTA), CSV with one request per line:
//   Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
//   128166372003061629,hm,0,Read,3154563072,32768,4565
// Timestamp and ResponseTime are Windows FILETIME ticks (100 ns); Type is Read or Write; Offset and
// Size are bytes. A header line starting with "Timestamp" is allowed.

#include <cstdint>
#include <string>
#include <vector>

#include "qbox/request_class.h"
#include "common/error.h"
#include "qbox/seconds.h"

namespace erails::qbox {

struct TraceRecord {
  Seconds time = 0;  // since the first record
  Operation operation = Operation::read;
  std::uint64_t offset = 0;
  std::uint32_t size = 0;  // bytes, 1..64 MiB
};

// Errors name the line and the field. Records must not go back in time; empty traces are errors.
Expected<std::vector<TraceRecord>> parse_msr_trace(const std::string& text);

// Reads `path` and parses it; a missing file is an error naming field "trace".
Expected<std::vector<TraceRecord>> load_msr_trace(const std::string& path);

}  // namespace erails::qbox
