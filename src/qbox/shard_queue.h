#pragma once
// What one OSD op shard runs instead of Ceph's scheduler (doc/dev/qbox-in-osd.md): immediate ops
// first, in arrival order (as mClock does: peering, replica sub-ops and urgent recovery must not
// wait behind client shares); everything else through one QBoxQueue whose clients are the
// accounts of the share table in force (osd_shares.h): named clients by owner, the two background
// classes, and unreserved.
//
// The queue picks up a new table at its next call: utilizations change for ops enqueued from then
// on; ops already queued keep their tags. An account that left the table keeps its queued ops.
//
// Not thread-safe, like the OSD's own schedulers: the shard calls under its shard lock.

#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "qbox/osd_shares.h"
#include "qbox/qbox_queue.h"
#include "qbox/request_class.h"
#include "qbox/seconds.h"

namespace erails::qbox {

// What the shard needs to know about an op besides the op itself.
struct OpTraits {
  OpClass op_class = OpClass::client;
  std::uint64_t owner = 0;
  RequestClass request_class;
  std::uint64_t bytes = 0;  // a write's length
};

template <class Op>
class ShardQueue {
 public:
  struct Dispatched {
    Op op;
    RunningOp running;  // for complete()
  };

  // `shares` must outlive the queue.
  explicit ShardQueue(OsdShares& shares) : shares_(shares) { refresh(); }

  void enqueue(Op op, const OpTraits& traits, Seconds now) { put(std::move(op), traits, false, now); }
  // An op the OSD dequeued and puts back (it could not run yet): ahead of its account's other ops,
  // not charged again.
  void enqueue_front(Op op, const OpTraits& traits, Seconds now) {
    put(std::move(op), traits, true, now);
  }

  bool empty() const { return immediate_.empty() && qbox_.empty(); }

  // The next op, or nothing when empty().
  std::optional<Dispatched> dequeue(Seconds now) {
    if (!immediate_.empty()) {
      Queued next = std::move(immediate_.front());
      immediate_.pop_front();
      return Dispatched{std::move(next.op),
                        shares_.on_dispatch(kNoAccount, next.request_class, next.bytes, 0, now)};
    }
    auto next = qbox_.dequeue(now);
    if (!next) return std::nullopt;
    // The OSD's shard threads bound how many ops run at once; QBox only orders them.
    qbox_.on_completion();
    return Dispatched{std::move(next->request.op),
                      shares_.on_dispatch(next->client, next->request.request_class,
                                          next->request.bytes, next->request.cost, now)};
  }

  // The thread that ran a dispatched op came back: the op's account pays its price (osd_shares.h),
  // so the account's later deadlines move by the difference from the estimate it was tagged
  // with. Call from this shard's thread (under the shard lock, like every other call). Returns
  // the price.
  Seconds complete(const RunningOp& op, Seconds now) {
    const Seconds measured = shares_.on_completion(op, now);
    if (op.account != kNoAccount) qbox_.charge(op.account, measured - op.estimate);
    return measured;
  }

  std::size_t size() const { return immediate_.size() + qbox_.size(); }
  std::size_t immediate_size() const { return immediate_.size(); }
  // The EDF queue's state (QBoxQueue::dump_json): the frontier and each account's deadlines.
  std::string queue_json() const { return qbox_.dump_json(); }

 private:
  struct Queued {
    Op op{};
    RequestClass request_class;
    std::uint64_t bytes = 0;
    Seconds cost = 0;
  };

  void refresh() {
    snapshot_ = shares_.snapshot();
    for (const auto& [account, utilization] : snapshot_->utilizations) {
      if (!qbox_.add_client(account, utilization)) qbox_.set_utilization(account, utilization);
    }
  }

  void put(Op op, const OpTraits& traits, bool front, Seconds now) {
    if (shares_.generation() != snapshot_->generation) refresh();
    const AccountId account = snapshot_->account_of(traits.op_class, traits.owner);
    const Seconds cost =
        shares_.on_enqueue(account, traits.request_class, traits.bytes, front, now);
    Queued queued{std::move(op), traits.request_class, traits.bytes, cost};
    if (account == kNoAccount) {
      if (front) {
        immediate_.push_front(std::move(queued));
      } else {
        immediate_.push_back(std::move(queued));
      }
      return;
    }
    // Every account of the snapshot is registered (refresh) and the estimator's costs are finite
    // and >= 0, so QBox accepts the op; were that ever not so, the op would be lost inside the
    // OSD, hence the check up front.
    if (!std::isfinite(cost) || cost < 0) queued.cost = shares_.default_cost();
    if (front) {
      qbox_.enqueue_front(account, std::move(queued), now);
    } else {
      const Seconds tagged = queued.cost;
      qbox_.enqueue(account, std::move(queued), tagged, now);
    }
  }

  OsdShares& shares_;
  std::shared_ptr<const ShareSnapshot> snapshot_;
  std::deque<Queued> immediate_;
  QBoxQueue<AccountId, Queued> qbox_;
};

}  // namespace erails::qbox
