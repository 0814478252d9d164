#include "sim/osds.h"

#include "devices/hdd.h"
#include "devices/rng.h"
#include "devices/ssd.h"
#include "sim/device_scheduler.h"
#include "sim/placement.h"

namespace erails::sim {

std::unique_ptr<devices::Device> make_device(const devices::DeviceModel& d, uint64_t seed, double slowdown) {
  if (!d.is_ssd) {
    devices::HddParams p = d.hdd;
    p.bandwidth /= slowdown;
    p.avg_seek *= slowdown;
    p.rpm /= slowdown;
    return std::make_unique<devices::HddModel>(p);
  }
  devices::SsdParams p = d.ssd;
  p.seed = seed;
  p.read_latency *= slowdown;
  p.write_latency *= slowdown;
  p.read_bandwidth /= slowdown;
  p.write_bandwidth /= slowdown;
  p.gc_copy_bandwidth /= slowdown;
  p.gc_erase_bandwidth /= slowdown;
  return std::make_unique<devices::SsdModel>(p);
}

std::vector<Osd> make_osds(const SimConfig& c) {
  const int osds = (c.k + c.m) * c.osds_per_color;
  std::vector<Osd> out;
  out.reserve(osds);
  devices::Rng slow_draw(mix(c.seed ^ 0x51017));
  for (int i = 0; i < osds; ++i) {
    Osd& osd = out.emplace_back(i / c.osds_per_color, c.hold_budget);
    double slowdown = 1, u = slow_draw.uniform();
    for (const SlowConfig& slow : c.slow) {
      if (slow.osd == i) {
        slowdown = slow.factor;
        osd.slow = true;
        break;
      }
      if (slow.osd < 0 && u < slow.fraction) {
        slowdown = slow.factor;
        osd.slow = true;
        break;
      }
      if (slow.osd < 0) u -= slow.fraction;
    }
    osd.data = make_device(c.devices.at(c.data_device), mix(c.seed * 1000003 + 2 * i), slowdown);
    if (!c.journal_device.empty())
      osd.journal = make_device(c.devices.at(c.journal_device), mix(c.seed * 1000003 + 2 * i + 1), 1);
    if (c.scheduler) osd.scheduler = make_device_scheduler(c);
  }
  return out;
}

}  // namespace erails::sim
