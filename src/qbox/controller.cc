#include "qbox/controller.h"

#include <limits>
#include <unordered_map>

#include "qbox/osd_shares.h"
#include "qbox/validate.h"

namespace erails::qbox {
namespace {

struct Pending {
  std::uint32_t client = 0;
  Operation operation = Operation::read;
  Access access = Access::random;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  Seconds price = 0;
};

struct InFlight {
  std::uint32_t client = 0;
  RequestClass request_class;
  std::uint32_t length = 0;
  RunningOp running;  // osd pricing only
};

// Records under small integer handles. The last handle freed is the next one given out, so the
// table stops growing at the deepest the queue or the device gets.
template <class Record>
class HandleTable {
 public:
  std::uint64_t add(const Record& record) {
    if (free_.empty()) {
      records_.push_back(record);
      return records_.size() - 1;
    }
    const std::uint64_t handle = free_.back();
    free_.pop_back();
    records_[handle] = record;
    return handle;
  }
  // Precondition: `handle` came from add() and was not taken since.
  Record take(std::uint64_t handle) {
    free_.push_back(handle);
    return records_[handle];
  }
  const Record& operator[](std::uint64_t handle) const { return records_[handle]; }
  Record& operator[](std::uint64_t handle) { return records_[handle]; }

 private:
  std::vector<Record> records_;
  std::vector<std::uint64_t> free_;
};

// The throughput-based mClock the thesis compares against: weight u, no reservation or limit.
ClientShare share_of(double utilization) {
  return ClientShare{utilization, MClockSettings{0, utilization, 0}};
}

// The estimator starts from the default prices unless given priors: under a steady schedule the
// class mix barely changes between windows, so intersections stay invalid and only the projection
// (which needs an estimate to project) can track the costs (thesis 3.3.1).
SchedulerConfig scheduler_config(const ControllerConfig& config) {
  CostEstimatorConfig estimator = config.estimator;
  if (!estimator.read_prior) estimator.read_prior = config.default_read_cost;
  if (!estimator.write_prior) estimator.write_prior = config.default_write_cost;
  return SchedulerConfig{config.scheduler, config.max_in_flight, estimator, config.probe};
}

}  // namespace

Expected<Classification> parse_classification(const std::string& text) {
  if (text == "stream") return Classification::stream;
  if (text == "dispatch") return Classification::dispatch;
  return Error{"classify", "must be 'stream' or 'dispatch', got '" + text + "'"};
}

Expected<Pricing> parse_pricing(const std::string& text) {
  if (text == "thesis") return Pricing::thesis;
  if (text == "osd") return Pricing::osd;
  return Error{"pricing", "must be 'thesis' or 'osd', got '" + text + "'"};
}

Status check(const ControllerConfig& config) {
  if (config.pricing != Pricing::osd) return Ok{};
  if (config.scheduler != SchedulerKind::qbox) {
    return Error{"pricing", std::string("'osd' prices qbox's requests; scheduler '") +
                                to_string(config.scheduler) +
                                "' prices them by count (give pricing 'thesis')"};
  }
  if (config.classification != Classification::stream) {
    return Error{"pricing", "'osd' charges each request its measured time, so classify must be "
                            "'stream' (dispatch classes move class estimates it does not use)"};
  }
  return Ok{};
}

struct Controller::Impl {
  struct Client {
    std::string name;
    StreamClassifier classifier;
    ClientWindow window;
    std::size_t outstanding = 0;
  };

  Impl(const ControllerConfig& c, Backend& b, Seconds start)
      : config(c),
        backend(b),
        scheduler(scheduler_config(c), start),
        device_order(c.sequential_gap_bytes) {
    if (c.pricing == Pricing::osd) osd.emplace(OsdSharesConfig{}, start);
  }

  // The OSD's accounts are its table's entries: one per client, its handle as the owner. The
  // controller learns of clients and shares between requests, without a time; the OSD's clock
  // takes the latest time it has seen for an earlier one, so 0 stands for "now".
  void put_table() {
    constexpr Seconds kLatest = 0;
    ShareTable table;
    table.epoch = ++table_epoch;
    for (std::uint32_t handle = 0; handle < clients.size(); ++handle) {
      table.clients.push_back(ShareEntry{clients[handle].name, utilizations[handle], {handle}});
    }
    osd->set_table(table, kLatest);
    accounts = osd->snapshot();
  }

