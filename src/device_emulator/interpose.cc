// The LD_PRELOAD face of the emulator: the libc and libaio calls BlueStore makes on its data
// device (doc/dev/device-emulator.md lists what Debian's ceph-osd imports and which threads call
// what), each forwarded to the real function and timed on the model in emulator.h. Anything not
// on the data device, and everything when the emulator is off, goes straight through.
//
// Off, with one log line and nothing else changed, when: the process is not a ceph-osd of a Ceph
// version this build was checked against (or, for the tests, a program with no Ceph in it that
// sets ERAILS_EMULATOR_TEST_HOST=1), or the configuration (config.h) is wrong.

// Our definitions of open() etc. must not meet glibc's fortified inline wrappers of the same names.
#undef _FORTIFY_SOURCE

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "ceph_abi/checked_build.h"
#include "ceph_abi/daemon_version.h"
#include "device_emulator/config.h"
#include "device_emulator/emulator.h"

namespace erails::device_emulator {
namespace {

// fds at or above this are not tracked (ceph-osd's data device fds are opened early, below 100);
// one that is the data device is logged and left unemulated.
constexpr int kTrackedFds = 1 << 16;
// Completions fetched from the kernel per call while holding others.
constexpr long kFetchBatch = 64;
constexpr const char* kProcessName = "ceph-osd";

template <class F>
F next_symbol(const char* name) {
  return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}
// libaio exports two io_getevents; ceph-osd binds the versions below (nm -D /usr/bin/ceph-osd).
template <class F>
F next_aio_symbol(const char* name, const char* version) {
  return reinterpret_cast<F>(::dlvsym(RTLD_NEXT, name, version));
}

using OpenFn = int (*)(const char*, int, ...);
using OpenAtFn = int (*)(int, const char*, int, ...);
using CloseFn = int (*)(int);
using PreadFn = ssize_t (*)(int, void*, size_t, off_t);
using PwriteFn = ssize_t (*)(int, const void*, size_t, off_t);
using PreadvFn = ssize_t (*)(int, const struct iovec*, int, off_t);
using WritevFn = ssize_t (*)(int, const struct iovec*, int);
using SyncFn = int (*)(int);
using IoSetupFn = int (*)(int, io_context_t*);
using IoDestroyFn = int (*)(io_context_t);
using IoSubmitFn = int (*)(io_context_t, long, struct iocb**);
using IoGeteventsFn = int (*)(io_context_t, long, long, struct io_event*, struct timespec*);

// Resolved once, on first use (a call may come before this library's constructor has run).
#define ERAILS_REAL(type, name, lookup) \
  static const type real = lookup;      \
  (void)0

// Plain data only at namespace scope: the constructor below may run before this file's dynamic
// initialisers, which would then reset what it set.
Emulator* g_emulator = nullptr;  // set once by the constructor when on; lives as long as the process
std::atomic<bool> g_data_fd[kTrackedFds];
struct timespec g_epoch;  // the emulator's time 0, on CLOCK_MONOTONIC
std::atomic<bool> g_untracked_logged{false};

std::string& log_path() {
  static std::string path;
  return path;
}
std::string& stats_path() {
  static std::string path;
  return path;
}

double now_seconds() {
  struct timespec t;
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec - g_epoch.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec - g_epoch.tv_nsec);
}

int real_open(const char* path, int flags, mode_t mode) {
  ERAILS_REAL(OpenFn, open, next_symbol<OpenFn>("open"));
  return real(path, flags, mode);
}
int real_close(int fd) {
  ERAILS_REAL(CloseFn, close, next_symbol<CloseFn>("close"));
  return real(fd);
}

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0 && errno != EINTR) return;
    if (n > 0) done += static_cast<size_t>(n);
  }
}

