#include "qbox/osd_shares.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/json_text.h"

namespace erails::qbox {
namespace {

constexpr RequestClass kClasses[] = {
    {Operation::read, Access::sequential},
    {Operation::read, Access::random},
    {Operation::write, Access::sequential},
    {Operation::write, Access::random},
};
constexpr const char* kClassKeys[] = {"seq_read", "rand_read", "seq_write", "rand_write"};

// A read that ran within this many times its clean price found no writes ahead of it at the
// device, so the hold just before it left the device idle (on_completion).
constexpr double kIdleReadExcess = 1.5;

// Twelve significant digits: shares and costs are estimates, and 0.1 should read 0.1, not
// 0.10000000000000001, to an operator.
std::string real(double value) {
  if (!std::isfinite(value)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.12g", value);
  return text;
}

}  // namespace

AccountId ShareSnapshot::account_of(OpClass op_class, std::uint64_t owner) const {
  switch (op_class) {
    case OpClass::immediate: return kNoAccount;
    case OpClass::background_recovery: return kRecoveryAccount;
    case OpClass::background_best_effort: return kBestEffortAccount;
    case OpClass::client: break;
  }
  const auto it = owner_account.find(owner);
  return it == owner_account.end() ? kUnreservedAccount : it->second;
}

OsdShares::OsdShares(OsdSharesConfig config, Seconds now)
    : config_(config),
      estimator_(config.estimator, now),
      writes_(config.writes, now),
      busy_since_(now),
      window_start_(now),
      last_now_(now) {
  accounts_.resize(3);
  accounts_[kRecoveryAccount].name = "background_recovery";
  accounts_[kRecoveryAccount].op_class = "background_recovery";
  accounts_[kBestEffortAccount].name = "background_best_effort";
  accounts_[kBestEffortAccount].op_class = "background_best_effort";
  accounts_[kUnreservedAccount].name = "unreserved";
  for (AccountId id = 0; id < 3; ++id) by_name_.emplace(accounts_[id].name, id);
  const ShareTable defaults = default_share_table();
  set_table(defaults, now);
}

AccountId OsdShares::account_for(const std::string& name) {
  const auto it = by_name_.find(name);
  if (it != by_name_.end()) return it->second;
  const auto id = static_cast<AccountId>(accounts_.size());
  accounts_.emplace_back();
  accounts_.back().name = name;
  by_name_.emplace(name, id);
  return id;
}

Seconds OsdShares::clock(Seconds now) {
  // Shards read the clock before taking the mutex, so their calls may arrive slightly out of
  // order; the estimator needs time that never goes back.
  last_now_ = std::max(last_now_, now);
  return last_now_;
}

void OsdShares::set_table(const ShareTable& table, Seconds now) {
  std::lock_guard<std::mutex> lock(mutex_);
  now = clock(now);
  advance(now);
  auto snapshot = std::make_shared<ShareSnapshot>();
  for (auto& account : accounts_) account.listed = false;
  order_.clear();
  for (const auto& client : table.clients) {
    const AccountId id = account_for(client.name);
    Account& account = accounts_[id];
    // A name that names a background class or unreserved would merge with it; the table's
    // clients are always client-class accounts of their own.
    account.op_class = "client";
    account.owners = client.owners;
    account.target = client.utilization;
    account.listed = true;
    order_.push_back(id);
    snapshot->utilizations.emplace_back(id, client.utilization);
    for (const auto owner : client.owners) snapshot->owner_account[owner] = id;
  }
  accounts_[kRecoveryAccount].target = table.background_recovery;
  accounts_[kBestEffortAccount].target = table.background_best_effort;
  accounts_[kUnreservedAccount].target = table.unreserved();
  for (AccountId id : {kRecoveryAccount, kBestEffortAccount, kUnreservedAccount}) {
    accounts_[id].listed = true;
    order_.push_back(id);
  }
  snapshot->utilizations.emplace_back(kRecoveryAccount, table.background_recovery);
  snapshot->utilizations.emplace_back(kBestEffortAccount, table.background_best_effort);
  snapshot->utilizations.emplace_back(kUnreservedAccount,
                                      std::max(table.unreserved(), config_.unreserved_floor));
  epoch_ = table.epoch;
  snapshot->generation = generation_.load(std::memory_order_relaxed) + 1;
  snapshot_ = std::move(snapshot);
  generation_.store(snapshot_->generation, std::memory_order_release);
}

std::uint64_t OsdShares::table_epoch() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return epoch_;
}

std::shared_ptr<const ShareSnapshot> OsdShares::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return snapshot_;
}

Seconds OsdShares::on_enqueue(AccountId account, RequestClass request_class,
                              std::uint64_t bytes, bool requeued, Seconds now) {
  std::lock_guard<std::mutex> lock(mutex_);
  now = clock(now);
  advance(now);
  if (account != kNoAccount && account < accounts_.size()) {
    Account& a = accounts_[account];
    if (a.queued++ == 0) a.backlog_since = now;
  }
  // The estimator's busy time starts here, not at dispatch: see the class comment. A requeued op
  // counts again: the thread that took it reports a completion for it when it comes back.
  accumulate_busy(now);
  ++queued_;
  estimator_.on_dispatch(now);
  if (requeued) return 0;
  return price_of(account, request_class, bytes);
}

