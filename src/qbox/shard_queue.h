#pragma once
// What one OSD op shard runs instead of Ceph's scheduler (doc/dev/qbox-in-osd.md): immediate ops
// first, in arrival order (as mClock does: peering, replica sub-ops and urgent recovery must not
// wait behind client shares); everything else through one QBoxQueue whose clients are the
// accounts of the share table in force (osd_shares.h): named clients by owner, the two background
// classes, and unreserved.
//
// Held writes: a write's thread comes back at submission and the device does its work later,
// ahead of any read dispatched after it. So a write dispatched because a reader's queue was empty
// for a moment (its next read not sent yet) takes the device from that reader for the write's
// whole device time, and a closed-loop reader whose queue often empties (its ops spread over
// several OSDs) loses nearly all of its share to a writer (doc/dev/qbox-in-osd.md, "Held
// writes"). So while a reader with nothing queued has a read running, or for
// `read_anticipation` after its last read completed, a write that the reader's next read would
// precede is held: dequeue() returns nothing and held_until() says when to ask again. Any
// enqueue ends the wait early; a write that goes first in EDF order anyway, a write that costs no
// more than two of the reader's reads (a 4 KiB write beside 4 KiB reads), or a read, is never
// held. Nobody pays for the hold. It is the writes' time where the device was still doing the
// writes submitted before it, and idle time, left out of the write price, where the reader's next
// read ran at its clean price (osd_shares.h; doc/dev/qbox-in-osd.md, "Held writes").
//
// The writes' backlog: the anticipation above ends `read_anticipation` after a reader's last read.
// A reader whose ops wait at another OSD stays away longer, and then EDF, work-conserving, handed
// the shard threads every queued write at once: on two OSDs a 1 MiB writer's queue, 14 writes and
// 17 s of its deadlines, went to BlueStore in half a second, and the reader, back, waited behind
// them (bench/qbox/README.md, "The writes' backlog"). So while a reader is about (a read queued
// or running, or one completed within `reader_presence`), the writes' lead is kept at most
// `write_backlog`: the device time of the OSD's writes (OsdShares::writes_submitted, replica
// sub-ops too) beyond what the readers about leave the writes, one minus their shares, per
// second. Beyond it, reads queued behind a write at the head go first, and with none queued the
// write is held until the lead has drained to the bound or the reader is no longer about. Draining
// at the device's pace instead (a bound on the writes not yet done) still let a writer take the
// whole device whenever the reader had nothing queued here, 0.5 s at a time (bench/qbox/README.md,
// "The writes' backlog"; "What the readers leave the writes" has the runs since). The thesis
// bounds the device's queue so that QBox, not the device, decides the order (qbox_queue.h,
// "Bounded dispatch depth"); a write's thread comes back at submission, so what it leaves the
// device's queue is counted by its price instead. A client's own reads do not hold its writes,
// and a writer alone is never held. A reader that has had more than its share still holds them:
// let through whenever a reader's recent charge reached its share, the 1 MiB writer of the mix
// 3.2w took 0.27-0.39 of its rate for 0.2 (bench/qbox/README.md, "A reservation is a floor").
//
// The queue picks up a new table at its next call: utilizations change for ops enqueued from then
// on; ops already queued keep their tags. An account that left the table keeps its queued ops.
//
// After a write fit (OsdShares::write_fits) the queue tags its queued writes again at the new
// price, at its next dequeue (QBoxQueue::reprice).
//
// Not thread-safe, like the OSD's own schedulers: the shard calls under its shard lock.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "common/json_text.h"
#include "qbox/draining_backlog.h"
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