  AccountId account(std::uint32_t client) const {
    return accounts->account_of(OpClass::client, client);
  }

  Seconds estimate(RequestClass c) const {
    const CostPair& fallback =
        c.operation == Operation::read ? config.default_read_cost : config.default_write_cost;
    return scheduler.estimate(c, c.access == Access::sequential ? fallback.sequential : fallback.random);
  }

  std::optional<Error> unknown(ClientHandle client) const {
    if (client < clients.size()) return std::nullopt;
    return Error{"client", "unknown client handle " + std::to_string(client)};
  }

  // After a write fit, as the OSD's shard queue does (shard_queue.h): queued writes at the new
  // price.
  void reprice_writes() {
    write_fits_seen = osd->write_fits();
    const WritePrice price = osd->write_price();
    const auto recost = [this, &price](std::uint64_t handle) -> std::optional<Seconds> {
      Pending& pending = queued[handle];
      if (pending.operation != Operation::write) return std::nullopt;
      pending.price = price.of(pending.length);
      return pending.price;
    };
    for (std::uint32_t client = 0; client < clients.size(); ++client) {
      scheduler.reprice(client, recost);
    }
  }

  std::optional<std::uint64_t> dequeue(Seconds now) {
    if (osd && osd->write_fits() != write_fits_seen) reprice_writes();
    // The fifo baseline shares qbox's queue; slack is part of qbox only.
    if (config.scheduler == SchedulerKind::qbox && config.sequential_slack > 0 && last_client) {
      const auto head = scheduler.head(*last_client);
      if (head && device_order.continues(queued[*head].offset)) {
        return scheduler.dequeue_preferring(*last_client, config.sequential_slack, now);
      }
    }
    return scheduler.dequeue(now);
  }

