#include "qbox/controller.h"

#include <unordered_map>
#include <variant>

namespace erails::qbox {
namespace {

struct Pending {
  Operation operation = Operation::read;
  Access access = Access::random;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
};

using QBoxScheduler = QBoxQueue<std::uint32_t, Pending>;
using MClockScheduler = MClockQueue<std::uint32_t, Pending>;

struct InFlight {
  std::uint32_t client = 0;
  RequestClass request_class;
  std::uint32_t length = 0;
};

}  // namespace

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

Expected<Classification> parse_classification(const std::string& text) {
  if (text == "stream") return Classification::stream;
  if (text == "dispatch") return Classification::dispatch;
  return Error{"classify", "must be 'stream' or 'dispatch', got '" + text + "'"};
}

struct Controller::Impl {
  struct Client {
    std::string name;
    StreamClassifier classifier;
    ClientWindow window;
    std::size_t outstanding = 0;
  };

  Impl(const ControllerConfig& c, Backend& b)
      : config(c),
        backend(b),
        scheduler(c.scheduler == SchedulerKind::mclock
                      ? std::variant<QBoxScheduler, MClockScheduler>(
                            std::in_place_type<MClockScheduler>, c.max_in_flight)
                      : std::variant<QBoxScheduler, MClockScheduler>(
                            std::in_place_type<QBoxScheduler>, c.max_in_flight)),
        device_order(c.sequential_gap_bytes) {}

  // The cost hint the scheduler gets: device time for QBox, one unit per request for the
  // throughput-based schedulers.
  Seconds price(const CostEstimator& estimator, RequestClass c) const {
    if (config.scheduler != SchedulerKind::qbox) return 1.0;
    Seconds cost = estimate(estimator, c);
    // Probing: EDF on steady estimates keeps the class mix the same in every window, and then
    // the two-window system has no well-conditioned intersections (thesis 3.3.1 needs the mix to
    // move). Sequential prices alternate between (1 + p) and 1 / (1 + p) from one estimator
    // window to the next, which moves the mix by a known amount; the geometric mean is the true
    // price, so shares drift by only ~p^2/2.
    if (config.probe > 0 && c.access == Access::sequential) {
      cost *= estimator.windows_closed() % 2 == 0 ? 1 + config.probe : 1 / (1 + config.probe);
    }
    return cost;
  }

  Seconds estimate(const CostEstimator& estimator, RequestClass c) const {
    if (const auto estimate = estimator.cost(c)) return *estimate;
    const CostPair& fallback =
        c.operation == Operation::read ? config.default_read_cost : config.default_write_cost;
    return c.access == Access::sequential ? fallback.sequential : fallback.random;
  }

  std::uint64_t track(const InFlight& entry) {
    if (free_tokens.empty()) {
      in_flight.push_back(entry);
      return in_flight.size() - 1;
    }
    const std::uint64_t token = free_tokens.back();
    free_tokens.pop_back();
    in_flight[token] = entry;
    return token;
  }

