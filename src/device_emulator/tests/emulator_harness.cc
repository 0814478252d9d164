// The interposer's tests, with no Ceph: this program runs each case twice over. As the runner
// (`emulator_harness --lib LIB CASE`) it makes a temporary data device, other file and model file,
// sets the emulator's environment and runs itself again with LD_PRELOAD=LIB as the case
// (`--child CASE DIR`), which drives libaio and the synchronous calls and checks what it sees;
// the runner then checks the emulator's stats and log. The environment must be in place before
// the emulator's constructor runs, hence the second process.
#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "devices/ssd.h"

namespace {

constexpr size_t kBlock = 4096;
// How late a call that must not block may return on a loaded 2-core machine; the modeled reads
// the timeout test waits for take 0.77 s and more, so "returned before" stays distinguishable.
constexpr double kSchedulingSlack = 0.1;
constexpr off_t kDeviceBytes = 16 << 20;

int failures = 0;
#define CHECK(cond, ...)                                                     \
  do {                                                                       \
    if (!(cond)) {                                                           \
      std::fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                     \
      std::fprintf(stderr, "\n");                                            \
      ++failures;                                                            \
    }                                                                        \
  } while (0)

double now() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The integer after "key": in the stats JSON (stats.h), or -1.
long long json_int(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\": ");
  if (at == std::string::npos) return -1;
  return std::atoll(json.c_str() + at + key.size() + 4);
}

// --- what each case runs in the child, with the emulator preloaded -----------------------------

struct Files {
  std::string dir;
  int data = -1, other = -1;
  double time_scale = 1;
};

// When a lone 4 KiB read on the idle model completes, relative to its submission: the emulator
// must not hand it back sooner.
double modeled_read(double time_scale, int concurrent = 1) {
  erails::devices::SsdParams p;  // drive B: the model file of these tests sets only time_scale
  p.time_scale = time_scale;
  erails::devices::SsdModel model(p);
  double done = 0;
  for (int i = 0; i < concurrent; ++i)
    done = std::max(done, model.submit(0, {erails::Operation::read, uint64_t(i) * kBlock, kBlock}).completion);
  return done;
}

std::vector<char> pattern(int seed) {
  std::vector<char> b(kBlock);
  for (size_t i = 0; i < kBlock; ++i) b[i] = static_cast<char>(seed * 31 + i);
  return b;
}

int get(io_context_t ctx, long min_nr, long nr, io_event* ev, const struct timespec* timeout) {
  struct timespec t;
  if (timeout) t = *timeout;
  return io_getevents(ctx, min_nr, nr, ev, timeout ? &t : nullptr);
}

void case_aio(Files& f) {
  io_context_t ctx = nullptr;
  CHECK(io_setup(64, &ctx) == 0, "io_setup");
  std::vector<std::vector<char>> out, in(16, std::vector<char>(kBlock));
  std::vector<iocb> cbs(16);
  std::vector<iocb*> ptrs;
  std::vector<iovec> vecs(16);
  for (int i = 0; i < 16; ++i) out.push_back(pattern(i));
  for (int i = 0; i < 16; ++i) {
    if (i < 8) {
      io_prep_pwrite(&cbs[i], f.data, out[i].data(), kBlock, i * kBlock);
    } else {
      vecs[i] = {out[i].data(), kBlock};
      io_prep_pwritev(&cbs[i], f.data, &vecs[i], 1, i * kBlock);
    }
    ptrs.push_back(&cbs[i]);
  }
  CHECK(io_submit(ctx, 16, ptrs.data()) == 16, "write submit");
  io_event ev[16];
  CHECK(get(ctx, 16, 16, ev, nullptr) == 16, "write completions");
  for (int i = 0; i < 16; ++i) {
    CHECK(ev[i].res == kBlock, "write %d res %ld", i, (long)ev[i].res);
    if (i < 8) {
      io_prep_pread(&cbs[i], f.data, in[i].data(), kBlock, i * kBlock);
    } else {
      vecs[i] = {in[i].data(), kBlock};
      io_prep_preadv(&cbs[i], f.data, &vecs[i], 1, i * kBlock);
    }
  }
  CHECK(io_submit(ctx, 16, ptrs.data()) == 16, "read submit");
  int got = 0;
  while (got < 16) {  // in pieces: nr smaller than what is due
    const int r = get(ctx, 1, 5, ev, nullptr);
    CHECK(r >= 1 && r <= 5, "read completions %d", r);
    if (r < 1) break;
    got += r;
  }
  for (int i = 0; i < 16; ++i) CHECK(in[i] == out[i], "block %d read back differs", i);
  CHECK(io_destroy(ctx) == 0, "io_destroy");
}

