#include "sim/simulation.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "devices/rng.h"
#include "rails/read_selection.h"
#include "rails/schedule.h"
#include "sim/device_scheduler.h"
#include "sim/event_queue.h"
#include "sim/held_writes.h"
#include "sim/invariants.h"
#include "sim/osds.h"
#include "sim/placement.h"
#include "sim/pool.h"
#include "sim/read_blocked.h"
#include "sim/version_table.h"

namespace erails::sim {

namespace {

enum EventType : uint32_t {
  kStreamNext,    // a = stream
  kShardRead,     // b = request
  kShardWritten,  // a = shard, b = request: written to its data device (policy none)
  kJournaled,     // a = shard, b = request: in the journal, now held
  kApplied,       // a = osd, b = flight
  kScheduleTick,  // a phase switch or a guard start: flushers may start or must stop
  kOsdFails,      // a = osd
  kDeviceDone,    // a = osd, b = op: a request the OSD's scheduler dispatched has completed
  kDispatch,      // a = osd: an mclock head held back by its limit may be eligible now
};

constexpr double kRetrySeconds = 0.01;

// A request waiting in (or dispatched by) an OSD's scheduler, and what its completion means.
struct DeviceOp {
  enum Kind : uint8_t { kRead, kDirectWrite, kApply } kind;
  int shard;
  uint64_t id;  // the client request (kRead, kDirectWrite) or the flight (kApply)
  double queued_at = 0;  // when it entered the OSD's scheduler
};

struct Request {
  uint32_t stream;
  bool is_read;
  ReadCause cause;        // reads: the worst cause of delay any of its shards met so far
  uint64_t object;
  uint32_t version;       // writes: the version written; reads: the version acknowledged at issue
  uint32_t shard_bytes;
  uint32_t bytes;
  int pending;
  double issued;
  int spare = 0;          // fast_read: shard reads beyond the k the client waits for
  bool answered = false;  // fast_read: the client has its answer; spare reads are still out
};

// The event loop and the life of every request: a client request becomes shard reads or shard
// writes; those go to data devices (through the OSD's scheduler, if any) or, under rails and
// erails, through the journal into the OSD's held writes, applied in write phases.
class Simulation {
 public:
  Simulation(const SimConfig& c, const Traces& traces)
      : c_(c),
        n_(c.k + c.m),
        separated_(c.policy != Policy::kNone),
        schedule_(make_schedule(c)),
        placement_(c.pgs, c.osds_per_color),
        rng_(c.seed),
        osds_(make_osds(c)),
        streams_(c.streams, traces) {
    result_.interval = c.timeline_interval;
    for (const Osd& osd : osds_) result_.slow_osds += osd.slow;
    bool any_target = false;
    for (const StreamConfig& sc : c.streams) any_target = any_target || sc.target > 0;
    per_stream_ = c.scheduler || any_target;
    if (per_stream_) result_.stream_timeline.resize(c.streams.size());
    versions_ = std::make_unique<VersionTable>(streams_.objects(), n_);
    for (const FailureConfig& f : c.failures) events_.schedule(f.at, kOsdFails, static_cast<uint32_t>(f.osd));
    for (int i = 0; i < c.k; ++i) data_shards_.push_back(i);
    for (int i = 0; i < n_; ++i) all_shards_.push_back(i);
    if (c.read_around)
      for (const Osd& osd : osds_)
        if (osd.slow) slow_colors_.insert(osd.color);
  }

  RunResult run() {
    for (uint32_t s = 0; s < c_.streams.size(); ++s)
      for (double t : streams_.first_arrivals(s, rng_)) events_.schedule(t, kStreamNext, s);
    if (separated_) events_.schedule(0, kScheduleTick);
    while (!events_.empty()) {
      const Event e = events_.pop();
      if (e.time > c_.duration + c_.drain_limit) break;
      result_.events++;
      switch (e.type) {
        case kStreamNext: issue_from_stream(e.a); break;
        case kShardRead: shard_done(e.b); break;
        case kShardWritten: written_to_device(e.b, static_cast<int>(e.a)); break;
        case kJournaled: journaled(e.b, static_cast<int>(e.a)); break;
        case kApplied: applied(e.a, e.b); break;
        case kOsdFails: fail_osd(e.a); break;
        case kDeviceDone: device_done(e.a, e.b); break;
        case kDispatch:
          osds_[e.a].retry_at = -1;
          dispatch(e.a);
          break;
        case kScheduleTick:
          if (quiescent() && events_.now() >= c_.duration) continue;  // nothing left to release
          tick();
          break;
      }
    }
    finish();
    return std::move(result_);
  }

