#pragma once
// QBox's request scheduler (thesis 3.3, 6.1.2): a FIFO per client, deadline tags d = e/u
// accumulated per client, and Earliest Deadline First across the heads of the client FIFOs.
//
// The calls mirror an OSD op scheduler: enqueue per client with a cost hint, dequeue the next
// request, dump state as JSON. The cost hint is the request's estimated device time (seconds) —
// what the cost estimator returns for its class; a constant hint turns the queue into the
// throughput-proportional baseline the thesis compares against.
//
// Idle clients: a client's accumulated deadline T would otherwise stay where it was when the client
// went idle and later let it jump ahead of everyone for as long as it had been idle. When a client's
// FIFO goes from empty to non-empty, T is brought forward to the dispatch frontier — the latest
// absolute deadline dispatched so far — so it competes from the current point of the schedule on.
// The frontier is used instead of `now` because deadlines advance at the rate of the estimates, not
// of the wall clock: when the estimates are low the frontier lags `now` and a returning client would
// otherwise wait behind everyone; when they are high it runs ahead and `now` would bank credit.
//
// Bounded dispatch depth: dequeue() yields nothing while `max_in_flight` requests are outstanding,
// so the order is decided here and not by the device's own queue; on_completion() frees a place.
//
// Costs: enqueue is O(1) for a backlogged client and O(log N) when a client becomes active; dequeue
// is O(log N) in the number of backlogged clients; registration is amortized O(1) (ClientRegistry).
// Nothing allocates per request once every client FIFO has reached its steady-state depth.
//
// Not thread-safe: the owner serializes calls, as an OSD shard does for its scheduler.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "qbox/client_registry.h"
#include "qbox/deadline_tag.h"
#include "qbox/indexed_heap.h"
#include "common/json_text.h"
#include "common/error.h"
#include "qbox/validate.h"

namespace erails::qbox {

template <class ClientId, class Request, class Hash = std::hash<ClientId>>
class QBoxQueue {
 public:
  struct Dequeued {
    ClientId client;
    Request request;
    DeadlineTag tag;
  };

  // max_in_flight == 0 means unbounded.
  explicit QBoxQueue(std::size_t max_in_flight = 0) : max_in_flight_(max_in_flight) {}

  // Registers a client. Errors: utilization outside (0, 1]; a client already registered.
  Status add_client(const ClientId& id, double utilization);
  // Changes a client's share for requests enqueued from now on (targets may vary over time, 3.4.3).
  Status set_utilization(const ClientId& id, double utilization);
  // Forgets a client. Error if unknown or if it still has queued requests.
  Status remove_client(const ClientId& id);

  // Queues `request` at the tail of the client's FIFO. `cost` is the estimated device time in
  // seconds (finite, >= 0). `now` is accepted for interface parity with time-driven schedulers;
  // EDF tags depend only on costs and shares. Errors: unknown client, bad cost.
  Status enqueue(const ClientId& id, Request request, Seconds cost, Seconds now);

  // Charges `id` for device time its dispatched request turned out to cost beyond the hint it was
  // enqueued with (negative `extra`: a refund), by moving its accumulated deadline by extra / u;
  // requests already queued keep their tags, later ones start from the moved point. A refund
  // here is at most the request's hint, so unlike reprice()'s it is given whole.
  // Errors: unknown client; `extra` not finite.
  Status charge(const ClientId& id, Seconds extra);

  // A new price for what `id` has queued (a write fit: osd_shares.h). The queued requests are
  // tagged again, in order from where the first one's interval began, with the cost
  // recost(request&) returns (std::optional<Seconds>; nothing keeps a request's tag), and the
  // accumulated deadline moves with the last of them. Tagged cheaper, the client's head goes back
  // at most to the other clients' earliest head (the frontier if none has requests queued): a
  // head before everyone's is served alone until it catches up, and inside ceph-osd a reserved
  // reader with reads queued got nothing for whole seconds after a writer's price fell
  // (bench/qbox/README.md, "Refunds"). What that could not give is kept, and pays first for the
  // client's next requests tagged dearer, so that a price that swings down and back costs the
  // client nothing. Error: unknown client.
  template <class Recost>
  Status reprice(const ClientId& id, Recost&& recost);

