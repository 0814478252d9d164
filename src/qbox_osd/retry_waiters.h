#pragma once
// Which of a shard's threads wait when the scheduler answers "retry at t", and which poll.
//
// QBox holds a write for a reader between its reads by answering dequeue() with a time to ask
// again (shard_queue.h, "Held writes"). A shard thread given such a time waits on the shard's
// condition until then or until an op is enqueued, except the shard's first thread, which also
// runs the commit callbacks: it returns at once and asks again, about 200,000 times a second
// (doc/dev/ceph-abi.md). That thread is recognised by coming back, many times in a row, before
// its retry time, quickly, and with nothing enqueued meanwhile; from then on, while only held ops
// are queued, empty() tells it the shard is empty, and it sleeps until the next enqueue or
// commit. The hold's end is then left to a thread that has been seen to wait (until its retry
// time, or until an enqueue woke it): without one, nobody would wake for it, so a polling thread
// is never put to sleep alone, and is not answered "retry" either (may_hold): on a shard of one
// thread, writes are not held.
//
// Not thread-safe: the shard calls its scheduler under its shard lock.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "qbox/seconds.h"

namespace erails::qbox_osd {

class RetryWaiters {
 public:
  // A thread that came back this many times in a row before its retry time polls.
  static constexpr int kPollingReturns = 16;
  // Sooner than this after its answer, and nothing enqueued: the thread did not wait.
  static constexpr qbox::Seconds kQuickReturn = 0.001;

  // Thread `thread` calls the scheduler at `now`; `enqueues` counts the shard's enqueues so far.
  void on_call(std::uint64_t thread, qbox::Seconds now, std::uint64_t enqueues) {
    Thread* const known = find(thread);
    if (known == nullptr || !known->retry_pending) return;
    known->retry_pending = false;
    const bool woken_by_enqueue = enqueues != known->enqueues_at_answer;
    if (now >= known->retry_at || woken_by_enqueue) known->waited = true;
    if (now < known->retry_at && !woken_by_enqueue && now - known->answered_at < kQuickReturn) {
      ++known->quick_returns;
    } else {
      known->quick_returns = 0;
    }
  }

  // Thread `thread` was answered at `now` to ask again at `retry_at`.
  void on_retry(std::uint64_t thread, qbox::Seconds now, qbox::Seconds retry_at,
                std::uint64_t enqueues) {
    Thread* known = find(thread);
    if (known == nullptr) {
      threads_.push_back(Thread{thread});
      known = &threads_.back();
    }
    known->retry_pending = true;
    known->answered_at = now;
    known->retry_at = retry_at;
    known->enqueues_at_answer = enqueues;
  }

  bool polls(std::uint64_t thread) const {
    const Thread* known = find(thread);
    return known != nullptr && known->quick_returns >= kPollingReturns;
  }

  // Whether `thread` may be told the shard is empty while only held ops are queued: it polls,
  // and another thread, which does not, has waited (until its retry time or an enqueue).
  bool may_sleep(std::uint64_t thread) const {
    if (!polls(thread)) return false;
    for (const Thread& other : threads_) {
      if (other.id != thread && other.waited && other.quick_returns < kPollingReturns) return true;
    }
    return false;
  }

  // Whether `thread` may be answered "retry at": it waits for that time, or it may sleep.
  bool may_hold(std::uint64_t thread) const { return !polls(thread) || may_sleep(thread); }

  std::size_t polling_threads() const {
    std::size_t count = 0;
    for (const Thread& known : threads_) count += known.quick_returns >= kPollingReturns;
    return count;
  }

 private:
  struct Thread {
    std::uint64_t id;
    bool retry_pending = false;
    bool waited = false;
    int quick_returns = 0;
    qbox::Seconds answered_at = 0;
    qbox::Seconds retry_at = 0;
    std::uint64_t enqueues_at_answer = 0;
  };

  Thread* find(std::uint64_t thread) {
    for (Thread& known : threads_) {
      if (known.id == thread) return &known;
    }
    return nullptr;
  }
  const Thread* find(std::uint64_t thread) const {
    return const_cast<RetryWaiters*>(this)->find(thread);
  }

  std::vector<Thread> threads_;  // the shard's threads that were answered "retry": a handful
};

}  // namespace erails::qbox_osd
