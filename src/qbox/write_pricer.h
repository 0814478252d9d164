#pragma once
// What a write costs the OSD's device, seen from its op scheduler (doc/dev/qbox-in-osd.md,
// "Writes priced by the device time they cause"). A write's thread comes back at submission;
// BlueStore does the device work later, where no op of QBox's runs, and meanwhile the reads that
// wait behind it at the device run longer. So the time the writes take shows up as reads that
// take longer, and pricing ops by their run charges the writers' device time to the readers.
//
// The thesis' way out (§3.5.1): know what reads cost when no writes disturb them, and infer the
// writes' cost from the rest of a saturated interval. Here:
//   - a read account's clean price is the lowest, over the short windows of the last
//     `clean_history`, of the median of its reads' measured prices in the window: writes at the
//     device make reads dearer, so the window with the cheapest reads is the one nearest to no
//     writes, and the median is less moved than the mean by the reads that waited behind a
//     write burst (the fake OSD of osd_write_cost_test.cc: no window there is free of writes);
//   - in a short window where the OSD had ops outstanding at least `saturated` of the time, the
//     device time left to the writes is that busy time minus every read's clean price;
//   - over long windows (writes reach the media in bursts, thesis §3.3.3) that residual is fitted
//     by least squares to the writes the device did, client writes and replica sub-ops alike: a
//     write costs the device per_op + per_byte * bytes, per_op over the last minute, per_byte
//     over the last 15 s given per_op;
//   - a client write is charged that times `copies`, the device time of all the writes per device
//     time of the client writes, so the primaries pay for the replica sub-ops (and EC sub-writes)
//     nobody else can be charged (their owner is the sending OSD, not the client). Where PGs
//     spread evenly it is the pool's size. The sub-ops used to be left out of the fit, which then
//     put their time on the few client writes an OSD was primary for: 7-37 ms per 4 KiB write,
//     which takes about 1 ms of the device (doc/dev/qbox-in-osd.md, "Copies").
// A per-op term holds for the lengths of the writes it was fitted to: a write shorter than any of
// them is charged no more per byte than the shortest of them (WritePrice::of). Before the load of
// a run, windows of nothing but 4 MiB and 1 MiB writes fitted 59 ms per write on one OSD, the
// 4 KiB writer's 11,000 writes alone were charged that, and the writes' lead they left held every
// write of the run after (bench/qbox/README.md, "A per-op term from big writes only").
// Until the first fit, writes cost the prior: deliberately dear, so that readers run clean while
// the first envelope is taken (an underpriced writer would inflate every read and hide itself).
//
// A write is charged the price in force when its thread comes back, and keeps that charge when a
// later fit explains its window better: re-pricing completed writes held the writers under their
// shares on one OSD (bench/qbox/README.md, "Re-pricing only what is queued"). Queued writes are
// tagged again at each new price (QBoxQueue::reprice), so a wrong price does not stay in a
// writer's deadlines for the writes it has not done yet.
//
// Not thread-safe: OsdShares calls it under its mutex.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "qbox/seconds.h"

namespace erails::qbox {

struct WritePricerConfig {
  Seconds window = 1.0;               // short window: read medians, busy, the residual
  std::size_t windows_per_long = 3;   // a long window: 3 s, as the thesis' writes (§3.3.3)
  std::size_t long_history = 5;       // long windows the price per byte and `copies` follow
  // Long windows the per-op term is fitted over (60 s). While QBox holds each writer to its share,
  // the mix of write sizes barely changes between windows, and five of them could not tell a cost
  // per write from a cost per byte (bench/qbox/README.md, "A per-op term over a minute").
  std::size_t per_op_history = 20;
  std::size_t clean_history = 60;     // short windows in a read account's envelope
  std::size_t min_reads = 8;          // reads of an account in a short window for it to count
  // The quantile of a window's read prices taken as that window's clean price. Lower quantiles
  // were tried: a 128 KiB read that ran beside a 4 KiB one pays half its time, so low quantiles
  // price big reads too low against small ones (fig. 3.2 on the emulated SSD, doc/dev).
  double clean_quantile = 0.5;
  double saturated = 0.95;            // busy fraction of a short window that counts as saturated
  // How far apart the windows' write sizes must be for per op and per byte to be fitted apart: 1
  // minus the squared cosine between the windows' op counts and byte counts (write_pricer.cc).
  double distinct_sizes = 0.05;
  // The prior: a write of 1 MiB costs 0.1 s, a device of 10 MB/s; dear on purpose (above).
  Seconds prior_per_op = 0.0001;
  Seconds prior_per_byte = 1e-7;
};

inline constexpr std::uint64_t kNoWriteLength = UINT64_MAX;

// One long window's saturated short windows: the writes the device did in them, those of them
// that clients were charged for, and the device time the reads left them. `number` counts the
// long windows with writes since the pricer began.
struct WriteObservation {
  std::uint64_t number = 0;
  double ops = 0;
  double bytes = 0;
  double client_ops = 0;
  double client_bytes = 0;
  Seconds residual = 0;
  std::uint64_t shortest = kNoWriteLength;  // the shortest write's length
};

// What a client write is charged: its device time times `copies`.
struct WritePrice {
  Seconds per_op = 0;
  Seconds per_byte = 0;
  double copies = 1;
  // "prior", or "residual" once fitted; how many long windows the fit had (the per-op term's),
  // and how many of the latest of them the price per byte follows.
  const char* method = "prior";
  std::size_t long_windows = 0;
  std::size_t per_byte_windows = 0;
  // With a per-op term, the shortest write of the fit's windows; 0 without.
  std::uint64_t shortest = 0;

