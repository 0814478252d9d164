// The emulated device under one process's data device: which fds and aio contexts are the data
// device's, what each request costs on the model, and when each completion may be handed back.
// Kernel-free: callers pass the time (seconds on one monotonic clock) and the kernel's answers;
// interpose.cc makes the calls. Thread-safe: one mutex around everything, because the model needs
// one caller at a time and a non-decreasing `now` (a `now` older than one already seen is raised
// to it, since two threads may read the clock in one order and get here in the other).
#pragma once

#include <libaio.h>
#include <sys/stat.h>

#include <atomic>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "device_emulator/config.h"
#include "device_emulator/stats.h"
#include "devices/device.h"
#include "devices/slowed.h"

namespace erails::device_emulator {

inline constexpr double kNever = std::numeric_limits<double>::infinity();

class Emulator {
 public:
  // Precondition: `config` came from read_config (its model is valid).
  explicit Emulator(const EmulatorConfig& config);

  // Whether an open file (its fstat) is the data device.
  bool is_data_device(const struct stat& st) const;

  // --- libaio. A context is the data device's from the first io_submit that carries a data-device
  // fd until io_destroy (the kernel reuses context addresses).
  bool is_data_context(io_context_t ctx);
  void forget_context(io_context_t ctx);
  // Before the kernel sees a submission: its requests, so a completion that another thread fetches
  // before charge() still finds its request. data_fd[i]: iocbs[i] is on the data device.
  void expect(io_context_t ctx, iocb* const* iocbs, const uint8_t* data_fd, long n, double now);
  // After: the kernel accepted the first `accepted` of them (0 on error); only those are charged
  // to the model, the others forgotten.
  void charge(io_context_t ctx, iocb* const* iocbs, long n, long accepted, double now);
  // Completions the kernel returned at `now`; held until their release time.
  void completed(io_context_t ctx, const io_event* events, long n, double now);
  // Moves up to `max` completions due at `now` into `out`; returns how many.
  long release(io_context_t ctx, io_event* out, long max, double now);
  // When the next held completion of ctx is due; kNever if none is held.
  double next_release(io_context_t ctx, double now);

  // --- synchronous calls on a data-device fd: the modeled completion time of a request reaching
  // the device at `now` (a flush: when every write charged so far is done). finish_sync records
  // the request once the caller has waited for it.
  double charge_sync(Operation op, uint64_t offset, uint64_t bytes, double now);
  double charge_sync_flush(double now);
  void finish_sync(double submitted, double modeled, double real_done, double released);

  void note_error();

  // --- the control file (config.h): the device's slowdown, and whether requests are charged to
  // the model at all, from `now` on; an error names the key and changes nothing.
  Status set_control(const Control& control, double now);
  Control control();
  // True for one caller every kControlInterval, who then reads the control file.
  bool control_due(double now);
  // Whether `text`, a control file that could not be used, differs from the last such: an error is
  // logged once, not every time the file is read.
  bool new_bad_control(const std::string& text);

  // The stats as JSON if `now` is past the next write time (then the next one is set), else none.
  std::optional<std::string> stats_if_due(double now);
  std::string stats_json(double now);

  // pthread_atfork: the child has none of the parent's aio contexts.
  std::mutex& mutex() { return mutex_; }
  void forget_all_contexts_after_fork();

 private:
  struct Pending {
    double submitted = 0;
    double modeled = kNever;  // kNever until charged
    bool charged = false;
  };
  struct Held {
    io_event event;
    double fetched;
  };
  struct Context {
    std::unordered_map<const iocb*, Pending> pending;
    std::vector<Held> held;
  };

  double clamp(double now);
  // Charges one request on the model at `now`; returns its modeled completion.
  double charge_locked(Operation op, uint64_t offset, uint64_t bytes, double now, double* gc_wait);
  double release_time(Context& c, const Held& h) const;

  const EmulatorConfig config_;
  std::mutex mutex_;
  devices::SlowedDevice model_;
  bool model_on_ = true;  // off: requests complete at their real time, the model sees none
  double last_now_ = 0;
  double last_write_done_ = 0;
  double next_stats_ = 0;
  std::atomic<double> next_control_{0};  // checked on every call, so not under mutex_
  std::string last_bad_control_;
  std::map<io_context_t, Context> contexts_;
  EmulatorStats stats_;
};

}  // namespace erails::device_emulator
