#include "sim/simulation.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>

#include "sim/device_scheduler.h"
#include "devices/hdd.h"
#include "devices/rng.h"
#include "devices/ssd.h"
#include "sim/event_queue.h"
#include "rails/read_selection.h"
#include "rails/schedule.h"
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

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

constexpr double kRetrySeconds = 0.01;

struct HeldWrite {
  uint64_t object;
  uint32_t version;
  uint32_t bytes;
  int shard;
  uint32_t stream;  // whose write it is: the scheduler charges the flush to that stream
};

// A request waiting in (or dispatched by) an OSD's scheduler, and what its completion means.
struct DeviceOp {
  enum Kind : uint8_t { kRead, kDirectWrite, kApply } kind;
  int shard;
  uint64_t id;  // the client request (kRead, kDirectWrite) or the flight (kApply)
};

struct Osd {
  int color = 0;
  std::unique_ptr<devices::Device> data;
  std::unique_ptr<devices::Device> journal;
  uint64_t journal_head = 0;
  double held_bytes = 0;              // journaled or journaling, not yet on the data device
  std::deque<HeldWrite> to_apply;     // journaled, waiting for the write phase
  std::deque<std::pair<uint64_t, int>> throttled;  // (request, shard) waiting for budget
  int applying = 0;
  bool down = false;
  std::unique_ptr<qbox::Scheduler> scheduler;  // null with scheduler none: submit in arrival order
  double retry_at = -1;                        // a kDispatch event is pending for this time
};

struct Request {
  uint32_t stream;
  bool is_read;
  uint64_t object;
  uint32_t version;       // writes: the version written; reads: the version acknowledged at issue
  uint32_t shard_bytes;
  uint32_t bytes;
  int pending;
  double issued;
};

struct StreamState {
  uint64_t first_object = 0;  // streams address disjoint object ranges
  uint64_t next_sequential = 0;
  uint64_t issued = 0;
  size_t trace_index = 0;
  const std::vector<TraceRecord>* trace = nullptr;
};

// `slowdown` >= 1 stretches every latency and transfer time of the device by that factor.
std::unique_ptr<devices::Device> make_device(const devices::DeviceModel& d, uint64_t seed, double slowdown) {
  if (!d.is_ssd) {
    devices::HddParams p = d.hdd;
    p.bandwidth /= slowdown;
    p.avg_seek *= slowdown;
    p.rpm /= slowdown;
    return std::make_unique<devices::HddModel>(p);
  }
  devices::SsdParams p = d.ssd;
  p.seed = seed;
  p.read_latency *= slowdown;
  p.write_latency *= slowdown;
  p.read_bandwidth /= slowdown;
  p.write_bandwidth /= slowdown;
  p.gc_copy_bandwidth /= slowdown;
  p.gc_erase_bandwidth /= slowdown;
  return std::make_unique<devices::SsdModel>(p);
}

class Simulation {
 public:
  Simulation(const SimConfig& c, const Traces& traces)
      : c_(c),
        n_(c.k + c.m),
        separated_(c.policy != Policy::kNone),
        schedule_(make_schedule(c)),
        rng_(c.seed) {
    result_.interval = c.timeline_interval;
    const int osds = n_ * c.osds_per_color;
    osds_.resize(osds);
    devices::Rng slow_draw(mix(c.seed ^ 0x51017));
    for (int i = 0; i < osds; ++i) {
      osds_[i].color = i / c.osds_per_color;
      double slowdown = 1, u = slow_draw.uniform();
      for (const SlowConfig& slow : c.slow) {
        if (u < slow.fraction) {
          slowdown = slow.factor;
          result_.slow_osds++;
          break;
        }
        u -= slow.fraction;
      }
      osds_[i].data = make_device(c.devices.at(c.data_device), mix(c.seed * 1000003 + 2 * i), slowdown);
      if (!c.journal_device.empty())
        osds_[i].journal = make_device(c.devices.at(c.journal_device), mix(c.seed * 1000003 + 2 * i + 1), 1);
      if (c.scheduler) osds_[i].scheduler = make_device_scheduler(c);
    }
    bool any_target = false;
    for (const StreamConfig& sc : c.streams) any_target = any_target || sc.target > 0;
    per_stream_ = c.scheduler || any_target;
    if (per_stream_) result_.stream_timeline.resize(c.streams.size());
    uint64_t objects = 0;
    streams_.resize(c.streams.size());
    for (size_t s = 0; s < c.streams.size(); ++s) {
      streams_[s].first_object = objects;
      objects += c.streams[s].objects;
      if (c.streams[s].kind == StreamKind::kTrace) streams_[s].trace = &traces.at(c.streams[s].trace);
    }
    versions_ = std::make_unique<VersionTable>(objects, n_);
    for (const FailureConfig& f : c.failures) events_.schedule(f.at, kOsdFails, static_cast<uint32_t>(f.osd));
    for (int i = 0; i < c.k; ++i) data_shards_.push_back(i);
    for (int i = 0; i < n_; ++i) all_shards_.push_back(i);
  }