 private:
  static rails::Schedule make_schedule(const SimConfig& c) {
    // Policy none never consults the schedule; give it any valid one.
    const int n = c.k + c.m;
    rails::ScheduleParams p{n, c.frame, c.policy == Policy::kNone ? 1 : c.readers, c.epoch,
                            c.policy == Policy::kNone ? 0 : c.guard};
    return rails::Schedule::create(p).value();
  }

  double now() const { return events_.now(); }

  void violation(const std::string& what) { record_violation(result_, what); }

  // ---- clients ----

  void issue_from_stream(uint32_t s) {
    if (!streams_.may_issue(s, now(), c_.duration)) return;
    const Arrival arrival = streams_.next(s, now(), rng_);
    if (arrival.next_at) events_.schedule(*arrival.next_at, kStreamNext, s);
    issue(s, arrival.request);
  }

  void issue(uint32_t stream, const ClientRequest& cr) {
    const auto shard_bytes = static_cast<uint32_t>((cr.bytes + c_.k - 1) / c_.k);
    if (cr.operation == Operation::read) {
      read(requests_.add(
          {stream, true, kReadClean, cr.object, versions_->object(cr.object).acked, shard_bytes, cr.bytes, 0, now()}));
    } else {
      write(requests_.add({stream, false, kReadClean, cr.object, ++versions_->object(cr.object).next, shard_bytes,
                           cr.bytes, n_, now()}));
    }
    outstanding_requests_++;
  }

  void complete(uint64_t id) {
    const Request r = requests_[id];
    requests_.release(id);
    answer(r);
  }

  // The client gets its answer: latency, acknowledgement, its next request.
  void answer(const Request& r) {
    outstanding_requests_--;
    const double latency = now() - r.issued;
    TimelineRow& tr = timeline_row(result_, now());
    if (r.is_read) {
      result_.reads++;
      result_.read_latency.add(latency);
      result_.read_latency_by_cause[r.cause].add(latency);
      tr.reads++;
      tr.read_bytes += r.bytes;
    } else {
      result_.writes++;
      result_.write_latency.add(latency);
      tr.writes++;
      tr.write_bytes += r.bytes;
      ObjectVersions& v = versions_->object(r.object);
      v.acked = std::max(v.acked, r.version);
    }
    if (per_stream_) {
      std::vector<uint64_t>& counts = result_.stream_timeline[r.stream];
      const auto i = static_cast<size_t>(now() / c_.timeline_interval);
      if (i >= counts.size()) counts.resize(i + 1);
      counts[i]++;
    }
    result_.client_end = now();
    if (c_.streams[r.stream].kind == StreamKind::kClosed) issue_from_stream(r.stream);
  }

  // ---- reads ----

  // Shards of `object` whose OSD is up.
  const std::vector<int>& available_shards(uint64_t object) {
    if (failed_osds_ == 0) return all_shards_;
    available_.clear();
    for (int shard = 0; shard < n_; ++shard)
      if (!osds_[placement_.osd_of(object, shard)].down) available_.push_back(shard);
    return available_;
  }

