#include "qbox_osd/osd_scheduler.h"

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <utility>

#include "ceph_abi/checked_build.h"
#include "qbox/shard_queue.h"
#include "qbox_osd/admin_commands.h"
#include "qbox_osd/retry_waiters.h"

namespace erails::qbox_osd {
namespace {

using ceph_osd::OpQueueable;
using ceph_osd::OpSchedulerItem;
using ceph_osd::WorkItem;

const auto kLoaded = std::chrono::steady_clock::now();

std::unique_ptr<OsdState> g_state;
std::once_flag g_state_once;
std::string g_build_id;

template <class Result, std::size_t Slot>
Result call_slot(const OpQueueable* op) {
  auto* const* vtable = *reinterpret_cast<void* const* const*>(op);
  return reinterpret_cast<Result (*)(const OpQueueable*)>(vtable[Slot])(op);
}

// An OpSchedulerItem held by us: moved out of the OSD's item (whose pointer is then null, so the
// OSD's destructor of it frees nothing) and moved back into the WorkItem dequeue returns.
class HeldItem {
 public:
  HeldItem() { std::memset(&raw_, 0, sizeof raw_); }
  explicit HeldItem(OpSchedulerItem& from) : raw_(from) { from.qitem = nullptr; }
  HeldItem(HeldItem&& other) noexcept : raw_(other.raw_) { other.raw_.qitem = nullptr; }
  HeldItem& operator=(HeldItem&& other) noexcept {
    if (this != &other) {
      release();
      raw_ = other.raw_;
      other.raw_.qitem = nullptr;
    }
    return *this;
  }
  HeldItem(const HeldItem&) = delete;
  HeldItem& operator=(const HeldItem&) = delete;
  ~HeldItem() { release(); }

  void move_into(WorkItem& work) {
    std::memcpy(work.storage, &raw_, sizeof raw_);
    work.index = WorkItem::kItem;
    raw_.qitem = nullptr;
  }

 private:
  void release() {
    if (raw_.qitem != nullptr) {
      call_slot<void, ceph_osd::kOpQueueableDeletingDtorSlot>(raw_.qitem);
      raw_.qitem = nullptr;
    }
  }
  OpSchedulerItem raw_;
};

qbox::OpTraits traits_of(const OpSchedulerItem& item) {
  return qbox::op_traits(
      call_slot<std::uint8_t, ceph_osd::kOpQueueableSchedulerClassSlot>(item.qitem), item.owner,
      item.cost, call_slot<bool, ceph_osd::kOpQueueableIsPeeringSlot>(item.qitem),
      ceph_osd::kRecoveryCostIsALength);
}

// How completions are observed: a shard thread comes back to its scheduler (empty() or
// dequeue()) only after it has run the op it took last, so the time between a thread's dequeue
// and its next call is that op's run(). Reads run synchronously in run(); writes only submit
// their transaction (doc/dev/qbox-in-osd.md says what that means for their cost).
struct ThreadOp {
  const void* scheduler = nullptr;
  qbox::RunningOp op;
};
thread_local ThreadOp t_running;

std::atomic<std::uint64_t> g_threads_named{0};
thread_local const std::uint64_t t_thread = ++g_threads_named;

class QBoxOpScheduler final : public ceph_osd::OpScheduler {
 public:
  explicit QBoxOpScheduler(OsdState& state) : state_(state), queue_(state.shares) {}

  void enqueue(OpSchedulerItem&& item) override {
    const qbox::OpTraits traits = traits_of(item);
    queue_.enqueue(HeldItem(item), traits, now());
    ++enqueues_;
  }
  void enqueue_front(OpSchedulerItem&& item) override {
    const qbox::OpTraits traits = traits_of(item);
    queue_.enqueue_front(HeldItem(item), traits, now());
    ++enqueues_;
  }
  // A thread that polls a retry time is told "empty" while only held ops are queued, so that it
  // sleeps instead (retry_waiters.h).
  bool empty() const override {
    finish_running();
    const qbox::Seconds at = now();
    waiters_.on_call(t_thread, at, enqueues_);
    if (queue_.empty()) return true;
    return waiters_.may_sleep(t_thread) && queue_.only_held(at);
  }
  WorkItem dequeue() override {
    finish_running();
    WorkItem work;
    work.index = WorkItem::kNothing;
    const qbox::Seconds at = now();
    waiters_.on_call(t_thread, at, enqueues_);
    auto next = queue_.dequeue(at, waiters_.may_hold(t_thread));
    if (next) {
      next->op.move_into(work);
      t_running = {this, next->running};
    } else if (const auto until = queue_.held_until()) {
      waiters_.on_retry(t_thread, at, *until, enqueues_);
      const double wall = std::chrono::duration<double>(
                              std::chrono::system_clock::now().time_since_epoch()).count();
      const double retry_at = wall + (*until - at);
      std::memcpy(work.storage, &retry_at, sizeof retry_at);
      work.index = WorkItem::kRetryAt;
    }
    return work;
  }
  // `ceph daemon osd.N dump_op_pq_state`: what this shard holds now; `qbox status` has the rest.
  void dump(ceph_osd::Formatter& formatter) const override {
    static const auto put_unsigned = reinterpret_cast<ceph_osd::EncodeJsonUnsigned>(
        dlsym(RTLD_DEFAULT, ceph_osd::kEncodeJsonUnsignedSymbol));
    static const auto put_string = reinterpret_cast<ceph_osd::EncodeJsonString>(
        dlsym(RTLD_DEFAULT, ceph_osd::kEncodeJsonStringSymbol));
    if (put_unsigned == nullptr || put_string == nullptr) return;
    put_string("scheduler", "qbox", &formatter);
    put_unsigned("table_epoch", state_.shares.table_epoch(), &formatter);
    put_unsigned("queued", queue_.size(), &formatter);
    put_unsigned("queued_immediate", queue_.immediate_size(), &formatter);
    put_unsigned("polling_threads", waiters_.polling_threads(), &formatter);
    put_string("queue", queue_.queue_json().c_str(), &formatter);
    put_string("write_lead", queue_.write_lead_json(now()).c_str(), &formatter);
  }
  void print(std::ostream& out) const override { out << "QBoxScheduler"; }
  void update_configuration() override {}

 private:
  void finish_running() const {
    if (t_running.scheduler != this) return;
    t_running.scheduler = nullptr;
    queue_.complete(t_running.op, now());
  }

  OsdState& state_;
  // empty() is const in the OpScheduler ABI, yet it is where a thread whose shard has nothing
  // more reports the op it ran: that completion charges the op's account in this queue.
  mutable qbox::ShardQueue<HeldItem> queue_;
  std::uint64_t enqueues_ = 0;
  mutable RetryWaiters waiters_;
};

}  // namespace

qbox::Seconds now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - kLoaded).count();
}

OsdState* osd_state() { return g_state.get(); }

void set_build_id(const std::string& build_id) { g_build_id = build_id; }

ceph_osd::OpScheduler* create_qbox_scheduler(void* cct, unsigned num_shards) {
  std::call_once(g_state_once, [&] {
    g_state = std::make_unique<OsdState>(qbox::OsdSharesConfig{}, now());
    g_state->header = {"active", "", erails::ceph_build::kVersion, g_build_id, num_shards};
    register_admin_commands(cct);
  });
  return new QBoxOpScheduler(*g_state);
}

}  // namespace erails::qbox_osd