// An OSD op's traits from its item (doc/dev/ceph-abi.md): the scheduler class (a value past
// `client` is scheduled as a client's), the owner, and the cost, which the OSD sets to the bytes
// an op writes and to 0 for a read; offsets are inside the message, which we do not parse, so
// every op counts as random. Peering events carry a cost of 10 but write no client data; counted
// as writes, 25-32 of them in a long window with few other writes pulled the write price's per-op
// term up to 8-34 ms (bench/qbox/README.md, "Peering events are not writes"). So they are not.
// Nor are the recovery items of a build whose recovery items do not carry a length
// (`recovery_cost_is_length`, the build's ceph_abi kRecoveryCostIsALength): there they start
// recovery at the cost osd_recovery_cost. Taken for 20 MiB writes, they were charged seconds each
// and fed the writes' lead, and under the write-heavy mix recovery did not finish within the load
// (bench/qbox/README.md, "Recovery items are not writes"). Priced by their run, like reads: in a
// replicated pool the objects they push are read in it.
inline OpTraits op_traits(std::uint8_t scheduler_class, std::uint64_t owner, std::int32_t cost,
                          bool peering, bool recovery_cost_is_length) {
  OpTraits traits;
  traits.op_class = scheduler_class <= static_cast<std::uint8_t>(OpClass::client)
                        ? static_cast<OpClass>(scheduler_class)
                        : OpClass::client;
  traits.owner = owner;
  const bool lengthless =
      traits.op_class == OpClass::background_recovery && !recovery_cost_is_length;
  const bool write = cost > 0 && !peering && !lengthless;
  traits.request_class = {write ? Operation::write : Operation::read, Access::random};
  traits.bytes = write ? static_cast<std::uint64_t>(cost) : 0;
  return traits;
}

template <class Op>
class ShardQueue {
 public:
  struct Dispatched {
    Op op;
    RunningOp running;  // for complete()
  };

  // `shares` must outlive the queue.
  explicit ShardQueue(OsdShares& shares)
      : shares_(shares), submitted_seen_(shares.writes_submitted()) {
    refresh();
  }
  ~ShardQueue() {
    if (hold_ && hold_->paced) shares_.set_writes_paced(false, hold_->since);
  }
  ShardQueue(const ShardQueue&) = delete;
  ShardQueue& operator=(const ShardQueue&) = delete;

  void enqueue(Op op, const OpTraits& traits, Seconds now) { put(std::move(op), traits, false, now); }
  // An op the OSD dequeued and puts back (it could not run yet): ahead of its account's other ops,
  // not charged again.
  void enqueue_front(Op op, const OpTraits& traits, Seconds now) {
    put(std::move(op), traits, true, now);
  }

  bool empty() const { return immediate_.empty() && qbox_.empty(); }

  // The next op, or nothing when empty() or when a write is held (held_until()). `may_hold`: the
  // caller waits until held_until() if told to; if not, no write is held for it.
  std::optional<Dispatched> dequeue(Seconds now, bool may_hold = true) {
    end_hold(now);
    if (shares_.write_fits() != write_fits_seen_) reprice_writes();
    if (!immediate_.empty()) {
      Queued next = std::move(immediate_.front());
      immediate_.pop_front();
      return Dispatched{std::move(next.op),
                        shares_.on_dispatch(kNoAccount, next.request_class, next.bytes, 0, now)};
    }
    if (may_hold && (hold_ = write_hold(now))) return std::nullopt;
    const ReadersAbout about = follow_writes(now);
    const std::optional<Hold> backlog = may_hold ? backlog_hold(about, now) : std::nullopt;
    auto next = backlog ? qbox_.dequeue_earliest_where(is_read, now) : qbox_.dequeue(now);
    if (!next) {
      hold_ = backlog;
      if (hold_) shares_.set_writes_paced(true, now);
      return std::nullopt;
    }
    // The OSD's shard threads bound how many ops run at once; QBox only orders them.
    qbox_.on_completion();
    Dispatched dispatched{std::move(next->request.op),
                          shares_.on_dispatch(next->client, next->request.request_class,
                                              next->request.bytes, next->request.cost, now)};
    if (next->request.request_class.operation == Operation::read) {
      Reader& reader = readers_[next->client];
      ++reader.in_flight;
      reader.cost = next->request.cost;
      dispatched.running.held_before = std::exchange(reader.held, 0);
    }
    return dispatched;
  }

  // The thread that ran a dispatched op came back: the op's account pays its price (osd_shares.h),
  // so the account's later deadlines move by the difference from the estimate it was tagged
  // with. Call from this shard's thread (under the shard lock, like every other call). Returns
  // the price.
  Seconds complete(const RunningOp& op, Seconds now) {
    if (op.request_class.operation == Operation::read) {
      const auto reader = readers_.find(op.account);
      if (reader != readers_.end() && reader->second.in_flight > 0) {
        --reader->second.in_flight;
        reader->second.last_done = now;
      }
    }
    const Seconds measured = shares_.on_completion(op, now);
    if (op.account != kNoAccount) qbox_.charge(op.account, measured - op.estimate);
    return measured;
  }