  void read(uint64_t id) {
    Request& r = requests_[id];
    const std::vector<int>& available = available_shards(r.object);
    const std::vector<int>* wanted = &data_shards_;
    rails::ColorSet readers(~uint64_t{0});  // policy none: every shard may serve reads
    if (separated_) {
      readers = schedule_.read_set(now());
      // Replicated reads spread over the read-phase copies (thesis §4.4.3: random readers from
      // the window); choose_read_shards keeps the copy or falls back if it is down.
      if (c_.k == 1)
        wanted_one_[0] = (schedule_.window_start(now()) + static_cast<int>(rng_.below(c_.readers))) % n_;
    } else if (c_.k == 1) {
      wanted_one_[0] = static_cast<int>(rng_.below(n_));
    }
    if (c_.k == 1) wanted = &wanted_one_;
    const std::vector<int>* shards = wanted;
    if (c_.fast_read) {
      if (static_cast<int>(available.size()) < c_.k) {
        unavailable(id);
        return;
      }
      chosen_ = available;
      shards = &chosen_;
      r.spare = static_cast<int>(chosen_.size()) - c_.k;
    } else if (separated_ || failed_osds_ > 0 || !slow_colors_.empty()) {
      auto choice = rails::choose_read_shards(c_.k, n_, *wanted, available, readers, slow_colors_);
      if (!choice.ok()) {
        unavailable(id);
        return;
      }
      chosen_ = std::move(choice.value().shards);
      shards = &chosen_;
      if (choice.value().write_phase_shards > 0) {
        result_.mixed_reads++;
        timeline_row(result_, now()).mixed_reads++;
        if (phases_strict())
          violation("read at t=" + std::to_string(now()) + " used write-phase shards with no OSD failed or slow");
      }
    }
    result_.shard_reads += shards->size();
    r.pending = static_cast<int>(shards->size());
    for (int shard : *shards) read_shard(id, shard);
  }

  // Fewer than k shards of the object are up: the request fails (Ceph would block or return EIO).
  void unavailable(uint64_t id) {
    result_.unavailable_requests++;
    const uint32_t stream = requests_[id].stream;
    requests_.release(id);
    outstanding_requests_--;
    // A closed-loop client retries after a client-side timeout rather than spinning at one instant.
    if (c_.streams[stream].kind == StreamKind::kClosed) events_.schedule(now() + kRetrySeconds, kStreamNext, stream);
  }

  void read_shard(uint64_t id, int shard) {
    const Request& r = requests_[id];
    const ShardVersions& slot = versions_->shard(r.object, shard);
    if (misses_acknowledged(slot, r.version))
      violation("read of object " + std::to_string(r.object) + " shard " + std::to_string(shard) +
                " would miss acknowledged version " + std::to_string(r.version));
    if (slot.held > slot.on_device) {
      // The newest data of this shard is still held in the OSD's memory: no device read.
      result_.memory_reads++;
      events_.schedule(now(), kShardRead, 0, id);
      return;
    }
    const int osd_id = placement_.osd_of(r.object, shard);
    Osd& osd = osds_[osd_id];
    // Checked where the OSD is chosen; a scheduler may still hold the read past a switch, and
    // dispatch counts that separately (late_reads).
    if (separated_ && phases_strict() && schedule_.phase(osd.color, now()) != rails::Phase::kRead)
      violation("device read on write-phase color " + std::to_string(osd.color));
    to_data_device(osd_id, {DeviceOp::kRead, shard, id});
  }

  void shard_done(uint64_t id) {
    Request& r = requests_[id];
    --r.pending;
    if (r.answered) {
      if (r.pending == 0) requests_.release(id);
      return;
    }
    if (r.pending > r.spare) return;
    if (r.pending == 0) {
      complete(id);
      return;
    }
    r.answered = true;
    const Request answered = r;
    answer(answered);
  }

  // Reads keep to read-phase shards unless an OSD failed or reads avoid a slow one.
  bool phases_strict() const { return failed_osds_ == 0 && slow_colors_.empty(); }

  // ---- data devices: straight to the model, or through the OSD's scheduler ----

  uint32_t stream_of(const DeviceOp& op) const {
    return op.kind == DeviceOp::kApply ? flights_[op.id].stream : requests_[op.id].stream;
  }

  devices::IoRequest io_of(const DeviceOp& op) const {
    if (op.kind == DeviceOp::kApply) {
      const HeldWrite& w = flights_[op.id];
      return {Operation::write, w.object * w.bytes, w.bytes};
    }
    const Request& r = requests_[op.id];
    return {op.kind == DeviceOp::kRead ? Operation::read : Operation::write, r.object * r.shard_bytes, r.shard_bytes};
  }

