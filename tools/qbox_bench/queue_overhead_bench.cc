// Scheduler overhead: enqueue + dequeue per request with every client's queue kept full, single
// thread, synthetic clock, at 10 / 100 / 1,000 / 10,000 clients, for QBox and for the project's
// mClock. Prints one line per (scheduler, clients): the median over repetitions of ns/request.
//
// Usage: qbox-queue-overhead [--ops N] [--repetitions R] [--clients a,b,c]

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/number.h"
#include "qbox/mclock_queue.h"
#include "qbox/qbox_queue.h"

namespace qbox = erails::qbox;

namespace {

using ClientId = std::uint64_t;

// What an OSD queues: a pointer-sized handle to the op plus its size.
struct Request {
  std::uint64_t op = 0;
  std::uint32_t length = 0;
};

constexpr int kDepthPerClient = 4;
constexpr double kCapacity = 100000;  // requests/s the synthetic device completes

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Costs alternate between a sequential-like and a random-like request so deadlines interleave
// and the heap really reorders.
double cost_of(ClientId client) { return client % 4 == 0 ? 8e-3 : 2e-4; }

double run_qbox(std::size_t clients, long ops) {
  qbox::QBoxQueue<ClientId, Request> queue;
  for (ClientId c = 0; c < clients; ++c) {
    if (!queue.add_client(c, 1.0 / static_cast<double>(clients))) std::abort();
  }
  double now = 0;
  for (ClientId c = 0; c < clients; ++c) {
    for (int k = 0; k < kDepthPerClient; ++k) queue.enqueue(c, Request{c, 4096}, cost_of(c), now);
  }
  auto cycle = [&](long n) {
    for (long k = 0; k < n; ++k) {
      now += 1.0 / kCapacity;
      auto next = queue.dequeue(now);
      queue.on_completion();
      queue.enqueue(next->client, next->request, cost_of(next->client), now);
    }
  };
  cycle(static_cast<long>(clients) * kDepthPerClient);
  const auto start = std::chrono::steady_clock::now();
  cycle(ops);
  return seconds_since(start) * 1e9 / static_cast<double>(ops);
}

double run_mclock(std::size_t clients, long ops) {
  qbox::MClockQueue<ClientId, Request> queue;
  // Reservations cover half the capacity so both of mClock's phases run.
  const qbox::MClockSettings settings{0.5 * kCapacity / static_cast<double>(clients), 1, 0};
  for (ClientId c = 0; c < clients; ++c) {
    if (!queue.add_client(c, settings)) std::abort();
  }
  double now = 0;
  for (ClientId c = 0; c < clients; ++c) {
    for (int k = 0; k < kDepthPerClient; ++k) queue.enqueue(c, Request{c, 4096}, 1, now);
  }
  auto cycle = [&](long n) {
    for (long k = 0; k < n; ++k) {
      now += 1.0 / kCapacity;
      auto next = queue.dequeue(now);
      if (!next) std::abort();  // no limits are set, so a full queue always yields
      queue.on_completion();
      queue.enqueue(next->client, next->request, 1, now);
    }
  };
  cycle(static_cast<long>(clients) * kDepthPerClient);
  const auto start = std::chrono::steady_clock::now();
  cycle(ops);
  return seconds_since(start) * 1e9 / static_cast<double>(ops);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

bool parse_positive(const char* text, long* value) {
  const auto parsed = erails::parse_int(text);
  if (!parsed || *parsed <= 0) return false;
  *value = static_cast<long>(*parsed);
  return true;
}

int usage(const char* message) {
  std::fprintf(stderr,
               "qbox-queue-overhead: %s\nusage: qbox-queue-overhead [--ops N>0] "
               "[--repetitions R>0] [--clients N1,N2,...]\n",
               message);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  long ops = 2000000;
  long repetitions = 5;
  std::vector<std::size_t> sizes{10, 100, 1000, 10000};
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return usage(("missing value for " + flag).c_str());
    const char* value = argv[++i];
    if (flag == "--ops") {
      if (!parse_positive(value, &ops)) return usage("--ops must be a whole number > 0");
    } else if (flag == "--repetitions") {
      if (!parse_positive(value, &repetitions)) return usage("--repetitions must be a whole number > 0");
    } else if (flag == "--clients") {
      sizes.clear();
      std::string list = value;
      std::size_t start = 0;
      while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        long n = 0;
        if (!parse_positive(list.substr(start, comma - start).c_str(), &n)) {
          return usage("--clients must be a comma-separated list of whole numbers > 0");
        }
        sizes.push_back(static_cast<std::size_t>(n));
        start = comma + 1;
      }
    } else {
      return usage(("unknown flag " + flag).c_str());
    }
  }
  std::printf("scheduler,clients,ns_per_request\n");
  for (const char* scheduler : {"qbox", "mclock"}) {
    for (const std::size_t clients : sizes) {
      std::vector<double> samples;
      for (long r = 0; r < repetitions; ++r) {
        samples.push_back(std::strcmp(scheduler, "qbox") == 0 ? run_qbox(clients, ops)
                                                                : run_mclock(clients, ops));
      }
      std::printf("%s,%zu,%.1f\n", scheduler, clients, median(samples));
      std::fflush(stdout);
    }
  }
  return 0;
}
