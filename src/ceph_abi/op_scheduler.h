// Our declaration of the Ceph 16.2.15 OSD op scheduler interface, written from the facts measured
// on Debian's ceph-osd (doc/dev/ceph-abi.md, "Replacing the OSD's op scheduler"). Nothing here is
// linked by name: the OSD reaches a scheduler only through its vtable, and the items only through
// their layout and their own vtable, so these types live in our namespace. Every layout below is
// pinned to the builds on the allow-list (src/qbox_osd/CMakeLists.txt).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>

namespace erails::ceph_osd {

// The OSD's op item payload (OpQueueable): polymorphic, owned through the item's pointer. Only
// the vtable slots we call are named.
struct OpQueueable;
inline constexpr std::size_t kOpQueueableSchedulerClassSlot = 11;  // uint8 op_scheduler_class()
inline constexpr std::size_t kOpQueueableDeletingDtorSlot = 13;

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
};
static_assert(sizeof(OpSchedulerItem) == 40, "OpSchedulerItem is 40 bytes in 16.2.15");
static_assert(offsetof(OpSchedulerItem, owner) == 24, "owner at +24 in 16.2.15");

// What dequeue() returns: std::variant<std::monostate, OpSchedulerItem, double>, 48 bytes, the
// alternative's index in the byte at +40. Returned through a hidden pointer (it is > 16 bytes).
struct WorkItem {
  static constexpr std::uint8_t kNothing = 0;
  static constexpr std::uint8_t kItem = 1;
  alignas(8) unsigned char storage[40];
  std::uint8_t index;
  unsigned char padding[7];
  // Non-trivial, so no compiler could pass it in registers whatever its size.
  ~WorkItem() {}
};
static_assert(sizeof(WorkItem) == 48, "WorkItem is 48 bytes in 16.2.15");

// Opaque: written to only through the two exported functions below.
struct Formatter;

// encode_json(const char* name, unsigned long value, ceph::Formatter*) and its const char* value
// twin, exported by libceph-common (loaded by ceph-osd): each writes one named field with the
// formatter's own dump_unsigned/dump_string, so `dump` need not know the Formatter's vtable.
inline constexpr const char* kEncodeJsonUnsignedSymbol = "_Z11encode_jsonPKcmPN4ceph9FormatterE";
inline constexpr const char* kEncodeJsonStringSymbol = "_Z11encode_jsonPKcS0_PN4ceph9FormatterE";
using EncodeJsonUnsigned = void (*)(const char* name, unsigned long value, Formatter* formatter);
using EncodeJsonString = void (*)(const char* name, const char* value, Formatter* formatter);

// The scheduler's vtable, slot for slot: +0x00 enqueue, +0x08 enqueue_front, +0x10 empty,
// +0x18 dequeue, +0x20 dump, +0x28 print, +0x30 update_configuration, +0x38/+0x40 destructors.
// One instance per shard; the shard calls it under its shard lock, dequeue only when !empty().
class OpScheduler {
 public:
  virtual void enqueue(OpSchedulerItem&& item) = 0;
  virtual void enqueue_front(OpSchedulerItem&& item) = 0;
  virtual bool empty() const = 0;
  virtual WorkItem dequeue() = 0;
  virtual void dump(Formatter& formatter) const = 0;
  virtual void print(std::ostream& out) const = 0;
  virtual void update_configuration() = 0;
  virtual ~OpScheduler() = default;
};

// ceph::osd::scheduler::make_scheduler(CephContext*, unsigned num_shards, bool is_rotational),
// exported by ceph-osd only. It returns std::unique_ptr<OpScheduler> through the hidden pointer
// in %rdi and gives it back in %rax: the same registers as this plain function.
inline constexpr const char* kMakeSchedulerSymbol =
    "_ZN4ceph3osd9scheduler14make_schedulerEPNS_6common11CephContextEjb";
using MakeScheduler = OpScheduler** (*)(OpScheduler** result, void* cct, unsigned num_shards,
                                        bool is_rotational);

}  // namespace erails::ceph_osd