void case_hold(Files& f) {
  const double modeled = modeled_read(f.time_scale);
  io_context_t ctx = nullptr;
  CHECK(io_setup(8, &ctx) == 0, "io_setup");
  std::vector<char> buf(kBlock);
  iocb cb;
  iocb* p = &cb;
  io_prep_pread(&cb, f.data, buf.data(), kBlock, 0);
  const double t0 = now();
  CHECK(io_submit(ctx, 1, &p) == 1, "submit");
  io_event ev;
  CHECK(get(ctx, 1, 1, &ev, nullptr) == 1, "completion");
  const double aio = now() - t0;
  CHECK(aio >= modeled, "aio read came back after %.6f s, before its modeled %.6f s", aio, modeled);
  const double t1 = now();
  CHECK(pread(f.data, buf.data(), kBlock, 0) == (ssize_t)kBlock, "pread");
  const double sync = now() - t1;
  CHECK(sync >= modeled, "pread came back after %.6f s, before its modeled %.6f s", sync, modeled);
  std::printf("modeled %.6f s, aio %.6f s, pread %.6f s\n", modeled, aio, sync);
  io_destroy(ctx);
}

void case_timeouts(Files& f) {
  const double modeled = modeled_read(f.time_scale);
  io_context_t ctx = nullptr;
  CHECK(io_setup(16, &ctx) == 0, "io_setup");
  std::vector<std::vector<char>> bufs(8, std::vector<char>(kBlock));
  std::vector<iocb> cbs(8);
  std::vector<iocb*> ptrs;
  for (int i = 0; i < 8; ++i) {
    io_prep_pread(&cbs[i], f.data, bufs[i].data(), kBlock, i * kBlock);
    ptrs.push_back(&cbs[i]);
  }
  io_event ev[8];
  double t0 = now();
  CHECK(io_submit(ctx, 1, ptrs.data()) == 1, "submit");
  const struct timespec zero = {0, 0}, short_wait = {0, 20000000};
  double t = now();
  CHECK(get(ctx, 1, 1, ev, &zero) == 0, "a zero timeout returned a completion before its modeled time");
  CHECK(now() - t < kSchedulingSlack, "a zero timeout blocked %.3f s", now() - t);
  t = now();
  CHECK(get(ctx, 1, 1, ev, &short_wait) == 0, "a 20 ms timeout returned a completion before its modeled time");
  const double waited = now() - t;
  CHECK(waited >= 0.019 && waited < 0.02 + kSchedulingSlack, "a 20 ms timeout returned after %.3f s", waited);
  CHECK(get(ctx, 1, 1, ev, nullptr) == 1, "NULL timeout");
  CHECK(now() - t0 >= modeled, "released after %.6f s, modeled %.6f s", now() - t0, modeled);
  // min_nr: all eight at once, not before the last is due.
  const double modeled8 = modeled_read(f.time_scale, 8);
  t0 = now();
  CHECK(io_submit(ctx, 8, ptrs.data()) == 8, "submit 8");
  const struct timespec long_wait = {10, 0};
  CHECK(get(ctx, 8, 8, ev, &long_wait) == 8, "min_nr 8");
  CHECK(now() - t0 >= modeled8, "8 released after %.6f s, modeled %.6f s", now() - t0, modeled8);
  // min_nr 0 asks for what is due now: nothing, right after a submission.
  CHECK(io_submit(ctx, 1, ptrs.data()) == 1, "submit");
  t = now();
  CHECK(get(ctx, 0, 1, ev, &long_wait) == 0, "min_nr 0 returned a completion before its modeled time");
  CHECK(now() - t < kSchedulingSlack, "min_nr 0 blocked %.3f s", now() - t);
  CHECK(get(ctx, 1, 1, ev, nullptr) == 1, "last completion");
  io_destroy(ctx);
}

