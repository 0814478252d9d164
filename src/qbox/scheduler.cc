#include "qbox/scheduler.h"

#include <limits>

namespace erails::qbox {

Expected<SchedulerKind> parse_scheduler(const std::string& text) {
  if (text == "qbox") return SchedulerKind::qbox;
  if (text == "fifo") return SchedulerKind::fifo;
  if (text == "mclock") return SchedulerKind::mclock;
  return Error{"scheduler", "must be 'qbox', 'fifo' or 'mclock', got '" + text + "'"};
}

const char* to_string(SchedulerKind kind) {
  switch (kind) {
    case SchedulerKind::qbox: return "qbox";
    case SchedulerKind::fifo: return "fifo";
    case SchedulerKind::mclock: return "mclock";
  }
  return "?";
}

Scheduler::Scheduler(const SchedulerConfig& config, Seconds start)
    : kind_(config.kind),
      probe_(config.probe),
      queue_(config.kind == SchedulerKind::mclock
                 ? std::variant<QBox, MClock>(std::in_place_type<MClock>, config.max_in_flight)
                 : std::variant<QBox, MClock>(std::in_place_type<QBox>, config.max_in_flight)) {
  if (config.estimator) estimator_.emplace(*config.estimator, start);
}

Status Scheduler::add_client(ClientId client, const ClientShare& share) {
  if (auto* mclock = std::get_if<MClock>(&queue_)) return mclock->add_client(client, share.mclock);
  return std::get<QBox>(queue_).add_client(client, share.utilization);
}

Status Scheduler::set_share(ClientId client, const ClientShare& share) {
  if (auto* mclock = std::get_if<MClock>(&queue_)) return mclock->set_settings(client, share.mclock);
  return std::get<QBox>(queue_).set_utilization(client, share.utilization);
}

Seconds Scheduler::estimate(RequestClass c, Seconds fallback) const {
  if (estimator_) {
    if (const auto estimate = estimator_->cost(c)) return *estimate;
  }
  return fallback;
}

Seconds Scheduler::price(RequestClass c, Seconds fallback) const {
  if (kind_ != SchedulerKind::qbox) return 1.0;
  Seconds cost = estimate(c, fallback);
  // Probing: EDF on steady estimates keeps the class mix the same in every window, and then
  // the two-window system has no well-conditioned intersections (thesis 3.3.1 needs the mix to
  // move). Sequential prices alternate between (1 + p) and 1 / (1 + p) from one estimator
  // window to the next, which moves the mix by a known amount; the geometric mean is the true
  // price, so shares drift by only ~p^2/2.
  if (probe_ > 0 && estimator_ && c.access == Access::sequential) {
    cost *= estimator_->windows_closed() % 2 == 0 ? 1 + probe_ : 1 / (1 + probe_);
  }
  return cost;
}

Status Scheduler::enqueue(ClientId client, Handle request, Seconds price, Seconds now) {
  return std::visit([&](auto& queue) { return queue.enqueue(client, request, price, now); }, queue_);
}

std::optional<Scheduler::Handle> Scheduler::dequeue(Seconds now) {
  return std::visit(
      [&](auto& queue) -> std::optional<Handle> {
        const auto item = queue.dequeue(now);
        if (!item) return std::nullopt;
        return item->request;
      },
      queue_);
}

std::optional<Scheduler::Handle> Scheduler::head(ClientId client) const {
  const auto* qbox = std::get_if<QBox>(&queue_);
  const Handle* request = qbox != nullptr ? qbox->head(client) : nullptr;
  if (request == nullptr) return std::nullopt;
  return *request;
}

std::optional<Scheduler::Handle> Scheduler::dequeue_preferring(ClientId client, Seconds slack,
                                                               Seconds now) {
  auto* qbox = std::get_if<QBox>(&queue_);
  if (qbox == nullptr) return dequeue(now);
  const auto item = qbox->dequeue_preferring(client, slack, now);
  if (!item) return std::nullopt;
  return item->request;
}

void Scheduler::charge(ClientId client, Seconds extra) {
  if (kind_ == SchedulerKind::qbox) std::get<QBox>(queue_).charge(client, extra);
}

void Scheduler::on_dispatch(Seconds now) {
  if (estimator_) estimator_->on_dispatch(now);
}

void Scheduler::on_completion(RequestClass c, Seconds now) {
  std::visit([](auto& queue) { queue.on_completion(); }, queue_);
  if (estimator_) estimator_->on_completion(c, now);
}

void Scheduler::give_back() {
  std::visit([](auto& queue) { queue.on_completion(); }, queue_);
}

void Scheduler::advance(Seconds now) {
  if (estimator_) estimator_->advance(now);
}

Seconds Scheduler::next_ready() const {
  if (const auto* mclock = std::get_if<MClock>(&queue_)) return mclock->next_ready();
  return std::numeric_limits<Seconds>::infinity();
}

bool Scheduler::at_depth() const {
  return std::visit([](const auto& queue) { return queue.at_depth(); }, queue_);
}

bool Scheduler::empty() const {
  return std::visit([](const auto& queue) { return queue.empty(); }, queue_);
}

std::size_t Scheduler::size() const {
  return std::visit([](const auto& queue) { return queue.size(); }, queue_);
}

std::size_t Scheduler::in_flight() const {
  return std::visit([](const auto& queue) { return queue.in_flight(); }, queue_);
}

}  // namespace erails::qbox