  void to_data_device(int osd_id, const DeviceOp& op) {
    Osd& osd = osds_[osd_id];
    if (!osd.scheduler) {
      const devices::IoResult io = submit_data(osd, op);
      switch (op.kind) {
        case DeviceOp::kRead: events_.schedule(io.completion, kShardRead, 0, op.id); break;
        case DeviceOp::kDirectWrite: events_.schedule(io.completion, kShardWritten, op.shard, op.id); break;
        case DeviceOp::kApply: events_.schedule(io.completion, kApplied, osd_id, op.id); break;
      }
      return;
    }
    DeviceOp waiting = op;
    waiting.queued_at = now();
    const uint64_t handle = ops_.add(waiting);
    if (op.kind == DeviceOp::kRead && separated_ && schedule_.phase(osd.color, now()) == rails::Phase::kRead)
      osd.reads_queued_reading++;
    const devices::IoRequest io = io_of(op);
    const qbox::RequestClass request_class = class_of(op);
    const double price = osd.scheduler->price(request_class, profiled_cost(c_, request_class, io.bytes));
    const auto queued = osd.scheduler->enqueue(stream_of(op), handle, price, now());
    if (!queued.ok()) violation("scheduler refused a request: " + queued.error().to_string());
    dispatch(osd_id);
  }

  // The class QBox's estimator tells apart: read or write, and the stream's access pattern.
  qbox::RequestClass class_of(const DeviceOp& op) const {
    const bool sequential = c_.streams[stream_of(op)].sequential;
    return {op.kind == DeviceOp::kRead ? Operation::read : Operation::write,
            sequential ? qbox::Access::sequential : qbox::Access::random};
  }

  devices::IoResult submit_data(Osd& osd, const DeviceOp& op) {
    const devices::IoResult io = osd.data->submit(now(), io_of(op));
    result_.device_ops++;
    // A read held in the scheduler while GC blocked the requests already on the device waited on
    // GC too, one queue further back; the device's blocks are known from what it reported.
    const bool gc_while_queued = osd.scheduler && osd.gc_seen_until > op.queued_at && now() > op.queued_at;
    if (io.gc_wait > 0) osd.gc_seen_until = std::max(osd.gc_seen_until, now() + io.gc_wait);
    if (op.kind != DeviceOp::kRead) {
      osd.writes_until = std::max(osd.writes_until, io.completion);
      return io;
    }
    ReadCause& cause = requests_[op.id].cause;
    if (io.gc_wait > 0) read_blocked_.add(now(), now() + io.gc_wait, result_);
    if (io.gc_wait > 0 || gc_while_queued) {
      cause = kReadWaitedOnGc;
    } else if (osd.writes_until > now()) {
      cause = std::min(cause, kReadWithWrites);
    }
    return io;
  }

  void dispatch(uint32_t osd_id) {
    Osd& osd = osds_[osd_id];
    while (auto handle = osd.scheduler->dequeue(now())) {
      const DeviceOp op = ops_[*handle];
      if (op.kind == DeviceOp::kApply && !schedule_.may_apply_writes(osd.color, now())) {
        // Queued in the write phase, its turn came after the switch (or in the guard): it waits,
        // first in line, for the next write phase; its price stays charged.
        osd.held.put_back(flights_[op.id]);
        flights_.release(op.id);
        ops_.release(*handle);
        osd.scheduler->give_back();
        continue;
      }
      if (op.kind == DeviceOp::kRead && separated_ &&
          schedule_.phase(osd.color, op.queued_at) == rails::Phase::kRead)
        osd.reads_queued_reading--;
      if (op.kind == DeviceOp::kRead && separated_ && failed_osds_ == 0 &&
          schedule_.phase(osd.color, now()) != rails::Phase::kRead)
        result_.late_reads++;
      osd.scheduler->on_dispatch(now());
      events_.schedule(submit_data(osd, op).completion, kDeviceDone, osd_id, *handle);
    }
    const double ready = osd.scheduler->next_ready();
    if (!osd.scheduler->empty() && !osd.scheduler->at_depth() && std::isfinite(ready) &&
        (osd.retry_at < 0 || ready < osd.retry_at)) {
      osd.retry_at = std::max(ready, now());
      events_.schedule(osd.retry_at, kDispatch, osd_id);
    }
    if (osd.applies_deferred && osd.reads_queued_reading == 0) {
      osd.applies_deferred = false;
      apply_held(static_cast<int>(osd_id));
    }
  }