  ControllerConfig config;
  Backend& backend;
  Scheduler scheduler;
  std::vector<Client> clients;
  StreamClassifier device_order;  // sequential/random in the order requests reach the device
  std::optional<std::uint32_t> last_client;  // whose request reached the device last
  std::unordered_map<std::string, std::uint32_t> by_name;
  HandleTable<Pending> queued;      // by scheduler handle
  HandleTable<InFlight> in_flight;  // by backend token
  std::vector<BackendCompletion> completions;
  std::optional<OsdShares> osd;  // Pricing::osd only
  std::vector<double> utilizations;  // by client handle, for the OSD's table
  std::uint64_t table_epoch = 0;
  std::shared_ptr<const ShareSnapshot> accounts;
  std::uint64_t write_fits_seen = 0;
};

Controller::Controller(const ControllerConfig& config, Backend& backend, Seconds start)
    : impl_(std::make_unique<Impl>(config, backend, start)) {}

Controller::~Controller() = default;

Expected<Controller::ClientHandle> Controller::add_client(const std::string& name,
                                                        double utilization) {
  if (impl_->by_name.count(name) != 0) {
    return Error{"client", "'" + name + "' is already registered"};
  }
  // Checked here for every scheduler: mclock would take any positive weight, and a client's target
  // must mean the same whichever scheduler runs.
  if (auto bad = check_utilization(utilization)) return *bad;
  const auto handle = static_cast<std::uint32_t>(impl_->clients.size());
  const Status added = impl_->scheduler.add_client(handle, share_of(utilization));
  if (!added) return added.error();
  impl_->clients.push_back(Impl::Client{name, StreamClassifier(impl_->config.sequential_gap_bytes),
                                        ClientWindow{}, 0});
  impl_->by_name.emplace(name, handle);
  impl_->utilizations.push_back(utilization);
  if (impl_->osd) impl_->put_table();
  return handle;
}

Status Controller::set_utilization(ClientHandle client, double utilization) {
  if (auto bad = impl_->unknown(client)) return *bad;
  if (auto bad = check_utilization(utilization)) return *bad;
  const Status set = impl_->scheduler.set_share(client, share_of(utilization));
  if (!set) return set;
  impl_->utilizations[client] = utilization;
  if (impl_->osd) impl_->put_table();
  return set;
}

Status Controller::submit(ClientHandle client, Operation operation, std::uint64_t offset,
                          std::uint32_t length, Seconds now) {
  if (auto bad = impl_->unknown(client)) return *bad;
  if (length == 0) return Error{"length", "must be > 0 bytes"};
  Impl::Client& state = impl_->clients[client];
  const Access access = state.classifier.classify(offset, length);
  const RequestClass request_class{operation, access};
  const Seconds cost =
      impl_->osd ? impl_->osd->on_enqueue(impl_->account(client), request_class,
                                          operation == Operation::write ? length : 0, false, now)
                 : impl_->scheduler.price(request_class, impl_->estimate(request_class));
  const std::uint64_t handle =
      impl_->queued.add(Pending{client, operation, access, offset, length, cost});
  const Status queued = impl_->scheduler.enqueue(client, handle, cost, now);
  if (!queued) {
    impl_->queued.take(handle);
    return queued;
  }
  ++state.outstanding;
  return queued;
}

Expected<std::size_t> Controller::dispatch(Seconds now) {
  Impl& impl = *impl_;
  std::size_t sent = 0;
  while (const auto handle = impl.dequeue(now)) {
    const Pending pending = impl.queued.take(*handle);
    impl.last_client = pending.client;
    const RequestClass predicted{pending.operation, pending.access};
    RequestClass request_class = predicted;
    const Access at_device = impl.device_order.classify(pending.offset, pending.length);
    if (impl.config.classification == Classification::dispatch) request_class.access = at_device;
    RunningOp running;
    if (impl.osd) {
      running = impl.osd->on_dispatch(impl.account(pending.client), request_class,
                                      pending.operation == Operation::write ? pending.length : 0,
                                      pending.price, now);
    }
    const std::uint64_t token =
        impl.in_flight.add(InFlight{pending.client, request_class, pending.length, running});
    impl.scheduler.on_dispatch(now);
    const Status started = impl.backend.submit(
        BackendRequest{pending.operation, pending.offset, pending.length, token}, now);
    if (!started) {
      // Nothing is in flight for it: undo the accounting and report the error as a failed request.
      impl.in_flight.take(token);
      impl.scheduler.on_completion(request_class, now);
      if (impl.osd) impl.osd->on_completion(running, now);
      Impl::Client& state = impl.clients[pending.client];
      --state.outstanding;
      ++state.window.errors;
      return started.error();
    }
    if (!(request_class == predicted)) {
      impl.scheduler.charge(pending.client,
                            impl.estimate(request_class) - impl.estimate(predicted));
    }
    ++sent;
  }
  return sent;
}

std::size_t Controller::reap(Seconds now) {
  auto& completions = impl_->completions;
  completions.clear();
  impl_->backend.collect(now, completions);
  for (const BackendCompletion& done : completions) {
    const InFlight entry = impl_->in_flight.take(done.token);
    impl_->scheduler.on_completion(entry.request_class, done.completed_at);
    Seconds charged = 0;
    if (impl_->osd) {
      charged = impl_->osd->on_completion(entry.running, done.completed_at);
      impl_->scheduler.charge(entry.client, charged - entry.running.estimate);
    } else {
      charged = impl_->estimate(entry.request_class);
    }
    Impl::Client& state = impl_->clients[entry.client];
    --state.outstanding;
    if (done.result < 0) {
      ++state.window.errors;
      continue;
    }
    ++state.window.completions;
    state.window.bytes += static_cast<std::uint64_t>(done.result);
    state.window.estimated_time += charged;
    if (done.service_time) state.window.service_time += *done.service_time;
  }
  impl_->scheduler.advance(now);
  return completions.size();
}

std::size_t Controller::queued() const { return impl_->scheduler.size(); }

std::size_t Controller::in_flight() const { return impl_->scheduler.in_flight(); }

std::size_t Controller::outstanding(ClientHandle client) const {
  return client < impl_->clients.size() ? impl_->clients[client].outstanding : 0;
}

const CostEstimator& Controller::estimator() const { return *impl_->scheduler.estimator(); }

std::optional<WritePrice> Controller::write_price() const {
  if (!impl_->osd) return std::nullopt;
  return impl_->osd->write_price();
}

std::optional<Seconds> Controller::next_ready() const {
  const Seconds t = impl_->scheduler.next_ready();
  if (t != std::numeric_limits<Seconds>::infinity()) return t;
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
