// Writing a RunResult as CSV (the format bench/sim scripts and plots read) and as a short text
// summary for people.
#pragma once

#include <ostream>
#include <string>

#include "sim/config.h"
#include "sim/simulation.h"

namespace erails::sim {

// One header line and one data line: configuration identity, latency percentiles (seconds),
// throughput, blocked time, held bytes, invariant count.
void write_summary_csv(std::ostream& out, const SimConfig& c, const RunResult& r);
// One line per timeline interval: start time, completed ops and bytes, held bytes, read blocked time.
void write_timeline_csv(std::ostream& out, const RunResult& r);
// One line per stream with a target: stream, target, window, windows judged, met, fraction, worst.
void write_targets_csv(std::ostream& out, const SimConfig& c, const RunResult& r);
// One line per timeline interval, one column per stream: completed requests (empty without a
// scheduler or targets).
void write_stream_timeline_csv(std::ostream& out, const SimConfig& c, const RunResult& r);
void write_text_summary(std::ostream& out, const SimConfig& c, const RunResult& r);

}  // namespace erails::sim
