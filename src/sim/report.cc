#include "sim/report.h"

#include <algorithm>
#include <cstdio>

#include "sim/targets.h"

namespace erails::sim {

namespace {

constexpr double kQuantiles[] = {0.5, 0.9, 0.99, 0.999, 0.9999};
constexpr const char* kQuantileNames[] = {"p50", "p90", "p99", "p99.9", "p99.99"};

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

double active_seconds(const RunResult& r) { return r.client_end > 0 ? r.client_end : 1; }

// Reads that did not wait on GC: what the tail would be if garbage collection never met a read.
LatencyHistogram reads_without_gc(const RunResult& r) {
  LatencyHistogram h = r.read_latency_by_cause[kReadWithWrites];
  h.merge(r.read_latency_by_cause[kReadClean]);
  return h;
}

constexpr const char* kCauseNames[kReadCauses] = {"waited on GC", "with writes on the device", "neither"};

}  // namespace

void write_summary_csv(std::ostream& out, const SimConfig& c, const RunResult& r) {
  out << "policy,k,m,readers,frame,guard,seed,reads,writes";
  for (const char* q : kQuantileNames) out << ",read_" << q;
  out << ",read_max";
  for (const char* q : kQuantileNames) out << ",write_" << q;
  out << ",write_max,read_iops,write_iops,read_gc_blocked_fraction,mixed_reads,memory_reads,max_osd_held_bytes,"
         "gc_events,gc_blocked_seconds,client_end,drained_at,events,unavailable_requests,slow_osds,scheduler,late_reads,"
         "invariant_violations,reads_waited_gc,reads_with_writes,read_p99.9_without_gc,read_max_without_gc,shard_reads\n";
  out << policy_name(c.policy) << ',' << c.k << ',' << c.m << ',' << (c.policy == Policy::kNone ? 0 : c.readers)
      << ',' << num(c.frame) << ',' << num(c.guard) << ',' << c.seed << ',' << r.reads << ',' << r.writes;
  for (double q : kQuantiles) out << ',' << num(r.read_latency.quantile(q));
  out << ',' << num(r.read_latency.max());
  for (double q : kQuantiles) out << ',' << num(r.write_latency.quantile(q));
  out << ',' << num(r.write_latency.max()) << ',' << num(r.reads / active_seconds(r)) << ','
      << num(r.writes / active_seconds(r)) << ',' << num(r.read_gc_blocked / active_seconds(r)) << ','
      << r.mixed_reads << ',' << r.memory_reads << ',' << num(r.max_osd_held) << ',' << r.gc_events << ','
      << num(r.gc_blocked_seconds) << ',' << num(r.client_end) << ',' << num(r.drained_at) << ',' << r.events
      << ',' << r.unavailable_requests << ',' << r.slow_osds << ',' << scheduler_name(c.scheduler) << ','
      << r.late_reads << ',' << r.invariant_violations << ',' << r.read_latency_by_cause[kReadWaitedOnGc].count()
      << ',' << r.read_latency_by_cause[kReadWithWrites].count();
  const LatencyHistogram without_gc = reads_without_gc(r);
  out << ',' << num(without_gc.quantile(0.999)) << ',' << num(without_gc.max()) << ',' << r.shard_reads << '\n';
}

void write_timeline_csv(std::ostream& out, const RunResult& r) {
  out << "time,reads,writes,read_bytes,write_bytes,held_bytes_max,read_gc_blocked_seconds,mixed_reads\n";
  for (size_t i = 0; i < r.timeline.size(); ++i) {
    const TimelineRow& t = r.timeline[i];
    out << num(i * r.interval) << ',' << t.reads << ',' << t.writes << ',' << num(t.read_bytes) << ','
        << num(t.write_bytes) << ',' << num(t.held_bytes_max) << ',' << num(t.read_gc_blocked) << ','
        << t.mixed_reads << '\n';
  }
}

void write_targets_csv(std::ostream& out, const SimConfig& c, const RunResult& r) {
  out << "stream,target,window,windows,met,fraction_met,worst\n";
  for (const TargetOutcome& o : judge_targets(c, r))
    out << o.stream << ',' << num(o.target) << ',' << num(o.window) << ',' << o.windows << ',' << o.met << ','
        << num(o.fraction()) << ',' << num(o.worst) << '\n';
}

void write_stream_timeline_csv(std::ostream& out, const SimConfig& c, const RunResult& r) {
  out << "time";
  for (const StreamConfig& s : c.streams) out << ',' << s.name;
  out << '\n';
  size_t rows = 0;
  for (const auto& counts : r.stream_timeline) rows = std::max(rows, counts.size());
  for (size_t i = 0; i < rows; ++i) {
    out << num(i * r.interval);
    for (const auto& counts : r.stream_timeline) out << ',' << (i < counts.size() ? counts[i] : 0);
    out << '\n';
  }
}

void write_text_summary(std::ostream& out, const SimConfig& c, const RunResult& r) {
  out << "policy " << policy_name(c.policy) << ", scheduler " << scheduler_name(c.scheduler) << ", k=" << c.k
      << " m=" << c.m << ", seed " << c.seed << "\n";
  out << "reads " << r.reads << " (" << num(r.reads / active_seconds(r)) << "/s), writes " << r.writes << " ("
      << num(r.writes / active_seconds(r)) << "/s) over " << num(r.client_end) << " s\n";
  out << "read latency ms:";
  for (size_t i = 0; i < 5; ++i) out << ' ' << kQuantileNames[i] << '=' << num(r.read_latency.quantile(kQuantiles[i]) * 1e3);
  out << " max=" << num(r.read_latency.max() * 1e3) << "\n";
  out << "write latency ms:";
  for (size_t i = 0; i < 5; ++i) out << ' ' << kQuantileNames[i] << '=' << num(r.write_latency.quantile(kQuantiles[i]) * 1e3);
  out << " max=" << num(r.write_latency.max() * 1e3) << "\n";
  out << "reads by what delayed them:";
  for (int cause = 0; cause < kReadCauses; ++cause) {
    const LatencyHistogram& h = r.read_latency_by_cause[cause];
    out << (cause ? ";" : "") << ' ' << kCauseNames[cause] << ' ' << h.count();
    if (h.count()) out << " (p99.9=" << num(h.quantile(0.999) * 1e3) << " max=" << num(h.max() * 1e3) << " ms)";
  }
  out << "\n";
  out << "reads blocked by GC " << num(100 * r.read_gc_blocked / active_seconds(r)) << "% of the time; GC events "
      << r.gc_events << ", device GC time " << num(r.gc_blocked_seconds) << " s\n";
  out << "mixed reads " << r.mixed_reads << ", reads from held memory " << r.memory_reads
      << ", max held per OSD " << num(r.max_osd_held / 1e6) << " MB, drained at " << num(r.drained_at) << " s\n";
  out << "requests with fewer than k shards up " << r.unavailable_requests << "\n";
  if (r.reads) out << "shard reads per read " << num(static_cast<double>(r.shard_reads) / r.reads) << "\n";
  if (c.scheduler) out << "reads dispatched after their OSD's switch " << r.late_reads << "\n";
  for (const TargetOutcome& o : judge_targets(c, r))
    out << "target " << o.stream << " " << num(o.target) << "/s over " << num(o.window) << " s: met in " << o.met
        << " of " << o.windows << " windows (" << num(100 * o.fraction()) << "%), worst " << num(o.worst) << "/s\n";
  out << "invariant violations " << r.invariant_violations << "\n";
  for (const auto& v : r.first_violations) out << "  " << v << "\n";
}

}  // namespace erails::sim
