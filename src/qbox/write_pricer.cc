#include "qbox/write_pricer.h"

#include <algorithm>
#include <cmath>

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

void WritePricer::on_write(std::uint64_t bytes) {
  ++write_ops_;
  write_bytes_ += bytes;
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
    current_long_.residual += std::max<Seconds>(0, busy - clean_reads - idle_held_);
  }
  write_ops_ = 0;
  write_bytes_ = 0;
  idle_held_ = 0;
  if (++shorts_in_long_ == config_.windows_per_long) close_long_window();
}

void WritePricer::close_long_window() {
  shorts_in_long_ = 0;
  const LongWindow done = current_long_;
  current_long_ = {};
  if (done.ops == 0) return;
  if (history_.size() < config_.long_history) {
    history_.push_back(done);
  } else {
    history_[history_next_] = done;
    history_next_ = (history_next_ + 1) % config_.long_history;
  }
  fit();
}

// residual = per_op * ops + per_byte * bytes, least squares over the history. The two terms come
// apart only when the windows' mean write sizes differ enough; otherwise (one writer, writers of
// one size, or one writer much rarer than the other) and whenever the two-term solution has a
// negative term, the price is per byte alone. Per byte, not per op, because of what a wrong price
// does next: a small writer charged a big one's per-op price is starved and never produces the
// windows that would correct it, while one charged too little runs more and does.
void WritePricer::fit() {
  double nn = 0, nb = 0, bb = 0, nr = 0, br = 0;
  for (const LongWindow& w : history_) {
    nn += w.ops * w.ops;
    nb += w.ops * w.bytes;
    bb += w.bytes * w.bytes;
    nr += w.ops * w.residual;
    br += w.bytes * w.residual;
  }
  const double det = nn * bb - nb * nb;
  if (det > config_.distinct_sizes * nn * bb) {
    const double per_op = (nr * bb - br * nb) / det;
    const double per_byte = (br * nn - nr * nb) / det;
    if (per_op >= 0 && per_byte >= 0) {
      price_ = {per_op, per_byte, "residual", history_.size()};
      return;
    }
  }
  price_ = {0, bb > 0 ? std::max(0.0, br / bb) : config_.prior_per_byte, "residual", history_.size()};
}

}  // namespace erails::qbox