// One line per event, opened and closed each time, so no handle has to survive the OSD's fork.
void log_line(const std::string& message) {
  const std::string line = "erails-device-emulator[" + std::to_string(::getpid()) + "]: " + message + "\n";
  if (log_path().empty()) {
    write_all(STDERR_FILENO, line);
    return;
  }
  const int fd = real_open(log_path().c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  write_all(fd, line);
  real_close(fd);
}

// Readers see either the previous stats or these, never a part (rename is atomic).
void write_stats(const std::string& json) {
  const std::string tmp = stats_path() + ".tmp." + std::to_string(::syscall(SYS_gettid));
  const int fd = real_open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  write_all(fd, json);
  real_close(fd);
  if (::rename(tmp.c_str(), stats_path().c_str()) != 0) ::unlink(tmp.c_str());
}

std::string& control_path() {
  static std::string path;
  return path;
}

// The control file's text; empty when it does not exist (then the device runs at its own speed).
std::string read_control() {
  const int fd = real_open(control_path().c_str(), O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return "";
  std::string text;
  char buf[256];
  ssize_t n;
  while (text.size() < 4096 && ((n = ::read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))) {
    if (n > 0) text.append(buf, static_cast<size_t>(n));
  }
  real_close(fd);
  return text;
}

// One log line per change: what the device does from `now` on.
std::string control_change(const Control& from, const Control& to, double now) {
  std::ostringstream line;
  if (to.model_on != from.model_on) {
    line << "model " << (to.model_on ? "on" : "off") << " from " << now << " s: "
         << (to.model_on ? "requests wait for the model again" : "requests complete at their real time, the model "
                                                                 "bypassed");
  }
  if (to.slowdown != from.slowdown) {
    if (!line.str().empty()) line << "; ";
    line << "slowdown " << to.slowdown << " from " << now << " s: "
         << (to.slowdown == 1 ? "the device runs at its model's speed again"
                              : "the device is that many times slower than its model");
  }
  return line.str();
}

void maybe_read_control(double now) {
  if (!g_emulator->control_due(now)) return;
  const int saved = errno;
  const std::string text = read_control();
  const auto wanted = parse_control(text);
  const Control current = g_emulator->control();
  if (!wanted.ok()) {
    if (g_emulator->new_bad_control(text)) {
      std::ostringstream line;
      line << "control file " << control_path() << ": " << wanted.error().key << ": " << wanted.error().message
           << "; the slowdown stays " << current.slowdown << ", the model " << (current.model_on ? "on" : "off");
      log_line(line.str());
    }
  } else if (wanted.value() != current && g_emulator->set_control(wanted.value(), now).ok()) {
    log_line(control_change(current, wanted.value(), now));
  }
  errno = saved;
}

// Called after every emulated call, off the emulator's lock: what is due of the periodic work.
void maybe_do_periodic_work() {
  const double now = now_seconds();
  maybe_read_control(now);
  if (auto json = g_emulator->stats_if_due(now)) write_stats(*json);
}

bool is_data_fd(int fd) { return fd >= 0 && fd < kTrackedFds && g_data_fd[fd].load(std::memory_order_relaxed); }

void note_open(int fd) {
  if (!g_emulator || fd < 0) return;
  struct stat st;
  const bool data = ::fstat(fd, &st) == 0 && g_emulator->is_data_device(st);
  if (fd < kTrackedFds) {
    g_data_fd[fd].store(data, std::memory_order_relaxed);
  } else if (data && !g_untracked_logged.exchange(true)) {
    log_line("fd " + std::to_string(fd) + " of the data device is above " + std::to_string(kTrackedFds) +
             "; its requests are not emulated");
    g_emulator->note_error();
  }
}

// Waits until `modeled` on the emulator's clock, whatever signals interrupt the sleep.
void sleep_until(double modeled) {
  if (!std::isfinite(modeled)) return;
  struct timespec at = g_epoch;
  const double whole = std::floor(modeled);
  at.tv_sec += static_cast<time_t>(whole);
  at.tv_nsec += static_cast<long>((modeled - whole) * 1e9);
  if (at.tv_nsec >= 1000000000L) {
    at.tv_sec++;
    at.tv_nsec -= 1000000000L;
  }
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) == EINTR) {
  }
}