void case_partial(Files& f) {
  io_context_t ctx = nullptr;
  CHECK(io_setup(8, &ctx) == 0, "io_setup");
  std::vector<char> buf = pattern(3);
  iocb cbs[3];
  iocb* ptrs[3] = {&cbs[0], &cbs[1], &cbs[2]};
  io_prep_pwrite(&cbs[0], f.data, buf.data(), kBlock, 0);
  io_prep_pwrite(&cbs[1], -1, buf.data(), kBlock, kBlock);  // refused: EBADF, and the rest with it
  io_prep_pwrite(&cbs[2], f.data, buf.data(), kBlock, 2 * kBlock);
  CHECK(io_submit(ctx, 3, ptrs) == 1, "a submission failing at its second entry must take the first only");
  io_event ev;
  CHECK(get(ctx, 1, 1, &ev, nullptr) == 1, "completion of the accepted entry");
  CHECK(ev.obj == &cbs[0], "completion of another entry");
  io_destroy(ctx);
}

void case_reuse(Files& f) {
  const double modeled = modeled_read(f.time_scale);
  std::vector<char> buf(kBlock);
  iocb cb;
  iocb* p = &cb;
  io_event ev;
  for (int round = 0; round < 3; ++round) {
    io_context_t ctx = nullptr;
    CHECK(io_setup(8, &ctx) == 0, "io_setup");
    io_prep_pread(&cb, f.data, buf.data(), kBlock, 0);
    CHECK(io_submit(ctx, 1, &p) == 1, "data submit");
    CHECK(get(ctx, 1, 1, &ev, nullptr) == 1, "data completion");
    CHECK(io_destroy(ctx) == 0, "io_destroy");
    // A new context, perhaps at the same address, used for another file only: not held.
    ctx = nullptr;
    CHECK(io_setup(8, &ctx) == 0, "io_setup again");
    io_prep_pread(&cb, f.other, buf.data(), kBlock, 0);
    const double t = now();
    CHECK(io_submit(ctx, 1, &p) == 1, "other submit");
    CHECK(get(ctx, 1, 1, &ev, nullptr) == 1, "other completion");
    CHECK(now() - t < modeled / 2, "another file's read on a reused context took %.6f s (modeled read %.6f s)",
          now() - t, modeled);
    io_destroy(ctx);
  }
}

void case_sync(Files& f) {
  const double modeled = modeled_read(f.time_scale);
  std::vector<char> a = pattern(1), b = pattern(2), c = pattern(3), in(kBlock);
  CHECK(pwrite(f.data, a.data(), kBlock, 0) == (ssize_t)kBlock, "pwrite");
  iovec v = {b.data(), kBlock};
  CHECK(pwritev(f.data, &v, 1, kBlock) == (ssize_t)kBlock, "pwritev");
  CHECK(lseek(f.data, 2 * kBlock, SEEK_SET) == (off_t)(2 * kBlock), "lseek");
  iovec w = {c.data(), kBlock};
  CHECK(writev(f.data, &w, 1) == (ssize_t)kBlock, "writev");
  CHECK(fdatasync(f.data) == 0, "fdatasync");
  double t = now();
  CHECK(pread(f.data, in.data(), kBlock, 0) == (ssize_t)kBlock && in == a, "pread");
  CHECK(now() - t >= modeled, "pread after %.6f s, modeled %.6f s", now() - t, modeled);
  iovec r = {in.data(), kBlock};
  CHECK(preadv(f.data, &r, 1, kBlock) == (ssize_t)kBlock && in == b, "preadv");
  CHECK(pread(f.data, in.data(), kBlock, 2 * kBlock) == (ssize_t)kBlock && in == c, "writev's block");
  t = now();
  CHECK(pread(f.other, in.data(), kBlock, 0) == (ssize_t)kBlock, "other pread");
  CHECK(now() - t < modeled / 2, "another file's pread took %.6f s", now() - t);
}