  // The rule is testdata/write_price_vectors.txt's, which the qbox mgr module's write SLAs share.
  Seconds of(std::uint64_t bytes) const {
    if (bytes < shortest) {
      const double length = static_cast<double>(shortest);
      return (per_op + per_byte * length) * static_cast<double>(bytes) / length;
    }
    return per_op + per_byte * static_cast<double>(bytes);
  }
};

class WritePricer {
 public:
  WritePricer(WritePricerConfig config, Seconds now);

  // A read of `account` completed, having measured `price` (its share of the time ops ran).
  void on_read(std::uint32_t account, Seconds price);
  // A client write of `bytes` was submitted (its thread came back). Returns what it is charged:
  // the price in force.
  Seconds on_write(std::uint64_t bytes);
  // A write of `bytes` no account is charged for (a replica sub-op) was submitted: the device
  // does it all the same.
  void on_replica_write(std::uint64_t bytes);
  // How many fits there have been: the price changes only with it.
  std::uint64_t fits() const { return observed_; }
  // Writes were held `held` seconds for a reader (shard_queue.h) while the device had nothing to
  // do: not the writes' time, though the OSD had ops outstanding.
  void on_idle_hold(Seconds held) { idle_held_ += held; }
  // Closes the short windows that ended by `now`. `busy_total`: the OSD's cumulative time with any
  // op outstanding, never decreasing.
  void advance(Seconds now, Seconds busy_total);

  std::optional<Seconds> clean_read(std::uint32_t account) const;
  const WritePrice& price() const { return price_; }
  // A write was submitted within the last long window: reads are then priced clean.
  bool writes_active() const { return windows_since_write_ < config_.windows_per_long; }
  // The observations the price was fitted to, oldest first: the per-op term's; the last
  // `long_history` of them the price per byte's.
  std::vector<WriteObservation> observations() const;

 private:
  struct ReadWindows {
    std::vector<Seconds> prices;  // of the current short window's reads
    Seconds sum = 0;
    std::vector<Seconds> window_prices;  // ring: each recent short window's clean_quantile
    std::size_t next = 0;
  };

  void close_window(Seconds busy);
  void close_long_window();
  void fit();
  std::vector<WriteObservation> recent_observations() const;
  void charge_for_copies(const std::vector<WriteObservation>& recent, Seconds per_op,
                         Seconds per_byte, std::uint64_t shortest);

  WritePricerConfig config_;
  std::unordered_map<std::uint32_t, ReadWindows> reads_;
  Seconds window_end_;
  Seconds busy_at_start_ = -1;
  std::uint64_t write_ops_ = 0;   // in the current short window, client and replica writes
  std::uint64_t write_bytes_ = 0;
  std::uint64_t shortest_write_ = kNoWriteLength;
  std::uint64_t client_write_ops_ = 0;
  std::uint64_t client_write_bytes_ = 0;
  Seconds idle_held_ = 0;
  static constexpr std::size_t kNoWriteYet = SIZE_MAX / 2;
  std::size_t windows_since_write_ = kNoWriteYet;
  WriteObservation current_long_;
  std::size_t shorts_in_long_ = 0;
  std::uint64_t observed_ = 0;
  std::vector<WriteObservation> history_;  // ring of the last per_op_history long windows
  std::size_t history_next_ = 0;
  WritePrice price_;
};

}  // namespace erails::qbox