// A synchronous call on the data device: charged when made, returned at max(real, modeled).
template <class Call>
auto timed_sync(Operation op, uint64_t offset, uint64_t bytes, Call call) {
  const double submitted = now_seconds();
  const double modeled = g_emulator->charge_sync(op, offset, bytes, submitted);
  const auto result = call();
  const int saved = errno;
  const double real_done = now_seconds();
  sleep_until(modeled);
  g_emulator->finish_sync(submitted, modeled, real_done, now_seconds());
  if (result < 0) g_emulator->note_error();
  maybe_do_periodic_work();
  errno = saved;
  return result;
}

template <class Call>
int timed_flush(Call call) {
  const double submitted = now_seconds();
  const double modeled = g_emulator->charge_sync_flush(submitted);
  const int result = call();
  const int saved = errno;
  sleep_until(modeled);
  if (result < 0) g_emulator->note_error();
  errno = saved;
  return result;
}

uint64_t iov_bytes(const struct iovec* iov, int count) {
  uint64_t sum = 0;
  for (int i = 0; i < count; ++i) sum += iov[i].iov_len;
  return sum;
}

bool needs_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

struct timespec to_timespec(double seconds) {
  struct timespec t;
  seconds = std::max(0.0, seconds);
  t.tv_sec = static_cast<time_t>(seconds);
  t.tv_nsec = static_cast<long>((seconds - static_cast<double>(t.tv_sec)) * 1e9);
  return t;
}

// The host check: which process this is and, in ceph-osd, which Ceph.
Status check_host() {
  char exe[PATH_MAX] = {};
  const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  const std::string path = n > 0 ? std::string(exe, static_cast<size_t>(n)) : std::string("(unknown)");
  const std::string name = path.substr(path.rfind('/') + 1);
  const auto version = reinterpret_cast<ceph_abi::VersionFunction>(::dlsym(RTLD_DEFAULT, ceph_abi::kVersionFunctionSymbol));
  if (name == kProcessName) {
    const std::string running = version ? version() : "(none found)";
    if (ceph_build::kDeviceEmulatorChecked && running == ceph_build::kVersion) return Ok{};
    return Error{"ceph", "ceph-osd of Ceph " + running + " is not a build this emulator was checked against (" +
                             (ceph_build::kDeviceEmulatorChecked ? std::string(ceph_build::kVersion) : "none") +
                             ", src/ceph_abi/builds/" + ceph_build::kVersion + "/build.conf)"};
  }
  const char* test_host = ::getenv(kTestHostVar);
  if (!version && test_host && std::string(test_host) == "1") return Ok{};
  return Error{"process", path + " is not ceph-osd; the emulator acts only in ceph-osd (or, with " +
                              std::string(kTestHostVar) + "=1, in a test program with no Ceph in it)"};
}

// io_uring would take the data device's requests past the libaio calls timed here, so the
// emulated process cannot have it: io_uring_setup fails with ENOSYS, which BlueStore (bdev_ioring)
// takes as "not supported" and uses libaio. Debian's ceph-osd carries liburing statically and
// enters the kernel directly, so only a seccomp filter reaches it.
std::string refuse_io_uring() {
#if defined(__x86_64__) && defined(__NR_io_uring_setup)
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  auto install = [&] { return ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program); };
  if (install() == 0) return "io_uring refused: io_uring_setup fails with ENOSYS in this process (seccomp)";
  // Without CAP_SYS_ADMIN the kernel takes a filter only from a process that gave up gaining
  // privileges through exec.
  if (errno == EACCES && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && install() == 0)
    return "io_uring refused: io_uring_setup fails with ENOSYS in this process (seccomp, no_new_privs set)";
  return std::string("io_uring NOT refused: seccomp failed (") + ::strerror(errno) +
         "); keep bdev_ioring = false for this OSD";
