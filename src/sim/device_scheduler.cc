#include "sim/device_scheduler.h"

#include <limits>

namespace erails::sim {

namespace {

std::variant<qbox::QBoxQueue<uint32_t, uint64_t>, qbox::MClockQueue<uint32_t, uint64_t>> make_queue(
    const SimConfig& c) {
  const auto depth = static_cast<std::size_t>(c.dispatch_depth);
  if (c.scheduler == Scheduler::kMclock) {
    qbox::MClockQueue<uint32_t, uint64_t> q(depth);
    // The config check enforces the queue's own rules, so registration cannot fail here.
    for (uint32_t s = 0; s < c.streams.size(); ++s)
      q.add_client(s, {c.streams[s].reservation, c.streams[s].weight, c.streams[s].limit});
    return q;
  }
  qbox::QBoxQueue<uint32_t, uint64_t> q(depth);
  for (uint32_t s = 0; s < c.streams.size(); ++s) q.add_client(s, c.streams[s].utilization);
  return q;
}

}  // namespace

DeviceScheduler::DeviceScheduler(const SimConfig& config)
    : kind_(config.scheduler),
      depth_(static_cast<std::size_t>(config.dispatch_depth)),
      read_cost_(config.read_cost),
      write_cost_(config.write_cost),
      queue_(make_queue(config)) {
  if (config.cost_source == CostSource::kEstimator) estimator_.emplace(qbox::CostEstimatorConfig{}, 0.0);
}

double DeviceScheduler::price(qbox::RequestClass request_class, uint32_t bytes) const {
  if (kind_ != Scheduler::kQbox) return 1;
  if (estimator_) {
    if (const auto estimate = estimator_->cost(request_class)) return *estimate;
  }
  const bool is_read = request_class.operation == Operation::read;
  return (is_read ? read_cost_ : write_cost_) * (static_cast<double>(bytes) / 4096);
}

erails::Status DeviceScheduler::enqueue(uint32_t stream, uint64_t op, double price, double now) {
  return std::visit([&](auto& q) { return q.enqueue(stream, op, price, now); }, queue_);
}

std::optional<uint64_t> DeviceScheduler::dequeue(double now) {
  return std::visit(
      [&](auto& q) -> std::optional<uint64_t> {
        auto d = q.dequeue(now);
        if (!d) return std::nullopt;
        return d->request;
      },
      queue_);
}

void DeviceScheduler::on_submitted(double now) {
  if (estimator_) estimator_->on_dispatch(now);
}

void DeviceScheduler::give_back() {
  std::visit([](auto& q) { q.on_completion(); }, queue_);
}

void DeviceScheduler::on_completion(qbox::RequestClass request_class, double now) {
  std::visit([](auto& q) { q.on_completion(); }, queue_);
  if (estimator_) estimator_->on_completion(request_class, now);
}

double DeviceScheduler::next_ready() const {
  if (const auto* m = std::get_if<Mclock>(&queue_)) return m->next_ready();
  return std::numeric_limits<double>::infinity();
}

bool DeviceScheduler::at_depth() const {
  return std::visit([&](const auto& q) { return q.in_flight() >= depth_; }, queue_);
}

bool DeviceScheduler::empty() const {
  return std::visit([](const auto& q) { return q.empty(); }, queue_);
}

}  // namespace erails::sim