Seconds OsdShares::price_of(AccountId account, RequestClass request_class,
                            std::uint64_t bytes) const {
  if (request_class.operation == Operation::write) return writes_.price().of(bytes);
  if (const auto clean = clean_read_price(account)) return *clean;
  if (account < accounts_.size()) {
    if (const auto& price = accounts_[account].price[0]) return *price;
  }
  return estimator_.cost(request_class).value_or(config_.default_cost);
}

std::optional<Seconds> OsdShares::clean_read_price(AccountId account) const {
  if (!writes_.writes_active()) return std::nullopt;
  return writes_.clean_read(account);
}

RunningOp OsdShares::on_dispatch(AccountId account, RequestClass request_class,
                                 std::uint64_t bytes, Seconds estimate, Seconds now) {
  std::lock_guard<std::mutex> lock(mutex_);
  now = clock(now);
  advance(now);
  accumulate_busy(now);
  ++in_flight_;
  if (queued_ > 0) --queued_;
  const RunningOp running{account, request_class, estimate, run_clock_, bytes};
  if (account == kNoAccount || account >= accounts_.size()) return running;
  Account& a = accounts_[account];
  ++a.ops;
  if (a.queued > 0 && --a.queued == 0) a.backlogged += now - a.backlog_since;
  return running;
}

Seconds OsdShares::on_completion(const RunningOp& op, Seconds now) {
  std::lock_guard<std::mutex> lock(mutex_);
  now = clock(now);
  advance(now);
  if (in_flight_ == 0) return 0;
  accumulate_busy(now);
  --in_flight_;
  estimator_.on_completion(op.request_class, now);
  const Seconds measured = std::max(0.0, run_clock_ - op.started);
  const bool write = op.request_class.operation == Operation::write;
  if (write) {
    const WritePrice& price = writes_.price();
    const Seconds device_time = price.of(op.bytes) / price.copies;
    writes_submitted_.store(writes_submitted_.load(std::memory_order_relaxed) + device_time,
                            std::memory_order_release);
    write_backlog_.add(device_time, now);
  }
  if (op.account == kNoAccount || op.account >= accounts_.size()) {
    if (write) writes_.on_replica_write(op.bytes);
    return measured;
  }
  Seconds charged;
  if (write) {
    charged = writes_.on_write(op.bytes);
  } else {
    writes_.on_read(op.account, measured);
    const std::optional<Seconds> clean = clean_read_price(op.account);
    charged = clean.value_or(measured);
    // Whether the device was idle during a hold shows in the read it was for: a hold while the
    // device still did the writes submitted before it was the writes' time, and the read that
    // follows waits for the rest of them.
    if (op.held_before > 0) {
      held_total_ += op.held_before;
      if (clean && measured <= kIdleReadExcess * *clean) {
        held_idle_ += op.held_before;
        writes_.on_idle_hold(op.held_before);
      }
    }
  }
  Account& a = accounts_[op.account];
  a.charged += charged;
  auto& price = a.price[write];
  price = price ? *price + config_.price_gain * (charged - *price) : charged;
  return charged;
}

WritePrice OsdShares::write_price() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return writes_.price();
}

void OsdShares::on_held() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++holds_;
}

void OsdShares::set_writes_paced(bool paced, Seconds now) {
  std::lock_guard<std::mutex> lock(mutex_);
  now = clock(now);
  advance(now);
  accumulate_busy(now);
  if (paced) {
    ++paced_shards_;
  } else if (paced_shards_ > 0) {
    --paced_shards_;
  }
}

void OsdShares::accumulate_busy(Seconds now) {
  if (now <= busy_since_) return;
  if (in_flight_ > 0) {
    busy_running_ += now - busy_since_;
    run_clock_ += (now - busy_since_) / static_cast<double>(in_flight_);
  }
  if (queued_ + in_flight_ > 0) {
    busy_outstanding_ += now - busy_since_;
    busy_outstanding_total_ += now - busy_since_;
    if (in_flight_ == 0 && paced_shards_ > 0) {
      paced_idle_ += now - busy_since_;
      writes_.on_idle_hold(now - busy_since_);
    }
  }
  busy_since_ = now;
  writes_.advance(now, busy_outstanding_total_);
  // Stored only when it changes: every shard thread reads it at each dequeue, and a store on
  // every op would take the cache line from them all.
  if (writes_.fits() != write_fits_.load(std::memory_order_relaxed)) {
    write_fits_.store(writes_.fits(), std::memory_order_release);
  }
}

void OsdShares::advance(Seconds now) {
  while (now >= window_start_ + config_.window) {
    const Seconds end = window_start_ + config_.window;
    close_window(end);
    window_start_ = end;
    // After a long quiet spell, skip the empty windows in one step: each would look the same.
    if (now >= window_start_ + 2 * config_.window) {
      close_window(window_start_ + config_.window);
      window_start_ += std::floor((now - window_start_) / config_.window) * config_.window;
    }
  }
}