#else
  return "io_uring NOT refused on this architecture; keep bdev_ioring = false for this OSD";
#endif
}

void lock_for_fork() { g_emulator->mutex().lock(); }
void unlock_after_fork() { g_emulator->mutex().unlock(); }
void child_after_fork() {
  g_emulator->forget_all_contexts_after_fork();  // the kernel gives the child none of them
  g_emulator->mutex().unlock();
}

__attribute__((constructor)) void start_emulator() {
  ::clock_gettime(CLOCK_MONOTONIC, &g_epoch);
  if (const char* log = ::getenv(kLogVar)) log_path() = log;
  if (const Status host = check_host(); !host.ok()) {
    log_line("off, passing everything through: " + host.error().message);
    return;
  }
  auto config = read_config([](const char* name) { return static_cast<const char*>(::getenv(name)); });
  if (!config.ok()) {
    log_line("off, passing everything through: bad configuration: " + config.error().key + ": " +
             config.error().message);
    return;
  }
  stats_path() = config.value().stats_path;
  control_path() = config.value().control_path;
  // Never destroyed: OSD threads may still make calls while the process exits.
  g_emulator = new Emulator(config.value());
  ::pthread_atfork(lock_for_fork, unlock_after_fork, child_after_fork);
  const auto& m = config.value().model;
  std::ostringstream on;
  on << "on: model " << (m.is_ssd ? "ssd " : "hdd ") << config.value().model_name << " from "
     << config.value().model_file << ", time_scale " << (m.is_ssd ? m.ssd.time_scale : m.hdd.time_scale)
     << ", data device " << config.value().device_path << (stats_path().empty() ? "" : ", stats " + stats_path())
     << (control_path().empty() ? "" : ", control " + control_path());
  log_line(on.str());
  log_line(refuse_io_uring());
}

__attribute__((destructor)) void stop_emulator() {
  if (g_emulator && !stats_path().empty()) write_stats(g_emulator->stats_json(now_seconds()));
}

}  // namespace
}  // namespace erails::device_emulator

using erails::Operation;
using namespace erails::device_emulator;

#define ERAILS_EXPORT extern "C" __attribute__((visibility("default")))

ERAILS_EXPORT int open(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    va_end(ap);
  }
  ERAILS_REAL(OpenFn, open, next_symbol<OpenFn>("open"));
  const int fd = real(path, flags, mode);
  note_open(fd);
  return fd;
}

ERAILS_EXPORT int open64(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    va_end(ap);
  }
  ERAILS_REAL(OpenFn, open64, next_symbol<OpenFn>("open64"));
  const int fd = real(path, flags, mode);
  note_open(fd);
  return fd;
}

ERAILS_EXPORT int openat(int dir, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    va_end(ap);
  }
  ERAILS_REAL(OpenAtFn, openat, next_symbol<OpenAtFn>("openat"));
  const int fd = real(dir, path, flags, mode);
  note_open(fd);
  return fd;
}

ERAILS_EXPORT int openat64(int dir, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (needs_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = static_cast<mode_t>(va_arg(ap, int));
    va_end(ap);
  }
  ERAILS_REAL(OpenAtFn, openat64, next_symbol<OpenAtFn>("openat64"));
  const int fd = real(dir, path, flags, mode);
  note_open(fd);
  return fd;
}

ERAILS_EXPORT int close(int fd) {
  if (fd >= 0 && fd < kTrackedFds) g_data_fd[fd].store(false, std::memory_order_relaxed);
  return real_close(fd);
}

ERAILS_EXPORT ssize_t pread(int fd, void* buf, size_t n, off_t offset) {
  ERAILS_REAL(PreadFn, pread, next_symbol<PreadFn>("pread"));
  if (!g_emulator || !is_data_fd(fd)) return real(fd, buf, n, offset);
  return timed_sync(Operation::read, offset, n, [&] { return real(fd, buf, n, offset); });
}