  // When the last dequeue() held a write: the time to ask again, unless an op is enqueued first.
  std::optional<Seconds> held_until() const {
    return hold_ ? std::optional<Seconds>(hold_->until) : std::nullopt;
  }
  // Whether dequeue(now) would hold: ops are queued, and none may go now.
  bool only_held(Seconds now) const {
    return immediate_.empty() &&
           (write_hold(now).has_value() ||
            (backlog_hold(readers_about(head_writer(), now), now) &&
             qbox_.earliest_where(is_read) == nullptr));
  }

  std::size_t size() const { return immediate_.size() + qbox_.size(); }
  std::size_t immediate_size() const { return immediate_.size(); }
  // The EDF queue's state (QBoxQueue::dump_json): the frontier and each account's deadlines.
  std::string queue_json() const { return qbox_.dump_json(); }
  // The writes' lead at `now` (above, "The writes' backlog"): its device time, the rate it drains
  // at (what the readers about left the writes when last looked at), the bound a write waits for,
  // and whether the last dequeue() held a write for it.
  std::string write_lead_json(Seconds now) const {
    return "{\"seconds\":" + json_number(write_lead_.at(now)) +
           ",\"drain_rate\":" + json_number(write_lead_.rate()) +
           ",\"limit\":" + json_number(shares_.write_backlog_limit()) +
           ",\"held\":" + (hold_ && hold_->paced ? "true" : "false") + "}";
  }

 private:
  struct Queued {
    Op op{};
    RequestClass request_class;
    std::uint64_t bytes = 0;
    Seconds cost = 0;
  };

  // What the holds need of an account that reads.
  struct Reader {
    std::size_t in_flight = 0;  // its reads dispatched and not completed
    Seconds last_done = -1e300;
    Seconds cost = 0;  // the estimate its last read was tagged with
    Seconds held = 0;  // writes held for it since its last read, with none of its reads running
  };

  // A write held by the last dequeue(): for which reader, since and until when.
  struct Hold {
    AccountId reader;
    Seconds since;
    Seconds until;
    bool paced = false;  // for the writes' lead (backlog_hold), not a reader's next read
  };

  // Counts the hold. A reader's hold: its time without a read of the reader running, which the
  // reader's next read tells the OSD's accounting about (RunningOp::held_before). A paced one:
  // the OSD's accounting left its time out of the writes' already (OsdShares::set_writes_paced).
  void end_hold(Seconds now) {
    if (!hold_) return;
    if (hold_->paced) {
      shares_.set_writes_paced(false, now);
    } else {
      Reader& reader = readers_[hold_->reader];
      if (reader.in_flight == 0) {
        reader.held += std::max<Seconds>(0, now - std::max(hold_->since, reader.last_done));
      }
    }
    shares_.on_held();
    hold_.reset();
  }

  // A write that costs no more than this many of a reader's reads delays the reader about as
  // another reader would: holding it would idle the device longer than it saves the reader.
  static constexpr double kHeldWriteReads = 2;

  // The hold that starts at `now`, or nothing: for a reader with nothing queued whose read is
  // running or completed less than `read_anticipation` ago, whose next read would go before the
  // write, and whose reads cost less than half the write; until the earliest such reader's time.
  std::optional<Hold> write_hold(Seconds now) const {
    const AccountId* first = qbox_.earliest();
    if (readers_.empty() || first == nullptr) return std::nullopt;
    const auto& write = *qbox_.head(*first);
    if (write.request_class.operation != Operation::write) return std::nullopt;
    const Seconds window = shares_.read_anticipation();
    std::optional<Hold> hold;
    for (const auto& [account, reader] : readers_) {
      const Seconds until = reader.in_flight > 0 ? now + window : reader.last_done + window;
      if (until <= now || qbox_.head(account) != nullptr) continue;
      if (write.cost <= kHeldWriteReads * reader.cost) continue;
      const auto deadline = qbox_.deadline_if_enqueued(account, reader.cost);
      if (deadline && *deadline < qbox_.earliest_deadline() && (!hold || until < hold->until)) {
        hold = Hold{account, now, until};
      }
    }
    return hold;
  }

