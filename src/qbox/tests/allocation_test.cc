// Proves the scheduler's steady state allocates nothing per request: every operator new in this
// binary is counted, and a full queue is cycled through enqueue + dequeue while the count is watched.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "qbox/qbox_queue.h"

namespace {
std::atomic<long> g_allocations{0};
int* volatile g_escape = nullptr;  // keeps the compiler from eliding the control allocation
}

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace erails::qbox {
namespace {

struct Request {
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
};

TEST(Allocation, SteadyStateEnqueueDequeueDoesNotAllocate) {
  constexpr int kClients = 1000;
  constexpr int kDepth = 8;
  QBoxQueue<int, Request> queue;
  for (int c = 0; c < kClients; ++c) ASSERT_TRUE(queue.add_client(c, 1.0 / kClients));
  Seconds now = 0;
  for (int c = 0; c < kClients; ++c) {
    for (int k = 0; k < kDepth; ++k) ASSERT_TRUE(queue.enqueue(c, Request{0, 4096}, 1e-4, now));
  }
  // Warm up: heaps and FIFOs reach their steady-state capacity.
  for (int k = 0; k < kClients * kDepth; ++k) {
    auto next = queue.dequeue(now);
    queue.on_completion();
    ASSERT_TRUE(queue.enqueue(next->client, std::move(next->request), 1e-4, now));
  }
  const long before = g_allocations.load();
  for (int k = 0; k < 200000; ++k) {
    now += 1e-6;
    auto next = queue.dequeue(now);
    queue.on_completion();
    ASSERT_TRUE(queue.enqueue(next->client, std::move(next->request), 1e-4 * (1 + k % 3), now));
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
}

TEST(Allocation, CountingWorks) {
  const long before = g_allocations.load();
  g_escape = new int(3);
  delete g_escape;
  EXPECT_EQ(g_allocations.load() - before, 1);
}

}  // namespace
}  // namespace erails::qbox
