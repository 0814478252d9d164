#pragma once
// The project's own mClock (Gulati et al., OSDI'10): reservation, weight and limit tags per client,
// behind the same queue calls as QBoxQueue so the two can be swapped in the controller and
// compared in the benchmark. Rates are in cost units per second; with a cost hint of 1 per request
// they are IOPS, which is how an OSD configures mClock — a throughput-based scheduler.
//
// Tags: a client's requests are spaced by their cost over the rate, and no tag lies before the
// request's arrival, so idle time is not banked: for request k with cost c_k arriving at `now`,
//   R_k = max(R_{k-1} + c_{k-1} / reservation, now), and likewise P with weight, L with limit.
// (The spacing follows the previous request's cost, so a client's first request is eligible at once.)
// dequeue(now): if some head has R <= now, the smallest R goes (constraint phase). Otherwise, among
// heads with L <= now, the smallest P goes (weight phase), and that client's later reservation tags
// are pulled back by c / reservation so weight-phase service does not count against its
// reservation. Pulling back is O(1): each client keeps an offset subtracted from stored R tags.
//
// Three indexed heaps hold the backlogged clients: by head R (clients with a reservation), by head
// P among limit-eligible heads, by head L among heads over their limit. Everything is O(log N) per
// request and allocation-free in steady state, as in QBoxQueue.
//
// Not thread-safe: the owner serializes calls.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "qbox/client_registry.h"
#include "qbox/indexed_heap.h"
#include "common/json_text.h"
#include "common/error.h"
#include "qbox/seconds.h"
#include "qbox/validate.h"

namespace erails::qbox {

struct MClockSettings {
  double reservation = 0;  // guaranteed rate; 0 = none
  double weight = 1;       // share of spare capacity; > 0
  double limit = 0;        // cap; 0 = none
};

struct MClockTags {
  Seconds reservation = 0;
  Seconds proportion = 0;
  Seconds limit = 0;
};

template <class ClientId, class Request, class Hash = std::hash<ClientId>>
class MClockQueue {
 public:
  struct Dequeued {
    ClientId client;
    Request request;
    MClockTags tags;
    bool reservation_phase;
  };

  // max_in_flight == 0 means unbounded.
  explicit MClockQueue(std::size_t max_in_flight = 0) : max_in_flight_(max_in_flight) {}

  // Errors: reservation/limit not finite or < 0, weight not finite or <= 0, limit below
  // reservation, client already registered.
  Status add_client(const ClientId& id, const MClockSettings& settings);
  Status set_settings(const ClientId& id, const MClockSettings& settings);
  Status remove_client(const ClientId& id);

  // Errors: unknown client; cost not finite or < 0.
  Status enqueue(const ClientId& id, Request request, double cost, Seconds now);

  // The next request by mClock's two phases, or nothing when all queues are empty, the dispatch
  // depth is reached, or every head is over its limit (then next_ready() says when to retry).
  std::optional<Dequeued> dequeue(Seconds now);
  void on_completion() {
    if (in_flight_ > 0) --in_flight_;
  }
  // Earliest time a limited head becomes eligible; infinity when none is waiting on its limit.
  Seconds next_ready() const {
    return over_limit_.empty() ? std::numeric_limits<Seconds>::infinity() : over_limit_.top_key();
  }

  bool empty() const { return queued_ == 0; }
  std::size_t size() const { return queued_; }
  std::size_t in_flight() const { return in_flight_; }
  // max_in_flight dequeued requests are outstanding: dequeue() yields nothing.
  bool at_depth() const { return max_in_flight_ != 0 && in_flight_ >= max_in_flight_; }
  std::size_t client_count() const { return clients_.size(); }
  std::string dump_json() const;

 private:
  struct Entry {
    Request request{};
    MClockTags tags;
    double cost = 0;
  };
  struct Tagging {
    MClockSettings settings;
    MClockTags next;  // earliest tags the client's next request may get
    Seconds reservation_offset = 0;
  };
  using Registry = ClientRegistry<ClientId, Tagging, Entry, Hash>;
  using Client = typename Registry::Client;

  static std::optional<Error> check(const MClockSettings& s);
  Seconds head_reservation(const Client& c) const {
    return c.fifo.front().tags.reservation - c.reservation_offset;
  }
  // Puts a backlogged client's head into the heaps it belongs to, given the current time.
  void place_head(std::uint32_t slot, Seconds now);
  void unplace(std::uint32_t slot);

