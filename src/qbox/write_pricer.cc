#include "qbox/write_pricer.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace erails::qbox {

WritePricer::WritePricer(WritePricerConfig config, Seconds now)
    : config_(config), window_end_(now + config.window) {
  price_.per_op = config_.prior_per_op;
  price_.per_byte = config_.prior_per_byte;
}

void WritePricer::on_read(std::uint32_t account, Seconds price) {
  ReadWindows& r = reads_[account];
  r.prices.push_back(price);
  r.sum += price;
}

Seconds WritePricer::on_write(std::uint32_t account, std::uint64_t bytes) {
  ++write_ops_;
  write_bytes_ += bytes;
  shortest_write_ = std::min(shortest_write_, bytes);
  ++client_write_ops_;
  client_write_bytes_ += bytes;
  const Seconds charge = price_.of(bytes);
  Billed& billed = writers_[account].current;
  billed.ops += 1;
  billed.bytes += static_cast<double>(bytes);
  billed.longest = std::max(billed.longest, bytes);
  billed.charged += charge;
  return charge;
}

void WritePricer::on_replica_write(std::uint64_t bytes) {
  ++write_ops_;
  write_bytes_ += bytes;
  shortest_write_ = std::min(shortest_write_, bytes);
}

std::vector<std::pair<std::uint32_t, Seconds>> WritePricer::take_adjustments() {
  std::vector<std::pair<std::uint32_t, Seconds>> taken;
  for (auto& [account, bills] : writers_) {
    if (bills.adjustment != 0) taken.emplace_back(account, std::exchange(bills.adjustment, 0));
  }
  return taken;
}

std::optional<Seconds> WritePricer::clean_read(std::uint32_t account) const {
  const auto it = reads_.find(account);
  if (it == reads_.end() || it->second.window_prices.empty()) return std::nullopt;
  const auto& prices = it->second.window_prices;
  return *std::min_element(prices.begin(), prices.end());
}

void WritePricer::advance(Seconds now, Seconds busy_total) {
  if (busy_at_start_ < 0) busy_at_start_ = busy_total;
  if (now < window_end_) return;
  close_window(std::min(config_.window, busy_total - busy_at_start_));
  busy_at_start_ = busy_total;
  window_end_ += config_.window;
  // A quiet spell: its windows saw nothing, and one empty window says as much as many; only the
  // count of windows since the last write must see them all.
  if (now >= window_end_) {
    close_window(0);
    const double skipped = std::floor((now - window_end_) / config_.window);
    window_end_ += (skipped + 1) * config_.window;
    windows_since_write_ =
        std::min(windows_since_write_ + static_cast<std::size_t>(skipped), kNoWriteYet);
  }
}

void WritePricer::close_window(Seconds busy) {
  Seconds clean_reads = 0;
  for (auto& [account, r] : reads_) {
    const std::size_t ops = r.prices.size();
    if (ops >= config_.min_reads) {
      const auto at = r.prices.begin() + static_cast<std::ptrdiff_t>(config_.clean_quantile * ops);
      std::nth_element(r.prices.begin(), at, r.prices.end());
      if (r.window_prices.size() < config_.clean_history) {
        r.window_prices.push_back(*at);
      } else {
        r.window_prices[r.next] = *at;
        r.next = (r.next + 1) % config_.clean_history;
      }
    }
    const auto clean = clean_read(account);
    clean_reads += clean ? static_cast<double>(ops) * *clean : r.sum;
    r.prices.clear();
    r.sum = 0;
  }
  windows_since_write_ = write_ops_ > 0 ? 0 : std::min(windows_since_write_ + 1, kNoWriteYet);
  if (write_ops_ > 0 && busy >= config_.saturated * config_.window) {
    current_long_.ops += static_cast<double>(write_ops_);
    current_long_.bytes += static_cast<double>(write_bytes_);
    current_long_.client_ops += static_cast<double>(client_write_ops_);
    current_long_.client_bytes += static_cast<double>(client_write_bytes_);
    current_long_.shortest = std::min(current_long_.shortest, shortest_write_);
    current_long_.residual += std::max<Seconds>(0, busy - clean_reads - idle_held_);
  }
  write_ops_ = 0;
  write_bytes_ = 0;
  shortest_write_ = kNoWriteLength;
  client_write_ops_ = 0;
  client_write_bytes_ = 0;
  idle_held_ = 0;
  if (++shorts_in_long_ == config_.windows_per_long) close_long_window();
}

