// MSR Cambridge block traces (SNIA IOTTA, Narayanan et al. 2008), CSV, one request a line:
//   Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
//   128166372003061629,stg,0,Read,7014609920,24576,41286
// Timestamp is a Windows FILETIME (100 ns ticks); Type is Read or Write; Offset and Size are
// bytes; ResponseTime (100 ns ticks) is what the traced system saw and is ignored here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace erails::sim {

struct TraceRecord {
  double time;      // seconds since the first record of the trace
  bool is_read;
  uint64_t offset;  // bytes
  uint32_t size;    // bytes, 1..64 MiB
};

// Parses the whole text. Records must be in nondecreasing timestamp order (as MSR traces are).
// Blank lines are skipped. An error names the line and the field, and what it accepts.
erails::Expected<std::vector<TraceRecord>> parse_msr_trace(std::string_view text, const std::string& origin);

// Reads and parses the file at path.
erails::Expected<std::vector<TraceRecord>> load_msr_trace(const std::string& path);

}  // namespace erails::sim