  RunResult run() {
    for (size_t s = 0; s < c_.streams.size(); ++s) start_stream(static_cast<uint32_t>(s));
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

  int osd_of(uint64_t object, int shard) const {
    const uint64_t pg = mix(object) % static_cast<uint64_t>(c_.pgs);
    const auto within = static_cast<int>(mix(pg * 64 + shard + 1) % static_cast<uint64_t>(c_.osds_per_color));
    return shard * c_.osds_per_color + within;
  }

  TimelineRow& row(double t) {
    const auto i = static_cast<size_t>(t / c_.timeline_interval);
    if (i >= result_.timeline.size()) result_.timeline.resize(i + 1);
    return result_.timeline[i];
  }

  void violation(const std::string& what) {
    if (result_.first_violations.size() < 10) result_.first_violations.push_back(what);
    result_.invariant_violations++;
  }

  // ---- clients ----

  void start_stream(uint32_t s) {
    const StreamConfig& sc = c_.streams[s];
    switch (sc.kind) {
      case StreamKind::kClosed:
        for (int i = 0; i < sc.outstanding; ++i) events_.schedule(sc.start, kStreamNext, s);
        break;
      case StreamKind::kOpen:
        events_.schedule(sc.start + exponential(sc.rate), kStreamNext, s);
        break;
      case StreamKind::kTrace:
        events_.schedule(sc.start + streams_[s].trace->front().time / sc.trace_speed, kStreamNext, s);
        break;
    }
  }

  double exponential(double rate) { return -std::log(1 - rng_.uniform()) / rate; }

  bool stream_open(uint32_t s) const {
    const StreamConfig& sc = c_.streams[s];
    return now() < sc.stop && now() < c_.duration && (sc.max_requests == 0 || streams_[s].issued < sc.max_requests);
  }

  void issue_from_stream(uint32_t s) {
    if (!stream_open(s)) return;
    const StreamConfig& sc = c_.streams[s];
    StreamState& st = streams_[s];
    bool is_read;
    uint64_t object;
    uint32_t bytes = sc.size;
    if (sc.kind == StreamKind::kTrace) {
      const TraceRecord& r = (*st.trace)[st.trace_index++];
      is_read = r.operation == Operation::read;
      object = (r.offset / sc.size) % sc.objects;
      bytes = r.size;
      if (st.trace_index < st.trace->size())
        events_.schedule(sc.start + (*st.trace)[st.trace_index].time / sc.trace_speed, kStreamNext, s);
    } else {
      is_read = sc.read_fraction >= 1 || rng_.uniform() < sc.read_fraction;
      object = sc.sequential ? st.next_sequential++ % sc.objects : rng_.below(sc.objects);
      if (sc.kind == StreamKind::kOpen) events_.schedule(now() + exponential(sc.rate), kStreamNext, s);
    }
    st.issued++;
    issue(s, is_read, st.first_object + object, bytes);
  }

  uint64_t new_request(const Request& r) {
    if (!free_requests_.empty()) {
      const uint64_t id = free_requests_.back();
      free_requests_.pop_back();
      requests_[id] = r;
      return id;
    }
    requests_.push_back(r);
    return requests_.size() - 1;
  }

  void issue(uint32_t stream, bool is_read, uint64_t object, uint32_t bytes) {
    const auto shard_bytes = static_cast<uint32_t>((bytes + c_.k - 1) / c_.k);
    if (is_read) {
      read(new_request({stream, true, object, versions_->object(object).acked, shard_bytes, bytes, 0, now()}));
    } else {
      write(new_request({stream, false, object, ++versions_->object(object).next, shard_bytes, bytes, n_, now()}));
    }
    outstanding_requests_++;
  }

  void complete(uint64_t id) {
    const Request r = requests_[id];
    free_requests_.push_back(id);
    outstanding_requests_--;
    const double latency = now() - r.issued;
    TimelineRow& tr = row(now());
    if (r.is_read) {
      result_.reads++;
      result_.read_latency.add(latency);
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
      if (!osds_[osd_of(object, shard)].down) available_.push_back(shard);
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
    if (separated_ || failed_osds_ > 0) {
      auto choice = rails::choose_read_shards(c_.k, n_, *wanted, available, readers);
      if (!choice.ok()) {
        unavailable(id);
        return;
      }
      chosen_ = std::move(choice.value().shards);
      shards = &chosen_;
      if (choice.value().write_phase_shards > 0) {
        result_.mixed_reads++;
        row(now()).mixed_reads++;
        if (failed_osds_ == 0)
          violation("read at t=" + std::to_string(now()) + " used write-phase shards with no OSD failed");
      }
    }
    r.pending = static_cast<int>(shards->size());
    for (int shard : *shards) read_shard(id, shard);
  }

  // Fewer than k shards of the object are up: the request fails (Ceph would block or return EIO).
  void unavailable(uint64_t id) {
    result_.unavailable_requests++;
    free_requests_.push_back(id);
    outstanding_requests_--;
    const uint32_t stream = requests_[id].stream;
    // A closed-loop client retries after a client-side timeout rather than spinning at one instant.
    if (c_.streams[stream].kind == StreamKind::kClosed) events_.schedule(now() + kRetrySeconds, kStreamNext, stream);
  }

  void read_shard(uint64_t id, int shard) {
    const Request& r = requests_[id];
    const ShardVersions& slot = versions_->shard(r.object, shard);
    if (std::max(slot.held, slot.on_device) < r.version)
      violation("read of object " + std::to_string(r.object) + " shard " + std::to_string(shard) +
                " would miss acknowledged version " + std::to_string(r.version));
    if (slot.held > slot.on_device) {
      // The newest data of this shard is still held in the OSD's memory: no device read.
      result_.memory_reads++;
      events_.schedule(now(), kShardRead, 0, id);
      return;
    }
    const int osd_id = osd_of(r.object, shard);
    Osd& osd = osds_[osd_id];
    // Checked where the OSD is chosen; a scheduler may still hold the read past a switch, and
    // dispatch counts that separately (late_reads).
    if (separated_ && failed_osds_ == 0 && schedule_.phase(osd.color, now()) != rails::Phase::kRead)
      violation("device read on write-phase color " + std::to_string(osd.color));
    to_data_device(osd_id, {DeviceOp::kRead, shard, id});
  }

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
    const uint64_t handle = new_op(op);
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
    if (op.kind == DeviceOp::kRead && io.gc_wait > 0) note_read_blocked(now(), now() + io.gc_wait);
    return io;
  }

  void dispatch(uint32_t osd_id) {
    Osd& osd = osds_[osd_id];
    while (auto handle = osd.scheduler->dequeue(now())) {
      const DeviceOp op = ops_[*handle];
      if (op.kind == DeviceOp::kApply && !schedule_.may_apply_writes(osd.color, now())) {
        // Queued in the write phase, its turn came after the switch (or in the guard): it waits,
        // first in line, for the next write phase; its price stays charged.
        osd.to_apply.push_front(flights_[op.id]);
        free_flights_.push_back(op.id);
        free_ops_.push_back(*handle);
        osd.applying--;
        osd.scheduler->give_back();
        continue;
      }
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
  }

  void device_done(uint32_t osd_id, uint64_t handle) {
    const DeviceOp op = ops_[handle];
    free_ops_.push_back(handle);
    osds_[osd_id].scheduler->on_completion(class_of(op), now());
    switch (op.kind) {
      case DeviceOp::kRead: shard_done(op.id); break;
      case DeviceOp::kDirectWrite: written_to_device(op.id, op.shard); break;
      case DeviceOp::kApply: applied(osd_id, op.id); break;
    }
    dispatch(osd_id);
  }

  uint64_t new_op(const DeviceOp& op) {
    if (!free_ops_.empty()) {
      const uint64_t id = free_ops_.back();
      free_ops_.pop_back();
      ops_[id] = op;
      return id;
    }
    ops_.push_back(op);
    return ops_.size() - 1;
  }

  // Union of intervals during which some read waited on GC; intervals arrive by start time.
  void note_read_blocked(double from, double to) {
    if (from > blocked_to_) {
      flush_blocked();
      blocked_from_ = from;
    }
    blocked_to_ = std::max(blocked_to_, to);
  }
  void flush_blocked() {
    if (blocked_to_ <= blocked_from_) return;
    result_.read_gc_blocked += blocked_to_ - blocked_from_;
    // Attribute to timeline rows, splitting at interval edges.
    for (double t = blocked_from_; t < blocked_to_;) {
      const double edge = (std::floor(t / c_.timeline_interval) + 1) * c_.timeline_interval;
      const double until = std::min(edge, blocked_to_);
      row(t).read_gc_blocked += until - t;
      t = until;
    }
    blocked_from_ = blocked_to_;
  }

  void shard_done(uint64_t id) {
    if (--requests_[id].pending == 0) complete(id);
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
      if (separated_) {
        admit(osd_of(requests_[id].object, shard), id, shard);
      } else {
        to_data_device(osd_of(requests_[id].object, shard), {DeviceOp::kDirectWrite, shard, id});
      }
    }
  }

  void written_to_device(uint64_t id, int shard) {
    const Request& r = requests_[id];
    uint32_t& v = versions_->shard(r.object, shard).on_device;
    v = std::max(v, r.version);
    shard_done(id);
  }

  // Journals the shard if the OSD's budget has room, else queues it until held writes drain.
  void admit(int osd_id, uint64_t id, int shard) {
    Osd& osd = osds_[osd_id];
    const Request& r = requests_[id];
    if (!osd.throttled.empty() || osd.held_bytes + r.shard_bytes > c_.hold_budget) {
      osd.throttled.emplace_back(id, shard);
      return;
    }
    journal(osd, id, shard);
  }

  void journal(Osd& osd, uint64_t id, int shard) {
    const Request& r = requests_[id];
    osd.held_bytes += r.shard_bytes;
    total_held_ += r.shard_bytes;
    if (osd.held_bytes > c_.hold_budget) violation("held bytes above budget");
    result_.max_osd_held = std::max(result_.max_osd_held, osd.held_bytes);
    TimelineRow& tr = row(now());
    tr.held_bytes_max = std::max(tr.held_bytes_max, total_held_);
    const devices::IoResult io = osd.journal->submit(now(), {Operation::write, osd.journal_head, r.shard_bytes});
    osd.journal_head += r.shard_bytes;
    result_.device_ops++;
    events_.schedule(io.completion, kJournaled, shard, id);
  }

  void journaled(uint64_t id, int shard) {
    const Request& r = requests_[id];
    const int osd_id = osd_of(r.object, shard);
    Osd& osd = osds_[osd_id];
    if (osd.down) {
      // Journaled just as the OSD died: it will never be applied; memory is released.
      osd.held_bytes -= r.shard_bytes;
      total_held_ -= r.shard_bytes;
      shard_done(id);
      return;
    }
    uint32_t& v = versions_->shard(r.object, shard).held;
    v = std::max(v, r.version);
    osd.to_apply.push_back({r.object, r.version, r.shard_bytes, shard, r.stream});
    held_writes_++;
    shard_done(id);
    apply_held(osd_id);
  }


  void apply_held(int osd_id) {
    Osd& osd = osds_[osd_id];
    while (osd.applying < c_.flush_depth && !osd.to_apply.empty() && schedule_.may_apply_writes(osd.color, now())) {
      const HeldWrite w = osd.to_apply.front();
      osd.to_apply.pop_front();
      osd.applying++;
      // Held for seconds, the shard's version record is out of cache by now; applied() updates it
      // when the device is done, and the miss is cheaper taken here, events ahead.
      __builtin_prefetch(&versions_->shard(w.object, w.shard), 1);
      to_data_device(osd_id, {DeviceOp::kApply, w.shard, new_flight(w)});
    }
  }

  uint64_t new_flight(const HeldWrite& w) {
    if (!free_flights_.empty()) {
      const uint64_t id = free_flights_.back();
      free_flights_.pop_back();
      flights_[id] = w;
      return id;
    }
    flights_.push_back(w);
    return flights_.size() - 1;
  }

  void applied(uint32_t osd_id, uint64_t flight) {
    const HeldWrite w = flights_[flight];
    free_flights_.push_back(flight);
    Osd& osd = osds_[osd_id];
    uint32_t& v = versions_->shard(w.object, w.shard).on_device;
    v = std::max(v, w.version);
    osd.applying--;
    osd.held_bytes -= w.bytes;
    total_held_ -= w.bytes;
    held_writes_--;
    result_.drained_at = now();
    while (!osd.throttled.empty()) {
      const auto [id, shard] = osd.throttled.front();
      if (osd.held_bytes + requests_[id].shard_bytes > c_.hold_budget) break;
      osd.throttled.pop_front();
      journal(osd, id, shard);
    }
    apply_held(static_cast<int>(osd_id));
  }

  void fail_osd(uint32_t osd_id) {
    Osd& osd = osds_[osd_id];
    if (osd.down) return;
    osd.down = true;
    failed_osds_++;
    for (const HeldWrite& w : osd.to_apply) {
      osd.held_bytes -= w.bytes;
      total_held_ -= w.bytes;
    }
    held_writes_ -= osd.to_apply.size();
    osd.to_apply.clear();
    // Writes waiting for this OSD's budget complete without it, like any degraded write.
    while (!osd.throttled.empty()) {
      const uint64_t id = osd.throttled.front().first;
      osd.throttled.pop_front();
      shard_done(id);
    }
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
    flush_blocked();
    for (const Osd& osd : osds_) {
      result_.gc_blocked_seconds += osd.data->stats().gc_blocked_seconds;
      result_.gc_events += osd.data->stats().gc_events;
    }
    if (!quiescent())
      violation("held writes or requests still pending after drain_limit; raise [sim] drain_limit");
    // Every shard on a surviving OSD is current, and enough shards are to decode.
    for (uint64_t o = 0; o < versions_->objects(); ++o) {
      int current = 0;
      for (int s = 0; s < n_; ++s) {
        const bool up = failed_osds_ == 0 || !osds_[osd_of(o, s)].down;
        if (versions_->shard(o, s).on_device >= versions_->object(o).acked) {
          current++;
        } else if (up) {
          violation("acknowledged write lost: object " + std::to_string(o) + " shard " + std::to_string(s) +
                    " has version " + std::to_string(versions_->shard(o, s).on_device) + " < " +
                    std::to_string(versions_->object(o).acked));
        }
      }
      if (current < c_.k)
        violation("object " + std::to_string(o) + " has only " + std::to_string(current) + " current shards");
    }
  }

  const SimConfig& c_;
  const int n_;
  const bool separated_;
  const rails::Schedule schedule_;
  devices::Rng rng_;
  EventQueue events_;
  std::vector<Osd> osds_;
  std::vector<StreamState> streams_;
  std::vector<Request> requests_;
  std::vector<uint64_t> free_requests_;
  std::vector<HeldWrite> flights_;
  std::vector<uint64_t> free_flights_;
  std::vector<DeviceOp> ops_;
  std::vector<uint64_t> free_ops_;
  bool per_stream_ = false;  // keep per-stream completion timelines (schedulers, targets)
  std::unique_ptr<VersionTable> versions_;
  std::vector<int> data_shards_, all_shards_, chosen_, available_;
  uint64_t failed_osds_ = 0;
  std::vector<int> wanted_one_ = {0};
  uint64_t outstanding_requests_ = 0;
  uint64_t held_writes_ = 0;
  double total_held_ = 0;
  double blocked_from_ = 0, blocked_to_ = 0;
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
