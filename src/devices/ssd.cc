#include "devices/ssd.h"

#include <algorithm>
#include <cmath>

namespace erails::devices {

namespace {

bool positive(double v) { return std::isfinite(v) && v > 0; }

}  // namespace

Status validate(const SsdParams& p) {
  if (!positive(p.capacity_bytes)) return Error{"capacity_bytes", "capacity_bytes must be > 0"};
  if (!positive(p.spare_bytes)) return Error{"spare_bytes", "spare_bytes must be > 0"};
  if (p.parallelism < 1 || p.parallelism > 64) return Error{"parallelism", "parallelism must be in 1..64"};
  if (!(p.read_latency >= 0) || !std::isfinite(p.read_latency))
    return Error{"read_latency", "read_latency must be >= 0 seconds"};
  if (!(p.write_latency >= 0) || !std::isfinite(p.write_latency))
    return Error{"write_latency", "write_latency must be >= 0 seconds"};
  if (!positive(p.read_bandwidth)) return Error{"read_bandwidth", "read_bandwidth must be > 0 bytes/s"};
  if (!positive(p.write_bandwidth)) return Error{"write_bandwidth", "write_bandwidth must be > 0 bytes/s"};
  if (!positive(p.gc_copy_bandwidth)) return Error{"gc_copy_bandwidth", "gc_copy_bandwidth must be > 0 bytes/s"};
  if (!positive(p.gc_erase_bandwidth)) return Error{"gc_erase_bandwidth", "gc_erase_bandwidth must be > 0 bytes/s"};
  if (!positive(p.gc_low_free_bytes)) return Error{"gc_low_free_bytes", "gc_low_free_bytes must be > 0"};
  if (!(p.gc_target_free_bytes > p.gc_low_free_bytes) || !std::isfinite(p.gc_target_free_bytes))
    return Error{"gc_target_free_bytes", "gc_target_free_bytes must be > gc_low_free_bytes"};
  if (!positive(p.gc_event_min)) return Error{"gc_event_min", "gc_event_min must be > 0 seconds"};
  if (!(p.gc_event_max >= p.gc_event_min) || !std::isfinite(p.gc_event_max))
    return Error{"gc_event_max", "gc_event_max must be >= gc_event_min"};
  if (!(p.bg_gc_interval >= 0) || !std::isfinite(p.bg_gc_interval))
    return Error{"bg_gc_interval", "bg_gc_interval must be >= 0 seconds"};
  if (!positive(p.region_bytes) || p.capacity_bytes / p.region_bytes > 1e7)
    return Error{"region_bytes", "region_bytes must be > 0 and at least capacity_bytes / 1e7"};
  if (!(p.initial_footprint >= 0 && p.initial_footprint <= 1)) return Error{"initial_footprint", "initial_footprint must be in 0..1"};
  if (!positive(p.time_scale)) return Error{"time_scale", "time_scale must be finite and > 0"};
  return Ok{};
}

SsdModel::SsdModel(const SsdParams& p)
    : p_(p),
      rng_(p.seed),
      unit_free_(p.parallelism, 0.0),
      random_region_(static_cast<size_t>(std::ceil(p.capacity_bytes / p.region_bytes)), 0),
      free_(p.gc_target_free_bytes) {
  const auto preset = static_cast<uint64_t>(p.initial_footprint * random_region_.size());
  for (uint64_t i = 0; i < preset; ++i) random_region_[i] = 1;
  random_regions_ = preset;
}

double SsdModel::model_drained_at() const { return *std::max_element(unit_free_.begin(), unit_free_.end()); }

double SsdModel::drained_at() const { return model_drained_at() * p_.time_scale; }

double SsdModel::victim_valid_fraction() const {
  const double footprint = std::min(p_.capacity_bytes, random_regions_ * p_.region_bytes);
  return footprint / (footprint + p_.spare_bytes);
}

double SsdModel::seconds_per_reclaimed_byte() const {
  const double u = victim_valid_fraction();
  return u / (1 - u) / p_.gc_copy_bandwidth + 1 / p_.gc_erase_bandwidth;
}

void SsdModel::reclaim_while_idle(double now, double idle_since) {
  if (now <= idle_since || free_ >= p_.gc_target_free_bytes) return;
  free_ = std::min(p_.gc_target_free_bytes, free_ + (now - idle_since) / seconds_per_reclaimed_byte());
}

double SsdModel::gc_event(double at) {
  const double start = std::max(at, model_drained_at());
  const double duration = p_.gc_event_min + (p_.gc_event_max - p_.gc_event_min) * rng_.uniform();
  const double end = start + duration;
  std::fill(unit_free_.begin(), unit_free_.end(), end);
  free_ += duration / seconds_per_reclaimed_byte();
  if (start > last_gc_end_) gc_chain_start_ = start;
  last_gc_end_ = end;
  stats_.gc_events++;
  stats_.gc_blocked_seconds += duration * p_.time_scale;
  return end;
}

void SsdModel::note_write_footprint(const IoRequest& req) {
  const auto region = static_cast<size_t>((req.offset % static_cast<uint64_t>(p_.capacity_bytes)) / p_.region_bytes);
  const bool sequential = req.offset == next_sequential_offset_;
  next_sequential_offset_ = req.offset + req.bytes;
  uint8_t& marked = random_region_[std::min(region, random_region_.size() - 1)];
  if (sequential && marked) {
    marked = 0;
    random_regions_--;
  } else if (!sequential && !marked) {
    marked = 1;
    random_regions_++;
  }
}

IoResult SsdModel::submit(double now, const IoRequest& req) {
  // Slowing the model's clock stretches every duration it produces alike. With time_scale 1 both
  // conversions are exact, so the calibrated drive's results are unchanged to the bit.
  const IoResult r = serve(now / p_.time_scale, req);
  return IoResult{std::max(now, r.completion * p_.time_scale), r.gc_wait * p_.time_scale};
}

IoResult SsdModel::serve(double now, const IoRequest& req) {
  // Every shard request comes through here. Before this request takes a unit only a GC event
  // changes the units, so they are scanned again only if one ran.
  const double drained = model_drained_at();
  reclaim_while_idle(now, drained);
  auto unit = std::min_element(unit_free_.begin(), unit_free_.end());
  double start = std::max(now, *unit);
  bool gc_ran = false;

  if (p_.bg_gc_interval > 0 && free_ < p_.gc_target_free_bytes && drained > now &&
      start - last_gc_end_ >= p_.bg_gc_interval) {
    start = gc_event(start);
    gc_ran = true;
  }
  if (req.operation == Operation::write) {
    note_write_footprint(req);
    free_ -= req.bytes;
    while (free_ < p_.gc_low_free_bytes) {
      start = gc_event(start);
      gc_ran = true;
    }
  }
  if (gc_ran) {
    unit = std::min_element(unit_free_.begin(), unit_free_.end());
    start = std::max(start, *unit);
  }

  const bool read = req.operation == Operation::read;
  const double service = (read ? p_.read_latency : p_.write_latency) +
                         req.bytes * p_.parallelism / (read ? p_.read_bandwidth : p_.write_bandwidth);
  *unit = start + service;
  stats_.busy_seconds += service / p_.parallelism * p_.time_scale;
  if (read) {
    stats_.reads++;
    stats_.read_bytes += req.bytes;
  } else {
    stats_.writes++;
    stats_.write_bytes += req.bytes;
  }
  // Time this request waited while the device was blocked, including a block that began before
  // the request arrived.
  const double gc_wait = std::max(0.0, std::min(start, last_gc_end_) - std::max(now, gc_chain_start_));
  return IoResult{start + service, gc_wait};
}

}  // namespace erails::devices