  // Puts back a request that was dequeued but could not run (an OSD requeues ops it cannot process
  // yet): it goes to the head of its client's FIFO with the head's deadline (or the frontier if the
  // FIFO is empty) and is not charged again — its cost was charged when first enqueued. The
  // request stops counting as in flight. Error: unknown client.
  Status enqueue_front(const ClientId& id, Request request, Seconds now);

  // The queued request with the earliest absolute deadline, or nothing if all FIFOs are empty or
  // max_in_flight requests are outstanding. Each returned request counts as in flight until
  // on_completion().
  std::optional<Dequeued> dequeue(Seconds now);
  // Like dequeue(), but takes the head of `id` instead of the earliest deadline when that head's
  // deadline is at most `slack` seconds later, so a run the device serves cheaply (a sequential
  // stream) is not broken up; each client's order can be bent by at most `slack`.
  std::optional<Dequeued> dequeue_preferring(const ClientId& id, Seconds slack, Seconds now);
  // Like dequeue(), but among the clients whose head request satisfies `eligible(const Request&)`
  // only: the earliest of those heads, or nothing if none does. O(clients).
  template <class Eligible>
  std::optional<Dequeued> dequeue_earliest_where(Eligible&& eligible, Seconds /*now*/) {
    if (at_depth()) return std::nullopt;
    const ClientId* id = earliest_where(eligible);
    if (id == nullptr) return std::nullopt;
    return take(clients_.slot_of(*id));
  }
  // The client dequeue_earliest_where() would take from; nullptr if none. O(clients).
  template <class Eligible>
  const ClientId* earliest_where(Eligible&& eligible) const {
    const Client* earliest = nullptr;
    clients_.for_each([&](const Client& client) {
      if (client.fifo.empty() || !eligible(client.fifo.front().request)) return;
      if (earliest == nullptr ||
          client.fifo.front().tag.absolute < earliest->fifo.front().tag.absolute) {
        earliest = &client;
      }
    });
    return earliest == nullptr ? nullptr : &earliest->id;
  }
  // The request at the head of `id`'s FIFO; nullptr if none is queued or `id` is unknown.
  const Request* head(const ClientId& id) const {
    const std::uint32_t slot = clients_.slot_of(id);
    if (slot == Registry::kNoSlot || clients_[slot].fifo.empty()) return nullptr;
    return &clients_[slot].fifo.front().request;
  }
  // The client whose head has the earliest deadline, as dequeue() would take it; nothing if all
  // FIFOs are empty.
  const ClientId* earliest() const {
    return heads_.empty() ? nullptr : &clients_[heads_.top()].id;
  }
  Seconds earliest_deadline() const { return heads_.top_key(); }  // Precondition: earliest()
  // The deadline a request of `cost` from `id` would get were it enqueued now into its empty FIFO
  // (brought forward to the frontier as enqueue() does); nothing if `id` is unknown.
  std::optional<Seconds> deadline_if_enqueued(const ClientId& id, Seconds cost) const {
    const std::uint32_t slot = clients_.slot_of(id);
    if (slot == Registry::kNoSlot) return std::nullopt;
    const Client& client = clients_[slot];
    return DeadlineTag::after(std::max(client.accumulated, frontier_), cost, client.utilization)
        .absolute;
  }
  void on_completion() {
    if (in_flight_ > 0) --in_flight_;
  }

  bool empty() const { return queued_ == 0; }
  std::size_t size() const { return queued_; }
  std::size_t in_flight() const { return in_flight_; }
  // max_in_flight dequeued requests are outstanding: dequeue() yields nothing.
  bool at_depth() const { return max_in_flight_ != 0 && in_flight_ >= max_in_flight_; }
  std::size_t client_count() const { return clients_.size(); }
  Seconds frontier() const { return frontier_; }

  // {"scheduler":"qbox","queued":..,"in_flight":..,"frontier":..,"clients":[{"id":..,
  //  "utilization":..,"accumulated_deadline":..,"queued":..,"head_deadline":..|null}, ...]}
  std::string dump_json() const;

 private:
  struct Entry {
    Request request{};
    DeadlineTag tag;
  };
  struct Share {
    double utilization = 1;
    Seconds accumulated = 0;  // T: the client's latest absolute deadline
    Seconds refund_credit = 0;  // what reprice() could not give back yet, in seconds of cost
  };
  using Registry = ClientRegistry<ClientId, Share, Entry, Hash>;
  using Client = typename Registry::Client;

