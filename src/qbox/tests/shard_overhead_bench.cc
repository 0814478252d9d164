// What QBox adds to each op inside an OSD (doc/dev/qbox-in-osd.md, "Overhead"): the shard queue's
// enqueue, dequeue and completion with the OSD-wide accounting, on the real steady clock, as CPU
// nanoseconds per op. `--threads T` runs T shards on T threads against one OsdShares, each
// thread doing its own shard's calls, which is how the OSD's shard threads meet on its one mutex.
// Prints one CSV line per thread count: threads,cpu_ns_per_op (the median over repetitions).
//
// Usage: qbox-shard-overhead [--ops N] [--repetitions R] [--threads a,b,c]

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "common/number.h"
#include "qbox/osd_shares.h"
#include "qbox/shard_queue.h"
#include "qbox/share_table.h"

namespace qbox = erails::qbox;

namespace {

constexpr int kClients = 4;          // table clients, plus unreserved for a fifth owner
constexpr int kQueuedPerClient = 8;  // ops each keeps queued in a shard

qbox::Seconds steady_now() {
  static const auto start = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

qbox::ShareTable table() {
  qbox::ShareTable t;
  t.epoch = 1;
  for (int c = 0; c < kClients; ++c) {
    t.clients.push_back({"client." + std::to_string(c), 0.2, {static_cast<std::uint64_t>(c)}});
  }
  t.background_recovery = 0.05;
  t.background_best_effort = 0.05;
  return t;
}

// One shard's life: ops of five owners (one unreserved), each dequeued, "run" and completed.
void shard(qbox::OsdShares& shares, long ops) {
  qbox::ShardQueue<std::uint64_t> queue(shares);
  const qbox::RequestClass kinds[2] = {{erails::Operation::read, qbox::Access::random},
                                       {erails::Operation::write, qbox::Access::random}};
  std::uint64_t next = 0;
  for (int c = 0; c <= kClients; ++c) {
    for (int k = 0; k < kQueuedPerClient; ++k) {
      queue.enqueue(next, {qbox::OpClass::client, static_cast<std::uint64_t>(c), kinds[next % 2]},
                    steady_now());
      ++next;
    }
  }
  for (long k = 0; k < ops; ++k) {
    auto op = queue.dequeue(steady_now());
    queue.complete(op->running, steady_now());
    const std::uint64_t owner = op->op % (kClients + 1);
    queue.enqueue(next, {qbox::OpClass::client, owner, kinds[next % 2]}, steady_now());
    ++next;
  }
}

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// CPU time, not wall time: what the OSD would spend, whatever else the machine runs; waiting on
// the mutex costs CPU only when it spins or enters the kernel, and then it counts.
double run(unsigned threads, long ops) {
  qbox::OsdShares shares(qbox::OsdSharesConfig{}, steady_now());
  shares.set_table(table(), steady_now());
  const double start = process_cpu_seconds();
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) workers.emplace_back(shard, std::ref(shares), ops);
  for (auto& w : workers) w.join();
  return (process_cpu_seconds() - start) * 1e9 / (static_cast<double>(ops) * threads);
}

bool parse_positive(const std::string& text, long* value) {
  const auto parsed = erails::parse_int(text.c_str());
  if (!parsed || *parsed <= 0) return false;
  *value = static_cast<long>(*parsed);
  return true;
}

int usage(const std::string& message) {
  std::fprintf(stderr,
               "qbox-shard-overhead: %s\nusage: qbox-shard-overhead [--ops N>0] "
               "[--repetitions R>0] [--threads T1,T2,...]\n",
               message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  long ops = 1000000;
  long repetitions = 5;
  std::vector<long> thread_counts{1, 2, 4};
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return usage("missing value for " + flag);
    const std::string value = argv[++i];
    if (flag == "--ops") {
      if (!parse_positive(value, &ops)) return usage("--ops: got '" + value + "'; expected a whole number > 0");
    } else if (flag == "--repetitions") {
      if (!parse_positive(value, &repetitions)) {
        return usage("--repetitions: got '" + value + "'; expected a whole number > 0");
      }
    } else if (flag == "--threads") {
      thread_counts.clear();
      std::size_t start = 0;
      while (start <= value.size()) {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        long n = 0;
        if (!parse_positive(value.substr(start, comma - start), &n) || n > 64) {
          return usage("--threads: got '" + value + "'; expected whole numbers 1-64, comma-separated");
        }
        thread_counts.push_back(n);
        start = comma + 1;
      }
    } else {
      return usage("unknown flag " + flag + "; accepted: --ops, --repetitions, --threads");
    }
  }
  std::printf("threads,cpu_ns_per_op\n");
  for (const long threads : thread_counts) {
    std::vector<double> samples;
    for (long r = 0; r < repetitions; ++r) samples.push_back(run(static_cast<unsigned>(threads), ops));
    std::sort(samples.begin(), samples.end());
    std::printf("%ld,%.1f\n", threads, samples[samples.size() / 2]);
    std::fflush(stdout);
  }
  return 0;
}
