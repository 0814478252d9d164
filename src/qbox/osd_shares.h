#pragma once
// The state one OSD's QBox shards share (doc/dev/qbox-in-osd.md): the share table in force, the
// black-box cost estimate of the OSD's one device, and the per-window accounting `qbox status`
// reports. Each shard keeps its own queue (shard_queue.h) and tells this object what it queued,
// dispatched and saw complete.
//
// Accounts: every named client of the table has an account id, stable for the life of the object
// (a name that leaves the table and comes back keeps its id); three are fixed: background_recovery,
// background_best_effort, and unreserved, which every client op whose owner is in no entry joins.
//
// Reads are priced by what they measure (doc/dev/qbox-in-osd.md, "Costs"): a read's device time
// is its share of the OSD's running time, each instant split evenly among the ops then running
// (dispatched, their threads not back yet), so a 128 KiB read that keeps its thread four times as
// long as a 4 KiB one costs four times as much. While writes are about, a read costs its
// account's clean price instead, and a write what the write pricer infers from the rest of the
// device's time (write_pricer.h): a write's own run is only its submission. An op is tagged at
// enqueue with its account's mean price for its operation (the estimator's class cost until the
// account has one; a write's price for its length); when it completes, its account is charged
// its price and the shard's queue moves the account's deadlines by the difference.
//
// Achieved share = the measured device time of an account's ops that completed in the last
// complete window / the window's length; backlogged = the fraction of that window in which the
// account had ops queued in any shard.
//
// Busy time for the estimator runs from an op's enqueue to its completion (while any op is queued
// in any shard or running), not from its dispatch: doc/dev/qbox-in-osd.md, "Costs", says why and
// what it does not fix. Both fractions are reported per window (`busy`).
//
// Thread-safe: shards call from their own threads; one mutex guards everything but generation().

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "qbox/cost_estimator.h"
#include "qbox/draining_backlog.h"
#include "qbox/request_class.h"
#include "qbox/seconds.h"
#include "qbox/share_table.h"
#include "qbox/write_pricer.h"

namespace erails::qbox {

// The OSD's op scheduler classes, in Ceph's numbering (doc/dev/ceph-abi.md) so the adapter passes
// the byte through; anything else is treated as client.
enum class OpClass : std::uint8_t {
  background_recovery = 0,
  background_best_effort = 1,
  immediate = 2,
  client = 3,
};

using AccountId = std::uint32_t;
inline constexpr AccountId kRecoveryAccount = 0;
inline constexpr AccountId kBestEffortAccount = 1;
inline constexpr AccountId kUnreservedAccount = 2;
// Immediate ops bypass QBox; they still occupy the device, so the estimator sees them.
inline constexpr AccountId kNoAccount = UINT32_MAX;

// An op a shard handed to the OSD, as the shard reports it back when the op's thread returns.
struct RunningOp {
  AccountId account = kNoAccount;
  RequestClass request_class;
  Seconds estimate = 0;  // the device time the op was tagged with at enqueue
  Seconds started = 0;   // the OSD's run clock at dispatch
  std::uint64_t bytes = 0;  // a write's length; 0 for reads
  // A read: how long writes were held for its account just before it, with none of its reads
  // running (shard_queue.h, "Held writes").
  Seconds held_before = 0;
};

// The table as the shards schedule by it; replaced as a whole, never changed in place.
struct ShareSnapshot {
  std::uint64_t generation = 0;
  std::vector<std::pair<AccountId, double>> utilizations;  // every account of the table
  std::unordered_map<std::uint64_t, AccountId> owner_account;