ERAILS_EXPORT ssize_t pread64(int fd, void* buf, size_t n, off64_t offset) {
  ERAILS_REAL(PreadFn, pread64, next_symbol<PreadFn>("pread64"));
  if (!g_emulator || !is_data_fd(fd)) return real(fd, buf, n, offset);
  return timed_sync(Operation::read, offset, n, [&] { return real(fd, buf, n, offset); });
}

ERAILS_EXPORT ssize_t pwrite(int fd, const void* buf, size_t n, off_t offset) {
  ERAILS_REAL(PwriteFn, pwrite, next_symbol<PwriteFn>("pwrite"));
  if (!g_emulator || !is_data_fd(fd)) return real(fd, buf, n, offset);
  return timed_sync(Operation::write, offset, n, [&] { return real(fd, buf, n, offset); });
}

ERAILS_EXPORT ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t offset) {
  ERAILS_REAL(PwriteFn, pwrite64, next_symbol<PwriteFn>("pwrite64"));
  if (!g_emulator || !is_data_fd(fd)) return real(fd, buf, n, offset);
  return timed_sync(Operation::write, offset, n, [&] { return real(fd, buf, n, offset); });
}

ERAILS_EXPORT ssize_t preadv(int fd, const struct iovec* iov, int count, off_t offset) {
  ERAILS_REAL(PreadvFn, preadv, next_symbol<PreadvFn>("preadv"));
  if (!g_emulator || !is_data_fd(fd)) return real(fd, iov, count, offset);
  return timed_sync(Operation::read, offset, iov_bytes(iov, count), [&] { return real(fd, iov, count, offset); });
}

ERAILS_EXPORT ssize_t preadv64(int fd, const struct iovec* iov, int count, off64_t offset) {
  ERAILS_REAL(PreadvFn, preadv64, next_symbol<PreadvFn>("preadv64"));
  if (!g_emulator || !is_data_fd(fd)) return real(fd, iov, count, offset);
  return timed_sync(Operation::read, offset, iov_bytes(iov, count), [&] { return real(fd, iov, count, offset); });
}

ERAILS_EXPORT ssize_t pwritev(int fd, const struct iovec* iov, int count, off_t offset) {
  ERAILS_REAL(PreadvFn, pwritev, next_symbol<PreadvFn>("pwritev"));
  if (!g_emulator || !is_data_fd(fd)) return real(fd, iov, count, offset);
  return timed_sync(Operation::write, offset, iov_bytes(iov, count), [&] { return real(fd, iov, count, offset); });
}

ERAILS_EXPORT ssize_t pwritev64(int fd, const struct iovec* iov, int count, off64_t offset) {
  ERAILS_REAL(PreadvFn, pwritev64, next_symbol<PreadvFn>("pwritev64"));
  if (!g_emulator || !is_data_fd(fd)) return real(fd, iov, count, offset);
  return timed_sync(Operation::write, offset, iov_bytes(iov, count), [&] { return real(fd, iov, count, offset); });
}

// BlueStore writes the data device's label with writev, at the file position.
ERAILS_EXPORT ssize_t writev(int fd, const struct iovec* iov, int count) {
  ERAILS_REAL(WritevFn, writev, next_symbol<WritevFn>("writev"));
  if (!g_emulator || !is_data_fd(fd)) return real(fd, iov, count);
  const off_t at = ::lseek(fd, 0, SEEK_CUR);
  return timed_sync(Operation::write, at < 0 ? 0 : at, iov_bytes(iov, count), [&] { return real(fd, iov, count); });
}

ERAILS_EXPORT int fdatasync(int fd) {
  ERAILS_REAL(SyncFn, fdatasync, next_symbol<SyncFn>("fdatasync"));
  if (!g_emulator || !is_data_fd(fd)) return real(fd);
  return timed_flush([&] { return real(fd); });
}

ERAILS_EXPORT int fsync(int fd) {
  ERAILS_REAL(SyncFn, fsync, next_symbol<SyncFn>("fsync"));
  if (!g_emulator || !is_data_fd(fd)) return real(fd);
  return timed_flush([&] { return real(fd); });
}

