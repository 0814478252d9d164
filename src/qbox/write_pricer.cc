#include "qbox/write_pricer.h"

#include <algorithm>
#include <cmath>
#include <optional>

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

Seconds WritePricer::on_write(std::uint64_t bytes) {
  ++write_ops_;
  write_bytes_ += bytes;
  shortest_write_ = std::min(shortest_write_, bytes);
  ++client_write_ops_;
  client_write_bytes_ += bytes;
  return price_.of(bytes);
}

void WritePricer::on_replica_write(std::uint64_t bytes) {
  ++write_ops_;
  write_bytes_ += bytes;
  shortest_write_ = std::min(shortest_write_, bytes);
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
  WriteObservation done = current_long_;
  current_long_ = {};
  if (done.ops == 0) return;
  done.number = ++observed_;
  if (history_.size() < config_.per_op_history) {
    history_.push_back(done);
  } else {
    history_[history_next_] = done;
    history_next_ = (history_next_ + 1) % config_.per_op_history;
  }
  fit();
}

std::vector<WriteObservation> WritePricer::observations() const {
  const auto next = history_.begin() + static_cast<std::ptrdiff_t>(history_next_);
  std::vector<WriteObservation> oldest_first(next, history_.end());
  oldest_first.insert(oldest_first.end(), history_.begin(), next);
  return oldest_first;
}

std::vector<WriteObservation> WritePricer::recent_observations() const {
  std::vector<WriteObservation> all = observations();
  const std::size_t keep = std::min(all.size(), config_.long_history);
  return {all.end() - static_cast<std::ptrdiff_t>(keep), all.end()};
}

namespace {

// The F distribution's upper 5% point with 1 and d degrees of freedom, d = 1..18 (d - 1 is the
// index); beyond, the last, which is higher than the true value and so keeps fewer per-op terms.
constexpr double kFivePercentF[] = {161.45, 18.51, 10.13, 7.71, 6.61, 5.99, 5.59, 5.32, 5.12,
                                    4.96,   4.84,  4.75,  4.67, 4.60, 4.54, 4.49, 4.45, 4.41};

double five_percent_f(std::size_t degrees) {
  constexpr std::size_t kListed = sizeof(kFivePercentF) / sizeof(kFivePercentF[0]);
  return kFivePercentF[std::min(degrees, kListed) - 1];
}

double squared_error(const std::vector<WriteObservation>& windows, Seconds per_op,
                     Seconds per_byte) {
  double sum = 0;
  for (const WriteObservation& w : windows) {
    const double miss = w.residual - per_op * w.ops - per_byte * w.bytes;
    sum += miss * miss;
  }
  return sum;
}

// residual - per_op * ops = per_byte * bytes, least squares; nullopt without bytes.
std::optional<Seconds> per_byte_given(const std::vector<WriteObservation>& windows,
                                      Seconds per_op) {
  double bb = 0, br = 0;
  for (const WriteObservation& w : windows) {
    bb += w.bytes * w.bytes;
    br += w.bytes * (w.residual - per_op * w.ops);
  }
  if (bb <= 0) return std::nullopt;
  return br / bb;
}

}  // namespace

// residual = per_op * ops + per_byte * bytes over every write the device did; then the client
// writes are charged that times `copies`. The per-op term is fitted over the whole history and
// kept only where it earns its place: the windows' mean write sizes differ enough for the two
// terms to come apart, both come out >= 0, and an F test at the 5% level says the term explains
// the residual better than per byte alone. The price per byte then follows the recent windows,
// given that term; if they leave it nothing (a per byte <= 0), the term goes. Per byte is the
// default, not per op, because of what a wrong price does next: a small writer charged a big
// one's per-op price is starved and never produces the windows that would correct it, while one
// charged too little runs more and does. The test is there because the residual holds more than
// the writes (BlueStore's bursts, holds whose time may or may not be the writes'), and with five
// windows and no test least squares put some of that into the per-op term: on two OSDs it swung
// between 0 and 114 ms per write while a 4 KiB write took about 1 ms of the device
// (doc/dev/qbox-in-osd.md). But five windows were too few the other way too: a steady mix of
// 4 KiB and 1 MiB writes was priced per byte alone, the small writes' cost per write went into
// the price per byte, and the 1 MiB writer paid up to twice its device time
// (bench/qbox/README.md, "A per-op term over a minute").
void WritePricer::fit() {
  const std::vector<WriteObservation> recent = recent_observations();
  const Seconds per_byte_alone =
      std::max(0.0, per_byte_given(recent, 0).value_or(config_.prior_per_byte));
  double nn = 0, nb = 0, bb = 0, nr = 0, br = 0;
  std::uint64_t shortest = kNoWriteLength;
  for (const WriteObservation& w : history_) {
    nn += w.ops * w.ops;
    nb += w.ops * w.bytes;
    bb += w.bytes * w.bytes;
    nr += w.ops * w.residual;
    br += w.bytes * w.residual;
    shortest = std::min(shortest, w.shortest);
  }
  const double det = nn * bb - nb * nb;
  const std::size_t n = history_.size();
  if (n >= 3 && det > config_.distinct_sizes * nn * bb) {
    const double per_op = (nr * bb - br * nb) / det;
    const double per_byte = (br * nn - nr * nb) / det;
    const double two_terms = squared_error(history_, per_op, per_byte);
    const double one_term = squared_error(history_, 0, bb > 0 ? br / bb : 0);
    const bool earns_its_place = (one_term - two_terms) * static_cast<double>(n - 2) >=
                                 five_percent_f(n - 2) * two_terms;
    if (per_op >= 0 && per_byte >= 0 && earns_its_place) {
      const Seconds recent_per_byte = per_byte_given(recent, per_op).value_or(per_byte);
      if (recent_per_byte > 0) {
        charge_for_copies(recent, per_op, recent_per_byte, per_op > 0 ? shortest : 0);
        return;
      }
    }
  }
  charge_for_copies(recent, 0, per_byte_alone, 0);
}

// Over the recent windows, not per window: a window in which the OSD was primary for few writes
// would otherwise put all its replica sub-ops on those few.
void WritePricer::charge_for_copies(const std::vector<WriteObservation>& recent, Seconds per_op,
                                    Seconds per_byte, std::uint64_t shortest) {
  Seconds all = 0, charged = 0;
  for (const WriteObservation& w : recent) {
    all += per_op * w.ops + per_byte * w.bytes;
    charged += per_op * w.client_ops + per_byte * w.client_bytes;
  }
  const double copies = charged > 0 ? all / charged : 1;
  price_ = {per_op * copies, per_byte * copies, copies, "residual",
            history_.size(), recent.size(), shortest};
}

}  // namespace erails::qbox