void case_fork(Files& f) {
  // A thread keeps the emulator busy (its lock taken and released) while the main thread forks:
  // every child must find the emulator usable.
  std::atomic<bool> stop{false};
  pthread_t busy;
  struct Arg {
    int fd;
    std::atomic<bool>* stop;
  } arg{f.data, &stop};
  pthread_create(
      &busy, nullptr,
      [](void* p) -> void* {
        auto* a = static_cast<Arg*>(p);
        std::vector<char> buf(kBlock);
        while (!a->stop->load()) pread(a->fd, buf.data(), kBlock, 0);
        return nullptr;
      },
      &arg);
  for (int i = 0; i < 20; ++i) {
    const pid_t child = fork();
    if (child == 0) {
      failures = 0;
      case_aio(f);
      std::vector<char> buf(kBlock);
      CHECK(pread(f.data, buf.data(), kBlock, 0) == (ssize_t)kBlock, "pread in child");
      _exit(failures ? 1 : 0);
    }
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "child %d failed (status %d)", i, status);
  }
  stop = true;
  pthread_join(busy, nullptr);
  case_aio(f);  // and the parent still works
}

// Writes the control file (nullptr: removes it), waits a control interval, and makes the call that
// reads it; then waits until the device is idle again at any speed, so the next call meets the
// change alone.
void apply_control(Files& f, const char* text) {
  const std::string control = f.dir + "/control";
  if (text) {
    std::ofstream(control) << text;
  } else {
    unlink(control.c_str());
  }
  usleep(150000);  // > kControlInterval
  std::vector<char> buf(kBlock);
  CHECK(pread(f.data, buf.data(), kBlock, 0) == (ssize_t)kBlock, "pread that reads the control file");
  usleep(static_cast<useconds_t>(20 * modeled_read(f.time_scale) * 1e6));
}

double timed_read(Files& f) {
  std::vector<char> buf(kBlock);
  const double t = now();
  CHECK(pread(f.data, buf.data(), kBlock, 0) == (ssize_t)kBlock, "pread");
  return now() - t;
}

// The control file slows the device while the process runs; a control it cannot use changes
// nothing; without the file the device is healthy again.
void case_slowdown(Files& f) {
  const double modeled = modeled_read(f.time_scale);
  apply_control(f, "slowdown = 10\n");
  double took = timed_read(f);
  CHECK(took >= 10 * modeled, "slowed 10x: pread after %.6f s, modeled healthy %.6f s", took, modeled);
  apply_control(f, "slowdown = 0\n");
  took = timed_read(f);
  CHECK(took >= 10 * modeled, "a bad control changed the speed: pread after %.6f s", took);
  apply_control(f, nullptr);
  took = timed_read(f);
  CHECK(took >= modeled && took < 5 * modeled + kSchedulingSlack, "healthy again: pread after %.6f s, modeled %.6f s",
        took, modeled);
}

// `model = off` lets requests complete at their real time; `model = on` holds them again.
void case_model_off(Files& f) {
  const double modeled = modeled_read(f.time_scale);
  apply_control(f, "model = off\n");
  double took = timed_read(f);
  CHECK(took < modeled / 2, "model off: pread after %.6f s, modeled %.6f s", took, modeled);
  apply_control(f, "model = on\n");
  took = timed_read(f);
  CHECK(took >= modeled, "model on again: pread after %.6f s, modeled %.6f s", took, modeled);
}

void case_passthrough(Files& f) {
  // The emulator is off (bad configuration, or not a host it may act in): I/O works, unheld.
  const double modeled = modeled_read(f.time_scale);
  case_aio(f);
  std::vector<char> buf(kBlock);
  const double t = now();
  CHECK(pread(f.data, buf.data(), kBlock, 0) == (ssize_t)kBlock, "pread");
  CHECK(now() - t < modeled / 2, "pread took %.6f s with the emulator off (modeled %.6f s)", now() - t, modeled);
}

void case_io_uring(Files&) {
  struct io_uring_params params;
  memset(&params, 0, sizeof params);
  const long r = syscall(__NR_io_uring_setup, 4, &params);
  CHECK(r == -1 && errno == ENOSYS, "io_uring_setup returned %ld (errno %d), not ENOSYS", r, errno);
  if (r >= 0) close(static_cast<int>(r));
}

// --- the runner -------------------------------------------------------------------------------

struct Case {
  std::function<void(Files&)> run;
  double time_scale;
  std::map<std::string, std::string> env;  // on top of the usual; "" unsets
  const char* model_time_scale = nullptr;  // written to the model file instead of time_scale
  // Checks on the stats JSON ("" when none was written) and the log, after the child.
  std::function<void(const std::string& stats, const std::string& log)> after;
  bool as_ceph_osd = false;  // run the child as an executable named ceph-osd
};