void WritePricer::close_long_window() {
  shorts_in_long_ = 0;
  for (auto& [account, bills] : writers_) {
    if (bills.recent.size() < config_.long_history) {
      bills.recent.push_back(bills.current);
    } else {
      bills.recent[bills.next] = bills.current;
      bills.next = (bills.next + 1) % config_.long_history;
    }
    bills.current = {};
  }
  WriteObservation done = current_long_;
  current_long_ = {};
  if (done.ops == 0) return;
  done.number = ++observed_;
  if (history_.size() < config_.long_history) {
    history_.push_back(done);
  } else {
    history_[history_next_] = done;
    history_next_ = (history_next_ + 1) % config_.long_history;
  }
  fit();
  reprice_recent_writes();
}

void WritePricer::reprice_recent_writes() {
  for (auto& [account, bills] : writers_) {
    for (Billed& billed : bills.recent) {
      const Seconds now_priced = price_.of_all(billed.ops, billed.bytes, billed.longest);
      bills.adjustment += now_priced - billed.charged;
      billed.charged = now_priced;
    }
  }
}

std::vector<WriteObservation> WritePricer::observations() const {
  const auto next = history_.begin() + static_cast<std::ptrdiff_t>(history_next_);
  std::vector<WriteObservation> oldest_first(next, history_.end());
  oldest_first.insert(oldest_first.end(), history_.begin(), next);
  return oldest_first;
}

// residual = per_op * ops + per_byte * bytes over every write the device did, least squares over
// the history; then the client writes are charged that times `copies`. The device price is per
// byte alone unless the per-op term earns its place: the windows' mean write sizes differ enough
// for the two terms to come apart, both come out >= 0, and the two-term fit leaves at most
// 1 / per_op_gain of the squared error that per byte alone leaves. Per byte is the default, not
// per op, because of what a wrong price does next: a small writer charged a big one's per-op
// price is starved and never produces the windows that would correct it, while one charged too
// little runs more and does. The error test is there because the residual holds more than the
// writes (BlueStore's bursts, holds whose time may or may not be the writes'), and with five
// windows least squares put some of that into the per-op term: on two OSDs, when the replica
// sub-ops were not yet counted, it swung between 0 and 114 ms per write while a 4 KiB write took
// about 1 ms of the device (doc/dev/qbox-in-osd.md).
void WritePricer::fit() {
  double nn = 0, nb = 0, bb = 0, nr = 0, br = 0;
  for (const WriteObservation& w : history_) {
    nn += w.ops * w.ops;
    nb += w.ops * w.bytes;
    bb += w.bytes * w.bytes;
    nr += w.ops * w.residual;
    br += w.bytes * w.residual;
  }
  const auto squared_error = [this](Seconds per_op, Seconds per_byte) {
    double sum = 0;
    for (const WriteObservation& w : history_) {
      const double miss = w.residual - per_op * w.ops - per_byte * w.bytes;
      sum += miss * miss;
    }
    return sum;
  };
  const Seconds per_byte_alone = bb > 0 ? std::max(0.0, br / bb) : config_.prior_per_byte;
  const double det = nn * bb - nb * nb;
  if (history_.size() >= 3 && det > config_.distinct_sizes * nn * bb) {
    const double per_op = (nr * bb - br * nb) / det;
    const double per_byte = (br * nn - nr * nb) / det;
    if (per_op >= 0 && per_byte >= 0 &&
        squared_error(per_op, per_byte) * config_.per_op_gain <= squared_error(0, per_byte_alone)) {
      charge_for_copies(per_op, per_byte);
      return;
    }
  }
  charge_for_copies(0, per_byte_alone);
}

// Over the history, not per window: a window in which the OSD was primary for few writes would
// otherwise put all its replica sub-ops on those few.
void WritePricer::charge_for_copies(Seconds per_op, Seconds per_byte) {
  Seconds all = 0, charged = 0;
  for (const WriteObservation& w : history_) {
    all += per_op * w.ops + per_byte * w.bytes;
    charged += per_op * w.client_ops + per_byte * w.client_bytes;
  }
  const double copies = charged > 0 ? all / charged : 1;
  std::uint64_t shortest = kNoWriteLength;
  for (const WriteObservation& w : history_) shortest = std::min(shortest, w.shortest);
  price_ = {per_op * copies, per_byte * copies, copies, "residual", history_.size(),
            per_op > 0 ? shortest : 0};
}

}  // namespace erails::qbox