  void device_done(uint32_t osd_id, uint64_t handle) {
    const DeviceOp op = ops_[handle];
    ops_.release(handle);
    osds_[osd_id].scheduler->on_completion(class_of(op), now());
    switch (op.kind) {
      case DeviceOp::kRead: shard_done(op.id); break;
      case DeviceOp::kDirectWrite: written_to_device(op.id, op.shard); break;
      case DeviceOp::kApply: applied(osd_id, op.id); break;
    }
    dispatch(osd_id);
  }

  // ---- writes ----

  void write(uint64_t id) {
    const std::vector<int>& available = available_shards(requests_[id].object);
    if (static_cast<int>(available.size()) < c_.k) {
      unavailable(id);
      return;
    }
    // Degraded write: shards on down OSDs are skipped (no recovery is modelled).
    requests_[id].pending = static_cast<int>(available.size());
    for (int shard : available) {
      const int osd_id = placement_.osd_of(requests_[id].object, shard);
      if (!separated_) {
        to_data_device(osd_id, {DeviceOp::kDirectWrite, shard, id});
      } else if (osds_[osd_id].held.admit({id, shard, requests_[id].shard_bytes})) {
        journal(osds_[osd_id], id, shard);
      }
    }
  }

  void written_to_device(uint64_t id, int shard) {
    const Request& r = requests_[id];
    uint32_t& v = versions_->shard(r.object, shard).on_device;
    v = std::max(v, r.version);
    shard_done(id);
  }

  // Precondition: the OSD's held writes admitted the shard (its bytes are reserved).
  void journal(Osd& osd, uint64_t id, int shard) {
    const Request& r = requests_[id];
    total_held_ += r.shard_bytes;
    if (osd.held.held_bytes() > c_.hold_budget) violation("held bytes above budget");
    result_.max_osd_held = std::max(result_.max_osd_held, osd.held.held_bytes());
    TimelineRow& tr = timeline_row(result_, now());
    tr.held_bytes_max = std::max(tr.held_bytes_max, total_held_);
    const devices::IoResult io = osd.journal->submit(now(), {Operation::write, osd.journal_head, r.shard_bytes});
    osd.journal_head += r.shard_bytes;
    result_.device_ops++;
    events_.schedule(io.completion, kJournaled, shard, id);
  }

  void journaled(uint64_t id, int shard) {
    const Request& r = requests_[id];
    const int osd_id = placement_.osd_of(r.object, shard);
    Osd& osd = osds_[osd_id];
    if (osd.down) {
      // Journaled just as the OSD died: it will never be applied; memory is released.
      osd.held.release(r.shard_bytes);
      total_held_ -= r.shard_bytes;
      shard_done(id);
      return;
    }
    uint32_t& v = versions_->shard(r.object, shard).held;
    v = std::max(v, r.version);
    osd.held.hold({r.object, r.version, r.shard_bytes, shard, r.stream});
    held_writes_++;
    shard_done(id);
    apply_held(osd_id);
  }

  void apply_held(int osd_id) {
    Osd& osd = osds_[osd_id];
    if (osd.held.held() == 0 || !schedule_.may_apply_writes(osd.color, now())) return;
    // Reads the scheduler still holds from the read phase go first: a write queued beside them may
    // be dispatched ahead of them (EDF) and start a GC event that blocks them, the switch-moment
    // tail of QoS on Rails (bench/sim/README.md). dispatch() resumes applying once they are out.
    if (osd.reads_queued_reading > 0) {
      osd.applies_deferred = true;
      return;
    }
    while (const auto w = osd.held.start_apply(c_.flush_depth)) {
      // Held for seconds, the shard's version record is out of cache by now; applied() updates it
      // when the device is done, and the miss is cheaper taken here, events ahead.
      __builtin_prefetch(&versions_->shard(w->object, w->shard), 1);
      to_data_device(osd_id, {DeviceOp::kApply, w->shard, flights_.add(*w)});
    }
  }