const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> all = {
      {"aio",
       {case_aio, 1, {}, nullptr,
        [](const std::string& s, const std::string&) {
          CHECK(json_int(s, "read") == 16 && json_int(s, "write") == 16, "stats: %s", s.c_str());
          CHECK(json_int(s, "errors") == 0, "errors in stats: %s", s.c_str());
        }}},
      {"hold", {case_hold, 1000, {}, nullptr, nullptr}},
      {"timeouts", {case_timeouts, 5000, {}, nullptr, nullptr}},
      {"partial",
       {case_partial, 1, {}, nullptr,
        [](const std::string& s, const std::string&) {
          CHECK(json_int(s, "write") == 1, "only the accepted write is charged: %s", s.c_str());
          CHECK(json_int(s, "not_accepted") == 2, "stats: %s", s.c_str());
        }}},
      {"context_reuse", {case_reuse, 1000, {}, nullptr, nullptr}},
      {"sync",
       {case_sync, 200, {}, nullptr,
        [](const std::string& s, const std::string&) {
          CHECK(json_int(s, "sync_write") == 3 && json_int(s, "sync_read") == 3 && json_int(s, "sync_flush") == 1,
                "stats: %s", s.c_str());
          CHECK(json_int(s, "read") == 0 && json_int(s, "write") == 0, "stats: %s", s.c_str());
        }}},
      {"fork", {case_fork, 1, {}, nullptr, nullptr}},
      {"slowdown",
       {case_slowdown, 200, {}, nullptr,
        [](const std::string& s, const std::string& log) {
          CHECK(json_int(s, "slowdown") == 1, "stats after the control file went: %s", s.c_str());
          CHECK(log.find(", control ") != std::string::npos, "log: %s", log.c_str());
          CHECK(log.find("slowdown 10 from ") != std::string::npos, "log: %s", log.c_str());
          CHECK(log.find(": slowdown: slowdown = '0' is not accepted; accepted: a number in 1..1000; the slowdown "
                         "stays 10, the model on") != std::string::npos,
                "log: %s", log.c_str());
          CHECK(log.find("slowdown 1 from ") != std::string::npos, "log: %s", log.c_str());
        }}},
      {"model_off",
       {case_model_off, 200, {}, nullptr,
        [](const std::string& s, const std::string& log) {
          CHECK(s.find("\"model_on\": true") != std::string::npos, "stats after model = on: %s", s.c_str());
          CHECK(log.find("model off from ") != std::string::npos && log.find("model on from ") != std::string::npos,
                "log: %s", log.c_str());
        }}},
      {"bad_config",
       {case_passthrough, 1000, {}, "0",
        [](const std::string& s, const std::string& log) {
          CHECK(s.empty(), "an emulator that is off wrote stats");
          CHECK(log.find("off, passing everything through: bad configuration: time_scale:") != std::string::npos &&
                    log.find("accepted: a number in 1e-6..1e6") != std::string::npos,
                "log: %s", log.c_str());
        }}},
      {"bad_device",
       {case_passthrough, 1000, {{"ERAILS_EMULATOR_DEVICE", "/nonexistent/data.img"}}, nullptr,
        [](const std::string& s, const std::string& log) {
          CHECK(s.empty(), "an emulator that is off wrote stats");
          CHECK(log.find("bad configuration: ERAILS_EMULATOR_DEVICE:") != std::string::npos, "log: %s", log.c_str());
        }}},
      {"not_a_ceph_osd",
       {case_passthrough, 1000, {{"ERAILS_EMULATOR_TEST_HOST", ""}}, nullptr,
        [](const std::string& s, const std::string& log) {
          CHECK(s.empty(), "an emulator that is off wrote stats");
          CHECK(log.find("is not ceph-osd; the emulator acts only in ceph-osd") != std::string::npos, "log: %s",
                log.c_str());
        }}},
      {"unchecked_ceph_osd",
       {case_passthrough, 1000, {}, nullptr,
        [](const std::string& s, const std::string& log) {
          CHECK(s.empty(), "an emulator that is off wrote stats");
          CHECK(log.find("off, passing everything through: ceph-osd of Ceph (none found) is not a build this "
                         "emulator was checked against") != std::string::npos,
                "log: %s", log.c_str());
        },
        true}},
      {"io_uring",
       {case_io_uring, 1, {}, nullptr,
        [](const std::string&, const std::string& log) {
          CHECK(log.find("io_uring refused") != std::string::npos, "log: %s", log.c_str());
        }}},
  };
  return all;
}