  Dequeued take(std::uint32_t slot);

  std::size_t max_in_flight_;
  Registry clients_;
  IndexedHeap heads_;  // backlogged clients keyed by their head's absolute deadline
  std::size_t queued_ = 0;
  std::size_t in_flight_ = 0;
  Seconds frontier_ = -std::numeric_limits<Seconds>::infinity();

  // Where the schedule is for everyone but `client`: the earliest head deadline of the other
  // clients with requests queued, or the frontier if none has any.
  Seconds present_for(const Client& client) const {
    Seconds present = std::numeric_limits<Seconds>::infinity();
    clients_.for_each([&](const Client& other) {
      if (&other != &client && !other.fifo.empty()) {
        present = std::min(present, other.fifo.front().tag.absolute);
      }
    });
    return std::isinf(present) ? frontier_ : present;
  }

  // Where a head that reprice() moves from `was` to `moved` ends: a move later is first paid from
  // the client's credit, as far back as `was`; a move earlier stops at `floor`, and what it could
  // not give is kept as credit.
  static Seconds settle(Client& client, Seconds was, Seconds moved, Seconds floor) {
    if (moved > was) {
      const Seconds paid = std::min(moved - was, client.refund_credit / client.utilization);
      client.refund_credit -= paid * client.utilization;
      return moved - paid;
    }
    if (moved >= floor) return moved;
    client.refund_credit += (floor - moved) * client.utilization;
    return floor;
  }
};

template <class ClientId, class Request, class Hash>
Status QBoxQueue<ClientId, Request, Hash>::add_client(const ClientId& id, double utilization) {
  if (auto bad = check_utilization(utilization)) return *bad;
  const Seconds start = frontier_ == -std::numeric_limits<Seconds>::infinity() ? 0 : frontier_;
  return clients_.add(id, Share{utilization, start}, "use set_utilization to change its share");
}

template <class ClientId, class Request, class Hash>
Status QBoxQueue<ClientId, Request, Hash>::set_utilization(const ClientId& id, double utilization) {
  if (auto bad = check_utilization(utilization)) return *bad;
  const auto slot = clients_.find(id);
  if (!slot) return slot.error();
  clients_[slot.value()].utilization = utilization;
  return Ok{};
}

template <class ClientId, class Request, class Hash>
Status QBoxQueue<ClientId, Request, Hash>::remove_client(const ClientId& id) {
  return clients_.remove(id);
}

template <class ClientId, class Request, class Hash>
Status QBoxQueue<ClientId, Request, Hash>::enqueue(const ClientId& id, Request request,
                                                   Seconds cost, Seconds /*now*/) {
  if (auto bad = check_cost(cost)) return *bad;
  const auto slot = clients_.find(id);
  if (!slot) return slot.error();
  Client& client = clients_[slot.value()];
  const bool was_idle = client.fifo.empty();
  if (was_idle && client.accumulated < frontier_) client.accumulated = frontier_;
  const DeadlineTag tag = DeadlineTag::after(client.accumulated, cost, client.utilization);
  client.accumulated = tag.absolute;
  client.fifo.push(Entry{std::move(request), tag});
  ++queued_;
  if (was_idle) heads_.push(slot.value(), tag.absolute);
  return Ok{};
}

template <class ClientId, class Request, class Hash>
Status QBoxQueue<ClientId, Request, Hash>::charge(const ClientId& id, Seconds extra) {
  if (!std::isfinite(extra)) return Error{"cost", "extra charge must be finite seconds"};
  const auto slot = clients_.find(id);
  if (!slot) return slot.error();
  Client& client = clients_[slot.value()];
  client.accumulated += extra / client.utilization;
  return Ok{};
}

template <class ClientId, class Request, class Hash>
template <class Recost>
Status QBoxQueue<ClientId, Request, Hash>::reprice(const ClientId& id, Recost&& recost) {
  const auto slot = clients_.find(id);
  if (!slot) return slot.error();
  Client& client = clients_[slot.value()];
  if (client.fifo.empty()) return Ok{};
  const std::size_t queued = client.fifo.size();
  const Seconds head = client.fifo.front().tag.absolute;
  const Seconds last = client.fifo.at(queued - 1).tag.absolute;
  Seconds start = head - client.fifo.front().tag.relative;
  for (std::size_t k = 0; k < queued; ++k) {
    Entry& entry = client.fifo.at(k);
    const std::optional<Seconds> cost = recost(entry.request);
    const Seconds relative = cost && !check_cost(*cost) ? *cost / client.utilization
                                                        : entry.tag.relative;
    entry.tag = DeadlineTag{relative, start + relative};
    start = entry.tag.absolute;
  }
  client.accumulated += start - last;
  const Seconds new_head = client.fifo.front().tag.absolute;
  const Seconds shift =
      settle(client, head, new_head, std::min(head, present_for(client))) - new_head;
  if (shift != 0) {
    for (std::size_t k = 0; k < queued; ++k) client.fifo.at(k).tag.absolute += shift;
    client.accumulated += shift;
  }
  heads_.update(slot.value(), client.fifo.front().tag.absolute);
  return Ok{};
}

template <class ClientId, class Request, class Hash>
Status QBoxQueue<ClientId, Request, Hash>::enqueue_front(const ClientId& id, Request request,
                                                         Seconds /*now*/) {
  const auto slot = clients_.find(id);
  if (!slot) return slot.error();
  Client& client = clients_[slot.value()];
  const bool was_idle = client.fifo.empty();
  const Seconds deadline =
      was_idle ? std::max(client.accumulated, frontier_) : client.fifo.front().tag.absolute;
  client.fifo.push_front(Entry{std::move(request), DeadlineTag{0, deadline}});
  if (was_idle) {
    client.accumulated = std::max(client.accumulated, deadline);
    heads_.push(slot.value(), deadline);
  }
  ++queued_;
  if (in_flight_ > 0) --in_flight_;
  return Ok{};
}

template <class ClientId, class Request, class Hash>
std::optional<typename QBoxQueue<ClientId, Request, Hash>::Dequeued>
QBoxQueue<ClientId, Request, Hash>::dequeue(Seconds /*now*/) {
  if (heads_.empty() || at_depth()) return std::nullopt;
  return take(heads_.top());
}

template <class ClientId, class Request, class Hash>
std::optional<typename QBoxQueue<ClientId, Request, Hash>::Dequeued>
QBoxQueue<ClientId, Request, Hash>::dequeue_preferring(const ClientId& id, Seconds slack,
                                                       Seconds /*now*/) {
  if (heads_.empty() || at_depth()) return std::nullopt;
  const std::uint32_t preferred = clients_.slot_of(id);
  if (preferred != Registry::kNoSlot && heads_.contains(preferred) &&
      clients_[preferred].fifo.front().tag.absolute <= heads_.top_key() + slack) {
    return take(preferred);
  }
  return take(heads_.top());
}

template <class ClientId, class Request, class Hash>
typename QBoxQueue<ClientId, Request, Hash>::Dequeued QBoxQueue<ClientId, Request, Hash>::take(
    std::uint32_t slot) {
  Client& client = clients_[slot];
  Entry entry = client.fifo.pop();
  if (client.fifo.empty()) {
    heads_.erase(slot);
  } else {
    heads_.update(slot, client.fifo.front().tag.absolute);
  }
  --queued_;
  ++in_flight_;
  if (entry.tag.absolute > frontier_) frontier_ = entry.tag.absolute;
  return Dequeued{client.id, std::move(entry.request), entry.tag};
}

template <class ClientId, class Request, class Hash>
std::string QBoxQueue<ClientId, Request, Hash>::dump_json() const {
  std::string out = "{\"scheduler\":\"qbox\",\"queued\":" + std::to_string(queued_) +
                    ",\"in_flight\":" + std::to_string(in_flight_) +
                    ",\"max_in_flight\":" + std::to_string(max_in_flight_) +
                    ",\"frontier\":" + json_number(frontier_) + ",\"clients\":[";
  bool first = true;
  clients_.for_each([&](const Client& client) {
    if (!first) out += ",";
    first = false;
    out += "{\"id\":" + json_id(client.id) +
           ",\"utilization\":" + json_number(client.utilization) +
           ",\"accumulated_deadline\":" + json_number(client.accumulated) +
           ",\"queued\":" + std::to_string(client.fifo.size()) + ",\"head_deadline\":" +
           (client.fifo.empty() ? std::string("null")
                                : json_number(client.fifo.front().tag.absolute)) +
           "}";
  });
  return out + "]}";
}

}  // namespace erails::qbox
