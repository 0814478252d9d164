#include "sim/device_scheduler.h"

namespace erails::sim {

std::unique_ptr<qbox::Scheduler> make_device_scheduler(const SimConfig& c) {
  qbox::SchedulerConfig config;
  config.kind = *c.scheduler;
  config.max_in_flight = static_cast<std::size_t>(c.dispatch_depth);
  if (c.cost_source == CostSource::kEstimator) config.estimator = qbox::CostEstimatorConfig{};
  auto scheduler = std::make_unique<qbox::Scheduler>(config, 0.0);
  // The config check enforces the queues' own rules, so registration cannot fail here.
  for (uint32_t s = 0; s < c.streams.size(); ++s) {
    const StreamConfig& stream = c.streams[s];
    scheduler->add_client(s, {stream.utilization, {stream.reservation, stream.weight, stream.limit}});
  }
  return scheduler;
}

double profiled_cost(const SimConfig& c, qbox::RequestClass request_class, uint32_t bytes) {
  const bool is_read = request_class.operation == Operation::read;
  return (is_read ? c.read_cost : c.write_cost) * (static_cast<double>(bytes) / 4096);
}

}  // namespace erails::sim