  AccountId account_of(OpClass op_class, std::uint64_t owner) const;
};

struct OsdSharesConfig {
  Seconds window = 2.0;           // accounting window of `qbox status`
  Seconds default_cost = 0.001;   // per op, until the estimator has a class's cost
  // unreserved's queue share when the table reserves everything: unreserved ops then run only
  // when no reserved client has any queued (QBox is work-conserving), but never never.
  double unreserved_floor = 0.01;
  // How far one measured op moves its account's mean price: ops of one client vary (sizes, cache
  // hits), and the charge at completion corrects each op anyway, so the mean only needs to follow
  // a change of the client's mix within some tens of ops.
  double price_gain = 0.05;
  // How long a reader whose queue just emptied keeps writes from going ahead of it (shard_queue.h,
  // "Held writes"): longer than a closed-loop client takes to send its next read through the
  // messenger (0.01 s was not, in ceph-osd: bench/qbox/README.md, "Held writes"), and short
  // enough that a reader that has left costs a lone writer little.
  Seconds read_anticipation = 0.05;
  // How much device time of writes may be submitted beyond what the readers about leave the writes
  // (shard_queue.h, "The writes' backlog"): about two 1 MiB writes of the emulated SSD x10, so a
  // read that arrives waits that long at most behind them, where a writer's whole queue once went
  // to BlueStore in one burst (bench/qbox/README.md, "The writes' backlog").
  Seconds write_backlog = 0.25;
  // How long after its last read completed a reader still counts as about for that bound: longer
  // than a closed-loop reader whose ops wait at another OSD stays away (0.5-1 s in the queue
  // traces of two OSDs), short enough that a writer left alone soon has the device to itself.
  Seconds reader_presence = 1.0;
  CostEstimatorConfig estimator;
  WritePricerConfig writes;
};

// What the adapter knows about the daemon, printed at the top of `qbox status`.
struct StatusHeader {
  std::string state;   // "active" or "stock"
  std::string reason;  // why stock; empty when active
  std::string ceph_version;
  std::string build_id;
  unsigned shards = 0;
};

class OsdShares {
 public:
  OsdShares(OsdSharesConfig config, Seconds now);

  // Puts `table` (validated by parse_share_table) in force for every shard's next call.
  void set_table(const ShareTable& table, Seconds now);
  std::uint64_t table_epoch() const;
  // Changes each time a table is set; shards compare it before taking the mutex for snapshot().
  std::uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  std::shared_ptr<const ShareSnapshot> snapshot() const;
  Seconds default_cost() const { return config_.default_cost; }
  Seconds read_anticipation() const { return config_.read_anticipation; }
  Seconds write_backlog_limit() const { return config_.write_backlog; }
  Seconds reader_presence() const { return config_.reader_presence; }
  // The device time of the writes submitted since the start, client writes and replica sub-ops
  // alike, as the write price has it (before `copies`: this device's own time). `qbox status`'s
  // backlog_seconds is what of it the device, doing them back to back, has not done yet. Read
  // without the mutex, like generation(): every shard reads it at each dequeue.
  Seconds writes_submitted() const { return writes_submitted_.load(std::memory_order_acquire); }

  // An op entered a shard's queue for `account` (kNoAccount: immediate). Returns the device time
  // it is estimated to cost, which the shard tags it with. `requeued`: an op put back after it
  // was dequeued; it costs nothing more (it is charged its price when it runs again). `bytes`: a
  // write's length.
  Seconds on_enqueue(AccountId account, RequestClass request_class, std::uint64_t bytes,
                     bool requeued, Seconds now);
  // A shard handed the op to the OSD: it leaves the queue. The result goes back to on_completion.
  RunningOp on_dispatch(AccountId account, RequestClass request_class, std::uint64_t bytes,
                        Seconds estimate, Seconds now);
  // The thread that ran `op` came back for more: the op has completed. Charges its account the
  // op's device time and returns it: a read's measured time (its clean price while writes are
  // about, write_pricer.h), a write's price.
  Seconds on_completion(const RunningOp& op, Seconds now);
  // A shard held writes for a reader's next read (shard_queue.h): counted for `qbox status`,
  // charged to nobody. The time it kept the device idle, if any, is told by that next read
  // (RunningOp::held_before).
  void on_held();
  // A shard starts or stops holding its writes for the writes' lead (shard_queue.h, "The writes'
  // backlog"). While one does and no op of the OSD runs, the device idles by the shards' choice:
  // the write pricer leaves that time out of the writes' residual, as it does a hold the read
  // after it found idle. Left in, the fit put it on the fewer writes let through, their price
  // rose, fewer went through, and on two OSDs a MiB's price went from 0.2 s to 4.0 s in 18 s
  // (bench/qbox/README.md, "What the readers leave the writes"). Left out only once the writes
  // submitted were done by their price, it confirmed whatever price they had, and rose as well.
  // BlueStore may still be writing what it was given before, so some of the writes' time is left
  // out: the price settles lower, where the writes let through slow the reads enough to show it
  // (on the fake OSD of osd_write_cost_test.cc, 0.042 s per MiB for the device's 0.048).
  void set_writes_paced(bool paced, Seconds now);