  std::size_t max_in_flight_;
  Registry clients_;
  IndexedHeap by_reservation_;
  IndexedHeap by_proportion_;  // heads within their limit
  IndexedHeap over_limit_;     // heads waiting for their limit tag
  std::size_t queued_ = 0;
  std::size_t in_flight_ = 0;
};

template <class ClientId, class Request, class Hash>
std::optional<Error> MClockQueue<ClientId, Request, Hash>::check(const MClockSettings& s) {
  if (auto bad = check_rate("reservation", s.reservation, true)) return bad;
  if (auto bad = check_rate("weight", s.weight, false)) return bad;
  if (auto bad = check_rate("limit", s.limit, true)) return bad;
  if (s.limit > 0 && s.limit < s.reservation) {
    return Error{"limit", "must be 0 (none) or >= reservation"};
  }
  return std::nullopt;
}

template <class ClientId, class Request, class Hash>
Status MClockQueue<ClientId, Request, Hash>::add_client(const ClientId& id,
                                                        const MClockSettings& settings) {
  if (auto bad = check(settings)) return *bad;
  return clients_.add(id, Tagging{settings, MClockTags{}, 0}, "use set_settings to change it");
}

template <class ClientId, class Request, class Hash>
Status MClockQueue<ClientId, Request, Hash>::set_settings(const ClientId& id,
                                                          const MClockSettings& settings) {
  if (auto bad = check(settings)) return *bad;
  const auto slot = clients_.find(id);
  if (!slot) return slot.error();
  clients_[slot.value()].settings = settings;
  return Ok{};
}

template <class ClientId, class Request, class Hash>
Status MClockQueue<ClientId, Request, Hash>::remove_client(const ClientId& id) {
  return clients_.remove(id);
}

template <class ClientId, class Request, class Hash>
void MClockQueue<ClientId, Request, Hash>::place_head(std::uint32_t slot, Seconds now) {
  const Client& client = clients_[slot];
  const Entry& head = client.fifo.front();
  if (client.settings.reservation > 0) {
    if (by_reservation_.contains(slot)) {
      by_reservation_.update(slot, head_reservation(client));
    } else {
      by_reservation_.push(slot, head_reservation(client));
    }
  }
  if (head.tags.limit <= now) {
    by_proportion_.push(slot, head.tags.proportion);
  } else {
    over_limit_.push(slot, head.tags.limit);
  }
}

template <class ClientId, class Request, class Hash>
void MClockQueue<ClientId, Request, Hash>::unplace(std::uint32_t slot) {
  if (by_reservation_.contains(slot)) by_reservation_.erase(slot);
  if (by_proportion_.contains(slot)) by_proportion_.erase(slot);
  if (over_limit_.contains(slot)) over_limit_.erase(slot);
}

template <class ClientId, class Request, class Hash>
Status MClockQueue<ClientId, Request, Hash>::enqueue(const ClientId& id, Request request,
                                                     double cost, Seconds now) {
  if (auto bad = check_cost(cost)) return *bad;
  const auto slot = clients_.find(id);
  if (!slot) return slot.error();
  Client& client = clients_[slot.value()];
  const MClockSettings& s = client.settings;
  MClockTags tags;
  tags.reservation = s.reservation > 0
                         ? std::max(client.next.reservation, now + client.reservation_offset)
                         : std::numeric_limits<Seconds>::infinity();
  tags.proportion = std::max(client.next.proportion, now);
  tags.limit = std::max(client.next.limit, now);
  client.next.reservation = tags.reservation + (s.reservation > 0 ? cost / s.reservation : 0);
  client.next.proportion = tags.proportion + cost / s.weight;
  client.next.limit = tags.limit + (s.limit > 0 ? cost / s.limit : 0);
  const bool was_idle = client.fifo.empty();
  client.fifo.push(Entry{std::move(request), tags, cost});
  ++queued_;
  if (was_idle) place_head(slot.value(), now);
  return Ok{};
}

template <class ClientId, class Request, class Hash>
std::optional<typename MClockQueue<ClientId, Request, Hash>::Dequeued>
MClockQueue<ClientId, Request, Hash>::dequeue(Seconds now) {
  if (queued_ == 0 || at_depth()) return std::nullopt;
  std::uint32_t slot;
  bool reservation_phase = false;
  if (!by_reservation_.empty() && by_reservation_.top_key() <= now) {
    slot = by_reservation_.top();
    reservation_phase = true;
  } else {
    while (!over_limit_.empty() && over_limit_.top_key() <= now) {
      const std::uint32_t ready = over_limit_.top();
      over_limit_.pop();
      by_proportion_.push(ready, clients_[ready].fifo.front().tags.proportion);
    }
    if (by_proportion_.empty()) return std::nullopt;
    slot = by_proportion_.top();
  }
  Client& client = clients_[slot];
  Entry entry = client.fifo.pop();
  if (!reservation_phase && client.settings.reservation > 0) {
    client.reservation_offset += entry.cost / client.settings.reservation;
  }
  if (client.fifo.empty()) {
    unplace(slot);
  } else {
    // The reservation heap keeps the client (place_head updates its key); the proportion/limit
    // membership may change with the new head's limit tag.
    if (by_proportion_.contains(slot)) by_proportion_.erase(slot);
    if (over_limit_.contains(slot)) over_limit_.erase(slot);
    place_head(slot, now);
  }
  --queued_;
  ++in_flight_;
  return Dequeued{client.id, std::move(entry.request), entry.tags, reservation_phase};
}

template <class ClientId, class Request, class Hash>
std::string MClockQueue<ClientId, Request, Hash>::dump_json() const {
  std::string out = "{\"scheduler\":\"mclock\",\"queued\":" + std::to_string(queued_) +
                    ",\"in_flight\":" + std::to_string(in_flight_) +
                    ",\"max_in_flight\":" + std::to_string(max_in_flight_) + ",\"clients\":[";
  bool first = true;
  clients_.for_each([&](const Client& c) {
    if (!first) out += ",";
    first = false;
    out += "{\"id\":" + json_id(c.id) + ",\"reservation\":" + json_number(c.settings.reservation) +
           ",\"weight\":" + json_number(c.settings.weight) +
           ",\"limit\":" + json_number(c.settings.limit) + ",\"queued\":" +
           std::to_string(c.fifo.size()) + ",\"head\":";
    if (c.fifo.empty()) {
      out += "null}";
    } else {
      const MClockTags& t = c.fifo.front().tags;
      out += "{\"reservation\":" + json_number(t.reservation - c.reservation_offset) +
             ",\"proportion\":" + json_number(t.proportion) +
             ",\"limit\":" + json_number(t.limit) + "}}";
    }
  });
  return out + "]}";
}

}  // namespace erails::qbox
