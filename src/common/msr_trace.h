// MSR Cambridge block I/O traces (SNIA IOTTA, Narayanan et al. 2008), CSV, one request a line:
//   Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
//   128166372003061629,stg,0,Read,7014609920,24576,41286
// Timestamp and ResponseTime are Windows FILETIME ticks (100 ns); Type is Read or Write; Offset and
// Size are bytes. ResponseTime is what the traced system saw and is ignored. The simulator and
// QBox replay the same files, so they read them with the same rules:
//   - a header line starting with "Timestamp" is allowed before the first record;
//   - blank lines are skipped and a '\r' before the '\n' is dropped (the traces come from Windows);
//   - Timestamp, DiskNumber, Offset, Size and ResponseTime are unsigned decimal integers
//     (common/number.h: no spaces, no sign, no hex); Type is Read or Write in any letter case;
//   - Offset is at most 2^60 and Size is 1..64 MiB, so offset + size never overflows;
//   - timestamps never decrease (MSR traces are in time order; replay depends on it);
//   - a trace without records is an error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/operation.h"

namespace erails {

struct TraceRecord {
  double time = 0;  // seconds since the first record of the trace
  Operation operation = Operation::read;
  uint64_t offset = 0;  // bytes, 0..2^60
  uint32_t size = 0;    // bytes, 1..64 MiB
};

// Parses the whole text; `origin` (usually the file name) starts every message. An error's key is
// the field that was wrong ("Timestamp", "Type", ...), "record" for a wrong number of fields, or
// "trace" for a trace without records; its message names origin, line, value and what is accepted.
Expected<std::vector<TraceRecord>> parse_msr_trace(std::string_view text, const std::string& origin);

// Reads and parses the file at path; a file that cannot be read is an error with key "trace".
Expected<std::vector<TraceRecord>> load_msr_trace(const std::string& path);

}  // namespace erails