  ControllerConfig config;
  Backend& backend;
  std::variant<QBoxScheduler, MClockScheduler> scheduler;
  std::vector<Client> clients;
  StreamClassifier device_order;  // sequential/random in the order requests reach the device
  std::optional<std::uint32_t> last_client;  // whose request reached the device last
  std::unordered_map<std::string, std::uint32_t> by_name;
  std::vector<InFlight> in_flight;  // indexed by token
  std::vector<std::uint64_t> free_tokens;
  std::vector<BackendCompletion> completions;
};

namespace {

// The estimator starts from the default prices unless given priors: under a steady schedule the
// class mix barely changes between windows, so intersections stay invalid and only the projection
// (which needs an estimate to project) can track the costs (thesis 3.3.1).
CostEstimatorConfig with_priors(const ControllerConfig& config) {
  CostEstimatorConfig estimator = config.estimator;
  if (!estimator.read_prior) estimator.read_prior = config.default_read_cost;
  if (!estimator.write_prior) estimator.write_prior = config.default_write_cost;
  return estimator;
}

}  // namespace

Controller::Controller(const ControllerConfig& config, Backend& backend, Seconds start)
    : impl_(std::make_unique<Impl>(config, backend)), estimator_(with_priors(config), start) {}

Controller::~Controller() = default;

Expected<Controller::ClientHandle> Controller::add_client(const std::string& name,
                                                        double utilization) {
  if (impl_->by_name.count(name) != 0) {
    return Error{"client", "'" + name + "' is already registered"};
  }
  const auto handle = static_cast<std::uint32_t>(impl_->clients.size());
  const Status added = std::visit(
      [&](auto& queue) -> Status {
        using Q = std::decay_t<decltype(queue)>;
        if constexpr (std::is_same_v<Q, QBoxScheduler>) {
          return queue.add_client(handle, utilization);
        } else {
          if (auto bad = check_utilization(utilization)) return *bad;
          return queue.add_client(handle, MClockSettings{0, utilization, 0});
        }
      },
      impl_->scheduler);
  if (!added) return added.error();
  impl_->clients.push_back(Impl::Client{name, StreamClassifier(impl_->config.sequential_gap_bytes),
                                        ClientWindow{}, 0});
  impl_->by_name.emplace(name, handle);
  return handle;
}

Status Controller::set_utilization(ClientHandle client, double utilization) {
  if (client >= impl_->clients.size()) {
    return Error{"client", "unknown client handle " + std::to_string(client)};
  }
  return std::visit(
      [&](auto& queue) -> Status {
        using Q = std::decay_t<decltype(queue)>;
        if constexpr (std::is_same_v<Q, QBoxScheduler>) {
          return queue.set_utilization(client, utilization);
        } else {
          if (auto bad = check_utilization(utilization)) return *bad;
          return queue.set_settings(client, MClockSettings{0, utilization, 0});
        }
      },
      impl_->scheduler);
}

Status Controller::submit(ClientHandle client, Operation operation, std::uint64_t offset,
                          std::uint32_t length, Seconds now) {
  if (client >= impl_->clients.size()) {
    return Error{"client", "unknown client handle " + std::to_string(client)};
  }
  if (length == 0) return Error{"length", "must be > 0 bytes"};
  Impl::Client& state = impl_->clients[client];
  const Access access = state.classifier.classify(offset, length);
  const Seconds cost = impl_->price(estimator_, RequestClass{operation, access});
  const Status queued = std::visit(
      [&](auto& queue) { return queue.enqueue(client, Pending{operation, access, offset, length}, cost, now); },
      impl_->scheduler);
  if (queued) ++state.outstanding;
  return queued;
}

Expected<std::size_t> Controller::dispatch(Seconds now) {
  std::size_t sent = 0;
  while (true) {
    std::optional<std::pair<std::uint32_t, Pending>> next;
    std::visit(
        [&](auto& queue) {
          using Q = std::decay_t<decltype(queue)>;
          std::optional<typename Q::Dequeued> item;
          if constexpr (std::is_same_v<Q, QBoxScheduler>) {
            // The fifo baseline shares this queue type; slack is part of qbox only.
            const bool slack = impl_->config.scheduler == SchedulerKind::qbox &&
                               impl_->config.sequential_slack > 0 && impl_->last_client;
            const Pending* head = slack ? queue.head(*impl_->last_client) : nullptr;
            if (head != nullptr && impl_->device_order.continues(head->offset)) {
              item = queue.dequeue_preferring(*impl_->last_client, impl_->config.sequential_slack,
                                              now);
            } else {
              item = queue.dequeue(now);
            }
          } else {
            item = queue.dequeue(now);
          }
          if (item) next.emplace(item->client, item->request);
        },
        impl_->scheduler);
    if (!next) return sent;
    const auto& [client, pending] = *next;
    impl_->last_client = client;
    const RequestClass predicted{pending.operation, pending.access};
    RequestClass request_class = predicted;
    const Access at_device = impl_->device_order.classify(pending.offset, pending.length);
    if (impl_->config.classification == Classification::dispatch) request_class.access = at_device;
    const std::uint64_t token = impl_->track(InFlight{client, request_class, pending.length});
    estimator_.on_dispatch(now);
    ++in_flight_;
    const Status started = impl_->backend.submit(
        BackendRequest{pending.operation, pending.offset, pending.length, token}, now);
    if (!started) {
      // Nothing is in flight for it: undo the accounting and report the error as a failed request.
      impl_->free_tokens.push_back(token);
      estimator_.on_completion(request_class, now);
      --in_flight_;
      std::visit([](auto& queue) { queue.on_completion(); }, impl_->scheduler);
      Impl::Client& state = impl_->clients[client];
      --state.outstanding;
      ++state.window.errors;
      return started.error();
    }
    if (!(request_class == predicted) && impl_->config.scheduler == SchedulerKind::qbox) {
      if (auto* qbox = std::get_if<QBoxScheduler>(&impl_->scheduler)) {
        qbox->charge(client, impl_->estimate(estimator_, request_class) -
                                 impl_->estimate(estimator_, predicted));
      }
    }
    ++sent;
  }
}

std::size_t Controller::reap(Seconds now) {
  auto& completions = impl_->completions;
  completions.clear();
  impl_->backend.collect(now, completions);
  for (const BackendCompletion& done : completions) {
    const InFlight entry = impl_->in_flight[done.token];
    impl_->free_tokens.push_back(done.token);
    estimator_.on_completion(entry.request_class, done.completed_at);
    --in_flight_;
    std::visit([](auto& queue) { queue.on_completion(); }, impl_->scheduler);
    Impl::Client& state = impl_->clients[entry.client];
    --state.outstanding;
    if (done.result < 0) {
      ++state.window.errors;
      continue;
    }
    ++state.window.completions;
    state.window.bytes += static_cast<std::uint64_t>(done.result);
    state.window.estimated_time += impl_->estimate(estimator_, entry.request_class);
    if (done.service_time) state.window.service_time += *done.service_time;
  }
  estimator_.advance(now);
  return completions.size();
}

std::size_t Controller::queued() const {
  return std::visit([](const auto& queue) { return queue.size(); }, impl_->scheduler);
}

std::size_t Controller::outstanding(ClientHandle client) const {
  return client < impl_->clients.size() ? impl_->clients[client].outstanding : 0;
}

std::optional<Seconds> Controller::next_ready() const {
  if (const auto* mclock = std::get_if<MClockScheduler>(&impl_->scheduler)) {
    const Seconds t = mclock->next_ready();
    if (t != std::numeric_limits<Seconds>::infinity()) return t;
  }
  return std::nullopt;
}

std::vector<ClientWindow> Controller::take_window() {
  std::vector<ClientWindow> out;
  out.reserve(impl_->clients.size());
  for (Impl::Client& client : impl_->clients) {
    out.push_back(client.window);
    client.window = ClientWindow{};
  }
  return out;
}

const std::string& Controller::name(ClientHandle client) const { return impl_->clients.at(client).name; }

std::size_t Controller::client_count() const { return impl_->clients.size(); }

}  // namespace erails::qbox