ERAILS_EXPORT int io_setup(int max_events, io_context_t* ctx) {
  ERAILS_REAL(IoSetupFn, io_setup, next_aio_symbol<IoSetupFn>("io_setup", "LIBAIO_0.4"));
  const int r = real(max_events, ctx);
  // A new context at the address of a destroyed one starts unknown.
  if (r == 0 && g_emulator) g_emulator->forget_context(*ctx);
  return r;
}

ERAILS_EXPORT int io_destroy(io_context_t ctx) {
  ERAILS_REAL(IoDestroyFn, io_destroy, next_aio_symbol<IoDestroyFn>("io_destroy", "LIBAIO_0.4"));
  if (g_emulator) g_emulator->forget_context(ctx);
  return real(ctx);
}

ERAILS_EXPORT int io_submit(io_context_t ctx, long nr, struct iocb** iocbs) {
  ERAILS_REAL(IoSubmitFn, io_submit, next_aio_symbol<IoSubmitFn>("io_submit", "LIBAIO_0.1"));
  if (!g_emulator || nr <= 0 || !iocbs) return real(ctx, nr, iocbs);
  std::vector<uint8_t> data_fd(static_cast<size_t>(nr));
  bool any = g_emulator->is_data_context(ctx);
  for (long i = 0; i < nr; ++i) any |= (data_fd[i] = is_data_fd(iocbs[i]->aio_fildes));
  if (!any) return real(ctx, nr, iocbs);
  g_emulator->expect(ctx, iocbs, data_fd.data(), nr, now_seconds());
  const int r = real(ctx, nr, iocbs);
  // On a partial submission the kernel took the first r: only those reach the device.
  g_emulator->charge(ctx, iocbs, nr, r < 0 ? 0 : r, now_seconds());
  if (r < 0 && r != -EAGAIN) g_emulator->note_error();  // EAGAIN: BlueStore retries, as with any device
  maybe_do_periodic_work();
  return r;
}

// Returns at least min_nr completions whose modeled time has come, or fewer once the caller's
// timeout passes: never later than the caller asked, so BlueStore's aio thread still sees its
// stop flag on time.
ERAILS_EXPORT int io_getevents(io_context_t ctx, long min_nr, long nr, struct io_event* events,
                               struct timespec* timeout) {
  ERAILS_REAL(IoGeteventsFn, io_getevents, next_aio_symbol<IoGeteventsFn>("io_getevents", "LIBAIO_0.4"));
  if (!g_emulator || !g_emulator->is_data_context(ctx) || nr <= 0) return real(ctx, min_nr, nr, events, timeout);
  const double start = now_seconds();
  const double deadline =
      timeout ? start + static_cast<double>(timeout->tv_sec) + 1e-9 * static_cast<double>(timeout->tv_nsec) : kNever;
  long got = 0;
  for (bool first = true;; first = false) {
    double now = now_seconds();
    got += g_emulator->release(ctx, events + got, nr - got, now);
    if (got >= nr || (got >= min_nr && (got > 0 || !first)) || (!first && now >= deadline)) break;
    const double wake = std::min(deadline, g_emulator->next_release(ctx, now));
    struct timespec wait = to_timespec(wake - now);
    struct io_event fetched[kFetchBatch];
    // min_nr 0 asks only for what is there now.
    const int r = real(ctx, min_nr > 0 ? 1 : 0, kFetchBatch, fetched, wake == kNever ? nullptr : &wait);
    if (r < 0) {
      if (got > 0) break;
      if (r != -EINTR) g_emulator->note_error();
      return r;
    }
    g_emulator->completed(ctx, fetched, r, now_seconds());
    if (min_nr <= 0) {
      got += g_emulator->release(ctx, events + got, nr - got, now_seconds());
      break;
    }
  }
  maybe_do_periodic_work();
  return static_cast<int>(got);
}
