#include "device_emulator/emulator.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <climits>

#include "devices/hdd.h"
#include "devices/ssd.h"

namespace erails::device_emulator {

namespace {

// A completion the kernel returned before its request was charged (the submitting thread is
// between the kernel call and charge()) is looked at again this soon.
constexpr double kUnchargedRecheck = 1e-4;

std::unique_ptr<devices::Device> make_model(const devices::DeviceModel& m) {
  if (m.is_ssd) return std::make_unique<devices::SsdModel>(m.ssd);
  return std::make_unique<devices::HddModel>(m.hdd);
}

uint64_t iocb_bytes(const iocb* cb) {
  if (cb->aio_lio_opcode == IO_CMD_PREADV || cb->aio_lio_opcode == IO_CMD_PWRITEV) {
    const auto* vec = static_cast<const iovec*>(cb->u.v.vec);
    uint64_t sum = 0;
    for (long i = 0; i < static_cast<long>(cb->u.v.nr); ++i) sum += vec[i].iov_len;
    return sum;
  }
  return cb->u.c.nbytes;
}

}  // namespace

Emulator::Emulator(const EmulatorConfig& config) : config_(config), model_(make_model(config.model)) {}

Status Emulator::set_control(const Control& control, double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (Status set = model_.set_slowdown(control.slowdown, clamp(now)); !set.ok()) return set;
  model_on_ = control.model_on;
  return Ok{};
}

Control Emulator::control() {
  std::lock_guard<std::mutex> lock(mutex_);
  return Control{model_.slowdown(), model_on_};
}

bool Emulator::control_due(double now) {
  if (config_.control_path.empty()) return false;
  double next = next_control_.load(std::memory_order_relaxed);
  return now >= next && next_control_.compare_exchange_strong(next, now + kControlInterval, std::memory_order_relaxed);
}

bool Emulator::new_bad_control(const std::string& text) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (text == last_bad_control_) return false;
  last_bad_control_ = text;
  return true;
}

bool Emulator::is_data_device(const struct stat& st) const {
  if (S_ISBLK(st.st_mode)) return config_.device_ino == 0 && st.st_rdev == config_.device_dev;
  return config_.device_ino != 0 && st.st_dev == config_.device_dev && st.st_ino == config_.device_ino;
}

double Emulator::clamp(double now) {
  last_now_ = std::max(last_now_, now);
  return last_now_;
}

bool Emulator::is_data_context(io_context_t ctx) {
  std::lock_guard<std::mutex> lock(mutex_);
  return contexts_.count(ctx) != 0;
}

void Emulator::forget_context(io_context_t ctx) {
  std::lock_guard<std::mutex> lock(mutex_);
  contexts_.erase(ctx);
}

void Emulator::forget_all_contexts_after_fork() { contexts_.clear(); }

void Emulator::expect(io_context_t ctx, iocb* const* iocbs, const uint8_t* data_fd, long n, double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  Context& c = contexts_[ctx];
  now = clamp(now);
  for (long i = 0; i < n; ++i) {
    Pending p;
    p.submitted = now;
    if (!data_fd[i]) {  // another file on the data device's context: not the device's to time
      p.modeled = now;
      p.charged = true;
    }
    c.pending[iocbs[i]] = p;
  }
}

double Emulator::charge_locked(Operation op, uint64_t offset, uint64_t bytes, double now, double* gc_wait) {
  if (bytes == 0 || !model_on_) return now;
  const auto r = model_.submit(now, devices::IoRequest{op, offset, static_cast<uint32_t>(std::min<uint64_t>(bytes, UINT32_MAX))});
  *gc_wait = r.gc_wait;
  stats_.gc_wait_seconds += r.gc_wait;
  if (op == Operation::write) last_write_done_ = std::max(last_write_done_, r.completion);
  return r.completion;
}

void Emulator::charge(io_context_t ctx, iocb* const* iocbs, long n, long accepted, double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = contexts_.find(ctx);
  if (it == contexts_.end()) return;  // destroyed meanwhile
  Context& c = it->second;
  now = clamp(now);
  for (long i = 0; i < n; ++i) {
    auto p = c.pending.find(iocbs[i]);
    if (p == c.pending.end()) continue;
    if (i >= accepted) {
      c.pending.erase(p);
      stats_.not_accepted++;
      continue;
    }
    if (p->second.charged) continue;
    const iocb* cb = iocbs[i];
    double gc_wait = 0;
    switch (cb->aio_lio_opcode) {
      case IO_CMD_PREAD:
      case IO_CMD_PREADV:
        stats_.reads++;
        stats_.read_bytes += iocb_bytes(cb);
        p->second.modeled = charge_locked(Operation::read, cb->u.c.offset, iocb_bytes(cb), now, &gc_wait);
        break;
      case IO_CMD_PWRITE:
      case IO_CMD_PWRITEV:
        stats_.writes++;
        stats_.write_bytes += iocb_bytes(cb);
        p->second.modeled = charge_locked(Operation::write, cb->u.c.offset, iocb_bytes(cb), now, &gc_wait);
        break;
      case IO_CMD_FSYNC:
      case IO_CMD_FDSYNC:
        stats_.flushes++;
        p->second.modeled = std::max(now, last_write_done_);
        break;
      default:  // poll, noop: no device time
        p->second.modeled = now;
    }
    p->second.charged = true;
  }
}

