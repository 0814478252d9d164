#pragma once
// The client bookkeeping QBoxQueue and MClockQueue share: clients registered by id, each holding
// the scheduler's own per-client state and a FIFO of its queued entries, kept in numbered slots so
// the schedulers' heaps can refer to a client by a small integer. A removed client's slot (and the
// capacity of its FIFO) is reused by the next registration, so churn does not grow the table.
//
// Costs: registration, removal and lookup are amortized O(1) (hash table from id to slot); a lookup
// allocates nothing. References to a client stay valid until the next add(), which may grow the
// slot vector.
//
// Preconditions on ClientId: hashable by Hash, equality-comparable, and printable with operator<<
// (error messages name the client). State and Entry: default-constructible, move-assignable.
// Not thread-safe: the owning queue serializes calls.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "qbox/client_fifo.h"
#include "common/error.h"

namespace erails::qbox {

template <class ClientId, class State, class Entry, class Hash = std::hash<ClientId>>
class ClientRegistry {
 public:
  // State's fields are members of Client so the schedulers read them directly.
  struct Client : State {
    ClientId id{};
    ClientFifo<Entry> fifo;
    bool registered = false;
  };

  static constexpr std::uint32_t kNoSlot = std::numeric_limits<std::uint32_t>::max();

  // Registers `id` with `state`. Error if `id` is already registered; the message ends with
  // `change_hint`, which tells how the scheduler changes a registered client.
  Status add(const ClientId& id, State state, const char* change_hint) {
    if (index_.count(id) != 0) {
      return client_error("client '", id, "' is already registered; ", change_hint);
    }
    std::uint32_t slot;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    }
    Client& client = slots_[slot];
    static_cast<State&>(client) = std::move(state);
    client.id = id;
    client.registered = true;
    index_.emplace(id, slot);
    return Ok{};
  }

  // Forgets `id`. Errors: unknown client; the client still has queued entries (the caller would
  // lose them).
  Status remove(const ClientId& id) {
    const auto it = index_.find(id);
    if (it == index_.end()) return unknown(id);
    Client& client = slots_[it->second];
    if (!client.fifo.empty()) {
      return client_error("client '", id, "' still has ", client.fifo.size(),
                          " queued requests; dequeue them before removing it");
    }
    client.registered = false;
    free_slots_.push_back(it->second);
    index_.erase(it);
    return Ok{};
  }

  // The slot of a registered client, or kNoSlot.
  std::uint32_t slot_of(const ClientId& id) const {
    const auto it = index_.find(id);
    return it == index_.end() ? kNoSlot : it->second;
  }

  // The slot of a registered client, or the error that names it unknown.
  Expected<std::uint32_t> find(const ClientId& id) const {
    const std::uint32_t slot = slot_of(id);
    if (slot == kNoSlot) return unknown(id);
    return slot;
  }

  // Precondition: `slot` was returned by add() or slot_of() and its client is still registered.
  Client& operator[](std::uint32_t slot) { return slots_[slot]; }
  const Client& operator[](std::uint32_t slot) const { return slots_[slot]; }

  std::size_t size() const { return index_.size(); }

  // Calls visit(const Client&) for each registered client in slot order.
  template <class Visit>
  void for_each(Visit&& visit) const {
    for (const Client& client : slots_) {
      if (client.registered) visit(client);
    }
  }

  static Error unknown(const ClientId& id) {
    return client_error("unknown client '", id, "'; register it with add_client first");
  }

 private:
  template <class... Parts>
  static Error client_error(const Parts&... parts) {
    std::ostringstream out;
    (out << ... << parts);
    return Error{"client", out.str()};
  }

  std::vector<Client> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::unordered_map<ClientId, std::uint32_t, Hash> index_;
};

}  // namespace erails::qbox