void OsdShares::close_window(Seconds end) {
  accumulate_busy(end);
  last_busy_running_ = std::min(1.0, busy_running_ / config_.window);
  last_busy_outstanding_ = std::min(1.0, busy_outstanding_ / config_.window);
  busy_running_ = 0;
  busy_outstanding_ = 0;
  for (auto& a : accounts_) {
    if (a.queued > 0) {
      a.backlogged += end - std::max(a.backlog_since, end - config_.window);
      a.backlog_since = end;
    }
    a.last_achieved = a.charged / config_.window;
    a.last_backlogged = std::min(1.0, a.backlogged / config_.window);
    a.charged = 0;
    a.backlogged = 0;
  }
  window_complete_ = true;
}

std::string OsdShares::status_json(const StatusHeader& header, Seconds now) {
  std::lock_guard<std::mutex> lock(mutex_);
  now = clock(now);
  advance(now);
  estimator_.advance(now);
  std::string out = "{\"state\":" + json_string(header.state) +
                    ",\"reason\":" + json_string(header.reason) +
                    ",\"ceph_version\":" + json_string(header.ceph_version) +
                    ",\"build_id\":" + json_string(header.build_id) +
                    ",\"table_epoch\":" + std::to_string(epoch_) +
                    ",\"window_seconds\":" + real(config_.window) +
                    ",\"shards\":" + std::to_string(header.shards) + ",\"busy\":";
  out += window_complete_ ? "{\"running\":" + real(last_busy_running_) +
                                ",\"outstanding\":" + real(last_busy_outstanding_) + "}"
                          : std::string("null");
  out += ",\"costs\":{";
  for (std::size_t i = 0; i < 4; ++i) {
    const auto cost = estimator_.cost(kClasses[i]);
    out += std::string(i ? "," : "") + "\"" + kClassKeys[i] +
           "\":" + (cost ? real(*cost) : std::string("null"));
  }
  const WritePrice& write = writes_.price();
  out += "},\"write_price\":{\"method\":" + json_string(write.method) +
         ",\"long_windows\":" + std::to_string(write.long_windows) +
         ",\"per_mib_windows\":" + std::to_string(write.per_byte_windows) +
         ",\"per_op\":" + real(write.per_op) + ",\"per_mib\":" + real(write.per_byte * 1048576.0) +
         ",\"copies\":" + real(write.copies) +
         ",\"shortest_write\":" + std::to_string(write.shortest) +
         ",\"reads_clean\":" + (writes_.writes_active() ? "true" : "false") + ",\"observations\":[";
  const std::vector<WriteObservation> observations = writes_.observations();
  for (std::size_t i = 0; i < observations.size(); ++i) {
    const WriteObservation& o = observations[i];
    out += std::string(i ? "," : "") + "{\"number\":" + std::to_string(o.number) + ",\"ops\":" + real(o.ops) +
           ",\"mib\":" + real(o.bytes / 1048576.0) + ",\"client_ops\":" + real(o.client_ops) +
           ",\"client_mib\":" + real(o.client_bytes / 1048576.0) + ",\"residual\":" + real(o.residual) + "}";
  }
  out += "]";
  out += "},\"write_holds\":{\"count\":" + std::to_string(holds_) +
         ",\"seconds\":" + real(held_total_) + ",\"idle_seconds\":" + real(held_idle_) +
         ",\"paced_idle_seconds\":" + real(paced_idle_) +
         ",\"backlog_seconds\":" + real(write_backlog_.at(now));
  out += "},\"clients\":[";
  bool first = true;
  for (const AccountId id : order_) {
    const Account& a = accounts_[id];
    out += std::string(first ? "" : ",") + "{\"name\":" + json_string(a.name) + ",\"owners\":[";
    for (std::size_t i = 0; i < a.owners.size(); ++i) {
      out += (i ? "," : "") + std::to_string(a.owners[i]);
    }
    out += "],\"class\":" + json_string(a.op_class) + ",\"target\":" + real(a.target) +
           ",\"achieved\":" + (window_complete_ ? real(a.last_achieved) : "null") +
           ",\"backlogged\":" + (window_complete_ ? real(a.last_backlogged) : "null") +
           ",\"ops\":" + std::to_string(a.ops) + ",\"queued\":" + std::to_string(a.queued);
    // The mgr converts a throughput SLA at these (doc/dev/qbox-mgr.md): only what the client's own
    // ops measured here, so an operation without completed ops is left out rather than estimated.
    if (a.price[0] || a.price[1]) {
      out += ",\"price\":{";
      if (a.price[0]) out += "\"read\":" + real(*a.price[0]);
      if (const auto clean = writes_.clean_read(id)) out += ",\"read_clean\":" + real(*clean);
      if (a.price[1]) out += std::string(a.price[0] ? "," : "") + "\"write\":" + real(*a.price[1]);
      out += "}";
    }
    out += "}";
    first = false;
  }
  return out + "]}";
}

}  // namespace erails::qbox