int child(const std::string& name, const std::string& dir) {
  Files f;
  f.dir = dir;
  f.time_scale = cases().at(name).time_scale;
  f.data = open((dir + "/data.img").c_str(), O_RDWR);
  f.other = open((dir + "/other.img").c_str(), O_RDWR);
  CHECK(f.data >= 0 && f.other >= 0, "open: %s", strerror(errno));
  cases().at(name).run(f);
  close(f.data);
  close(f.other);
  return failures ? 1 : 0;
}

int runner(const std::string& lib, const std::string& name) {
  const auto it = cases().find(name);
  if (it == cases().end()) {
    std::fprintf(stderr, "unknown case '%s'; accepted:", name.c_str());
    for (const auto& c : cases()) std::fprintf(stderr, " %s", c.first.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  char dir_template[] = "/tmp/erails-emulator-test.XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  for (const char* file : {"data.img", "other.img"}) {
    const int fd = open((dir + "/" + file).c_str(), O_RDWR | O_CREAT, 0600);
    CHECK(fd >= 0 && ftruncate(fd, kDeviceBytes) == 0, "creating %s", file);
    close(fd);
  }
  {
    std::ofstream model(dir + "/model.conf");
    model << "# drive B (SsdParams' defaults) with the case's time scale\n[ssd test]\ntime_scale = ";
    if (it->second.model_time_scale)
      model << it->second.model_time_scale << "\n";
    else
      model << it->second.time_scale << "\n";
  }
  std::map<std::string, std::string> env = {
      {"LD_PRELOAD", lib},
      {"ERAILS_EMULATOR_CONFIG", dir + "/model.conf"},
      {"ERAILS_EMULATOR_DEVICE", dir + "/data.img"},
      {"ERAILS_EMULATOR_STATS", dir + "/stats.json"},
      {"ERAILS_EMULATOR_STATS_INTERVAL", "0.1"},
      {"ERAILS_EMULATOR_LOG", dir + "/emulator.log"},
      {"ERAILS_EMULATOR_TEST_HOST", "1"},
      {"ERAILS_EMULATOR_CONTROL", dir + "/control"},
  };
  for (const auto& [k, v] : it->second.env) env[k] = v;
  // A ceph-osd without Ceph's version function: the emulator must take it for an unchecked build.
  std::string exe = "/proc/self/exe";
  if (it->second.as_ceph_osd) {
    exe = dir + "/ceph-osd";
    std::filesystem::copy_file("/proc/self/exe", exe);
    std::filesystem::permissions(exe, std::filesystem::perms::owner_all);
  }
  const pid_t pid = fork();
  if (pid == 0) {
    for (const auto& [k, v] : env) v.empty() ? unsetenv(k.c_str()) : setenv(k.c_str(), v.c_str(), 1);
    execl(exe.c_str(), "emulator_harness", "--child", name.c_str(), dir.c_str(), nullptr);
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "case %s failed in the child (status %d)", name.c_str(), status);
  const std::string stats = read_file(dir + "/stats.json"), log = read_file(dir + "/emulator.log");
  if (it->second.after) it->second.after(stats, log);
  std::printf("--- emulator log\n%s", log.c_str());
  if (failures == 0) {
    for (const char* file : {"data.img", "other.img", "model.conf", "stats.json", "emulator.log", "ceph-osd", "control"})
      unlink((dir + "/" + file).c_str());
    rmdir(dir.c_str());
  } else {
    std::fprintf(stderr, "kept %s\n", dir.c_str());
  }
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--child") return child(argv[2], argv[3]);
  if (argc == 4 && std::string(argv[1]) == "--lib") return runner(argv[2], argv[3]);
  std::fprintf(stderr, "usage: %s --lib LIBRARY CASE\n", argv[0]);
  return 2;
}
