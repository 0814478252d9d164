// Our declaration of the Ceph OSD op scheduler interface, written from the facts measured on
// Debian's ceph-osd (doc/dev/ceph-abi.md, "Replacing the OSD's op scheduler"). Nothing here is
// linked by name: the OSD reaches a scheduler only through its vtable, and the items only through
// their layout and their own vtable, so these types live in our namespace. The layouts here are
// those of every checked build; what differs is in the build's folder. Every layout is pinned to
// the builds on the allow-list (src/qbox_osd/CMakeLists.txt).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>

namespace erails::ceph_osd {

// The OSD's op item payload (OpQueueable): polymorphic, owned through the item's pointer; its
// vtable slots are the build's (ceph_abi/this_build/op_scheduler.h).
struct OpQueueable;

// 40 bytes, move-only in Ceph: the OSD moves it in through enqueue(&&) and destroys what it
// moved from, so whoever takes the item must null `qitem` in the source.
struct OpSchedulerItem {
  OpQueueable* qitem;        // +0  unique_ptr<OpQueueable>
  std::int32_t cost;         // +8  bytes written; 0 for reads
  std::uint32_t priority;    // +12
  std::uint32_t start_sec;   // +16 utime_t
  std::uint32_t start_nsec;  // +20
  std::uint64_t owner;       // +24 client global id, or the sending OSD for sub-ops
  std::uint32_t map_epoch;   // +32
  std::uint32_t qos_cost;    // +36 padding in 16.2.15, mClock's cost in 18.2.7: carried as is
};
static_assert(sizeof(OpSchedulerItem) == 40, "OpSchedulerItem is 40 bytes");
static_assert(offsetof(OpSchedulerItem, owner) == 24, "owner at +24");

// What dequeue() returns: std::variant<std::monostate, OpSchedulerItem, double>, 48 bytes, the
// alternative's index in the byte at +40. Returned through a hidden pointer (it is > 16 bytes).
struct WorkItem {
  static constexpr std::uint8_t kNothing = 0;
  static constexpr std::uint8_t kItem = 1;
  // A double in `storage`: the time to ask again, as seconds of the real (wall) clock since the
  // epoch; the shard's thread waits until then or until an op is enqueued (doc/dev/ceph-abi.md).
  static constexpr std::uint8_t kRetryAt = 2;
  alignas(8) unsigned char storage[40];
  std::uint8_t index;
  unsigned char padding[7];
  // Non-trivial, so no compiler could pass it in registers whatever its size.
  ~WorkItem() {}
};
static_assert(sizeof(WorkItem) == 48, "WorkItem is 48 bytes");

// Opaque: written to only through the two exported functions below.
struct Formatter;

// encode_json(const char* name, unsigned long value, ceph::Formatter*) and its const char* value
// twin, exported by libceph-common (loaded by ceph-osd): each writes one named field with the
// formatter's own dump_unsigned/dump_string, so `dump` need not know the Formatter's vtable.
inline constexpr const char* kEncodeJsonUnsignedSymbol = "_Z11encode_jsonPKcmPN4ceph9FormatterE";
inline constexpr const char* kEncodeJsonStringSymbol = "_Z11encode_jsonPKcS0_PN4ceph9FormatterE";
using EncodeJsonUnsigned = void (*)(const char* name, unsigned long value, Formatter* formatter);
using EncodeJsonString = void (*)(const char* name, const char* value, Formatter* formatter);

// The scheduler's first seven vtable slots, the same on every checked build: +0x00 enqueue,
// +0x08 enqueue_front, +0x10 empty, +0x18 dequeue, +0x20 dump, +0x28 print,
// +0x30 update_configuration. Each build's OpScheduler derives from it and appends its own slots
// (destructors last), which the Itanium ABI places after these. One instance per shard; the shard
// calls it under its shard lock, dequeue only when !empty().
class OpSchedulerCommonSlots {
 public:
  virtual void enqueue(OpSchedulerItem&& item) = 0;
  virtual void enqueue_front(OpSchedulerItem&& item) = 0;
  virtual bool empty() const = 0;
  virtual WorkItem dequeue() = 0;
  virtual void dump(Formatter& formatter) const = 0;
  virtual void print(std::ostream& out) const = 0;
  virtual void update_configuration() = 0;

 protected:
  ~OpSchedulerCommonSlots() = default;
};

class OpScheduler;
// What a replacement of make_scheduler needs of its arguments: the daemon's CephContext* and how
// many shards the OSD has.
using CreateScheduler = OpScheduler* (*)(void* cct, unsigned num_shards);

}  // namespace erails::ceph_osd

// The rest of the scheduler's vtable, the payload's slots and make_scheduler, whose forms differ
// by build.
#include "ceph_abi/this_build/op_scheduler.h"