void Emulator::completed(io_context_t ctx, const io_event* events, long n, double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = contexts_.find(ctx);
  if (it == contexts_.end()) return;
  for (long i = 0; i < n; ++i) it->second.held.push_back(Held{events[i], now});
}

double Emulator::release_time(Context& c, const Held& h) const {
  auto p = c.pending.find(static_cast<const iocb*>(h.event.obj));
  if (p == c.pending.end()) return h.fetched;  // unknown: never held
  if (!p->second.charged) return kNever;
  return std::max(h.fetched, p->second.modeled);
}

long Emulator::release(io_context_t ctx, io_event* out, long max, double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = contexts_.find(ctx);
  if (it == contexts_.end()) return 0;
  Context& c = it->second;
  long n = 0;
  // In order of release time, so a caller taking fewer than are due gets the oldest.
  std::stable_sort(c.held.begin(), c.held.end(),
                   [&](const Held& a, const Held& b) { return release_time(c, a) < release_time(c, b); });
  auto h = c.held.begin();
  for (; h != c.held.end() && n < max && release_time(c, *h) <= now; ++h) {
    out[n++] = h->event;
    auto p = c.pending.find(static_cast<const iocb*>(h->event.obj));
    if (p == c.pending.end()) {
      stats_.errors++;
      continue;
    }
    const double held = now - h->fetched;
    stats_.held_seconds += held;
    stats_.held_max_seconds = std::max(stats_.held_max_seconds, held);
    stats_.modeled.add(p->second.modeled - p->second.submitted);
    stats_.real.add(h->fetched - p->second.submitted);
    c.pending.erase(p);
  }
  c.held.erase(c.held.begin(), h);
  return n;
}

double Emulator::next_release(io_context_t ctx, double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = contexts_.find(ctx);
  if (it == contexts_.end()) return kNever;
  double next = kNever;
  for (const Held& h : it->second.held) {
    const double t = release_time(it->second, h);
    next = std::min(next, t == kNever ? now + kUnchargedRecheck : t);
  }
  return next;
}

double Emulator::charge_sync(Operation op, uint64_t offset, uint64_t bytes, double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  now = clamp(now);
  if (op == Operation::read) {
    stats_.sync_reads++;
    stats_.read_bytes += bytes;
  } else {
    stats_.sync_writes++;
    stats_.write_bytes += bytes;
  }
  double gc_wait = 0;
  return charge_locked(op, offset, bytes, now, &gc_wait);
}

double Emulator::charge_sync_flush(double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.sync_flushes++;
  return std::max(clamp(now), last_write_done_);
}

void Emulator::finish_sync(double submitted, double modeled, double real_done, double released) {
  std::lock_guard<std::mutex> lock(mutex_);
  const double held = std::max(0.0, released - real_done);
  stats_.held_seconds += held;
  stats_.held_max_seconds = std::max(stats_.held_max_seconds, held);
  stats_.modeled.add(modeled - submitted);
  stats_.real.add(real_done - submitted);
}

void Emulator::note_error() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.errors++;
}

std::optional<std::string> Emulator::stats_if_due(double now) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (config_.stats_path.empty() || now < next_stats_) return std::nullopt;
    next_stats_ = now + config_.stats_interval;
  }
  return stats_json(now);
}

std::string Emulator::stats_json(double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  StatsHeader h;
  h.pid = static_cast<long>(::getpid());
  h.model = model_.describe();
  h.kind = config_.model.is_ssd ? "ssd" : "hdd";
  h.time_scale = config_.model.is_ssd ? config_.model.ssd.time_scale : config_.model.hdd.time_scale;
  h.slowdown = model_.slowdown();
  h.model_on = model_on_;
  h.device = config_.device_path;
  h.uptime_seconds = now;
  return to_json(h, stats_, model_.stats());
}

}  // namespace erails::device_emulator