  void applied(uint32_t osd_id, uint64_t flight) {
    const HeldWrite w = flights_[flight];
    flights_.release(flight);
    Osd& osd = osds_[osd_id];
    uint32_t& v = versions_->shard(w.object, w.shard).on_device;
    v = std::max(v, w.version);
    osd.held.applied(w.bytes);
    total_held_ -= w.bytes;
    held_writes_--;
    result_.drained_at = now();
    while (const auto next = osd.held.admit_waiting()) journal(osd, next->request, next->shard);
    apply_held(static_cast<int>(osd_id));
  }

  void fail_osd(uint32_t osd_id) {
    Osd& osd = osds_[osd_id];
    if (osd.down) return;
    osd.down = true;
    failed_osds_++;
    const auto [writes, bytes] = osd.held.drop_held();
    held_writes_ -= writes;
    total_held_ -= bytes;
    // Writes waiting for this OSD's budget complete without it, like any degraded write.
    for (const WaitingShard& w : osd.held.drop_waiting()) shard_done(w.request);
  }

  void tick() {
    for (size_t i = 0; i < osds_.size(); ++i) apply_held(static_cast<int>(i));
    const double t = now();
    double next = schedule_.next_switch(t);
    const double guard_start = next - c_.guard;
    if (c_.guard > 0 && guard_start > t) next = guard_start;
    events_.schedule(next, kScheduleTick);
  }

  bool quiescent() const { return outstanding_requests_ == 0 && held_writes_ == 0 && total_held_ <= 0; }

  void finish() {
    read_blocked_.flush(result_);
    for (const Osd& osd : osds_) {
      result_.gc_blocked_seconds += osd.data->stats().gc_blocked_seconds;
      result_.gc_events += osd.data->stats().gc_events;
    }
    if (!quiescent())
      violation("held writes or requests still pending after drain_limit; raise [sim] drain_limit");
    check_drained(
        *versions_, c_.k, n_,
        [this](uint64_t object, int shard) { return failed_osds_ == 0 || !osds_[placement_.osd_of(object, shard)].down; },
        result_);
  }

  const SimConfig& c_;
  const int n_;
  const bool separated_;
  const rails::Schedule schedule_;
  const Placement placement_;
  devices::Rng rng_;
  EventQueue events_;
  std::vector<Osd> osds_;
  Streams streams_;
  Pool<Request> requests_;
  Pool<HeldWrite> flights_;  // held writes being applied
  Pool<DeviceOp> ops_;       // requests in the OSDs' schedulers
  bool per_stream_ = false;  // keep per-stream completion timelines (schedulers, targets)
  std::unique_ptr<VersionTable> versions_;
  std::vector<int> data_shards_, all_shards_, chosen_, available_;
  uint64_t failed_osds_ = 0;
  std::vector<int> wanted_one_ = {0};
  rails::ColorSet slow_colors_;  // read_around: the colors holding a slow OSD
  uint64_t outstanding_requests_ = 0;
  uint64_t held_writes_ = 0;
  double total_held_ = 0;
  ReadBlockedTime read_blocked_;
  RunResult result_;
};

}  // namespace

RunResult run_simulation(const SimConfig& config, const Traces& traces) {
  Simulation sim(config, traces);
  return sim.run();
}

erails::Expected<Traces> load_traces(const SimConfig& config) {
  Traces traces;
  for (const auto& s : config.streams) {
    if (s.kind != StreamKind::kTrace || traces.count(s.trace)) continue;
    auto t = load_msr_trace(s.trace);
    if (!t.ok()) return t.error();
    traces.emplace(s.trace, std::move(t.value()));
  }
  return traces;
}

}  // namespace erails::sim