  // `qbox status` as specified in doc/dev/qbox-in-osd.md.
  std::string status_json(const StatusHeader& header, Seconds now);
  // The price writes are charged now (`qbox status`'s write_price, without its observations).
  WritePrice write_price() const;
  // Changes with each write fit, after which a shard tags its queued writes again at
  // write_price(). Read without the mutex, like generation().
  std::uint64_t write_fits() const { return write_fits_.load(std::memory_order_acquire); }

 private:
  struct Account {
    std::string name;
    std::vector<std::uint64_t> owners;
    const char* op_class = "client";
    double target = 0;
    bool listed = false;  // in the table in force (fixed accounts always are)
    std::int64_t queued = 0;
    std::uint64_t ops = 0;
    Seconds charged = 0;           // in the current window
    Seconds backlogged = 0;        // in the current window
    Seconds backlog_since = 0;     // when `queued` last became > 0, if it is
    double last_achieved = 0;      // of the last complete window
    double last_backlogged = 0;
    std::optional<Seconds> price[2];  // mean measured device time per op: read, write
  };

  Seconds price_of(AccountId account, RequestClass request_class, std::uint64_t bytes) const;
  // A read's price while writes are about (write_pricer.h); nothing otherwise.
  std::optional<Seconds> clean_read_price(AccountId account) const;

  AccountId account_for(const std::string& name);
  void accumulate_busy(Seconds now);
  void advance(Seconds now);
  void close_window(Seconds end);
  Seconds clock(Seconds now);

  OsdSharesConfig config_;
  mutable std::mutex mutex_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::uint64_t> write_fits_{0};
  std::uint64_t epoch_ = 0;
  std::shared_ptr<const ShareSnapshot> snapshot_;
  std::vector<Account> accounts_;
  std::vector<AccountId> order_;  // status order: table clients, then the fixed accounts
  std::unordered_map<std::string, AccountId> by_name_;
  CostEstimator estimator_;
  WritePricer writes_;
  std::size_t in_flight_ = 0;    // dispatched, not completed
  std::size_t queued_ = 0;       // in any shard's queue
  Seconds busy_running_ = 0;     // in the current window: in_flight_ > 0
  Seconds busy_outstanding_ = 0;  // queued_ + in_flight_ > 0
  Seconds busy_outstanding_total_ = 0;  // since the start, for the write pricer
  std::size_t paced_shards_ = 0;
  Seconds paced_idle_ = 0;  // since the start: paced with nothing running
  std::uint64_t holds_ = 0;      // since the start: writes held for readers
  Seconds held_total_ = 0;       // with none of the reader's reads running
  Seconds held_idle_ = 0;        // of that, judged idle by the read after it
  std::atomic<Seconds> writes_submitted_{0};  // written under the mutex
  DrainingBacklog write_backlog_;
  Seconds run_clock_ = 0;  // advances by dt / in_flight_ while ops run: each one's share of dt
  Seconds busy_since_;
  double last_busy_running_ = 0;  // of the last complete window, as fractions of it
  double last_busy_outstanding_ = 0;
  Seconds window_start_;
  bool window_complete_ = false;
  Seconds last_now_;
};

}  // namespace erails::qbox