  static bool is_read(const Queued& queued) {
    return queued.request_class.operation == Operation::read;
  }

  // The readers about at `now` (above, "The writes' backlog") other than `writer`, whose own reads
  // do not hold its writes: the one seen last, when, and their shares.
  struct ReadersAbout {
    std::optional<AccountId> latest;
    Seconds seen = 0;
    double shares = 0;
  };
  ReadersAbout readers_about(const AccountId* writer, Seconds now) const {
    ReadersAbout about{std::nullopt, now - shares_.reader_presence(), 0};
    for (const auto& [account, reader] : readers_) {
      const Seconds seen =
          reader.in_flight > 0 || qbox_.head(account) != nullptr ? now : reader.last_done;
      const bool own = writer != nullptr && account == *writer;
      if (own || seen < now - shares_.reader_presence()) continue;
      about.shares += utilization_of(account);
      if (seen >= about.seen) {
        about.seen = seen;
        about.latest = account;
      }
    }
    return about;
  }

  double utilization_of(AccountId account) const {
    for (const auto& [listed, utilization] : snapshot_->utilizations) {
      if (listed == account) return utilization;
    }
    return 0;
  }

  // The write at EDF's head, if a write is there.
  const AccountId* head_writer() const {
    const AccountId* first = qbox_.earliest();
    return first == nullptr || is_read(*qbox_.head(*first)) ? nullptr : first;
  }

  // Takes in the writes the OSD submitted since the last call, and drains the writes' lead from
  // now on at what the readers about leave the writes (all of the device if none is). The lead is
  // the writes of the writer last at the head, unless one is there now: its own reads do not slow
  // the lead's draining either. Returns those readers, for backlog_hold().
  ReadersAbout follow_writes(Seconds now) {
    const Seconds submitted = shares_.writes_submitted();
    if (submitted > submitted_seen_) write_lead_.add(submitted - submitted_seen_, now);
    submitted_seen_ = submitted;
    if (const AccountId* writer = head_writer()) last_writer_ = *writer;
    ReadersAbout about = readers_about(last_writer_ ? &*last_writer_ : nullptr, now);
    write_lead_.set_rate(std::max(0.0, 1 - about.shares), now);
    return about;
  }

  // The hold that starts at `now` if the write at the head must wait for the writes' lead to
  // drain (above, "The writes' backlog"), for the reader most recently `about`; or nothing.
  std::optional<Hold> backlog_hold(const ReadersAbout& about, Seconds now) const {
    if (head_writer() == nullptr || !about.latest) return std::nullopt;
    const Seconds unseen = shares_.writes_submitted() - submitted_seen_;
    const Seconds drained = write_lead_.falls_to(shares_.write_backlog_limit() - unseen);
    if (now >= drained) return std::nullopt;
    return Hold{*about.latest, now, std::min(drained, about.seen + shares_.reader_presence()),
                true};
  }

  void reprice_writes() {
    write_fits_seen_ = shares_.write_fits();
    const WritePrice price = shares_.write_price();
    const auto recost = [&price](Queued& queued) -> std::optional<Seconds> {
      // A requeued op (cost 0) was charged when first queued, and is not tagged again.
      if (queued.request_class.operation != Operation::write || queued.cost == 0) {
        return std::nullopt;
      }
      queued.cost = price.of(queued.bytes);
      return queued.cost;
    };
    for (const auto& [account, utilization] : snapshot_->utilizations) {
      qbox_.reprice(account, recost);
    }
  }

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
  std::unordered_map<AccountId, Reader> readers_;  // a handful: the accounts that read here
  std::optional<Hold> hold_;  // while a write is held (dequeue() returned nothing)
  DrainingBacklog write_lead_;  // the OSD's writes beyond what this shard's readers leave them
  Seconds submitted_seen_ = 0;  // OsdShares::writes_submitted() as write_lead_ has it
  std::optional<AccountId> last_writer_;  // the account whose write follow_writes saw at the head
  std::uint64_t write_fits_seen_ = 0;
};

}  // namespace erails::qbox
