#include "qbox/backends/rados_backend.h"

#include <rados/librados.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <vector>

#include "qbox/backends/slot_pool.h"

namespace erails::qbox {
namespace {

std::string object_name(std::uint64_t index) { return "qbox." + std::to_string(index); }

Error rados_error(const std::string& call, int rc) { return Error{call, std::strerror(-rc)}; }

}  // namespace

struct RadosBackend::State {
  struct Slot {
    State* owner = nullptr;
    unsigned index = 0;
    librados::AioCompletion* completion = nullptr;
    librados::bufferlist data;
    std::uint64_t token = 0;
    std::uint32_t length = 0;
  };

  static void on_complete(librados::completion_t, void* arg) {
    Slot* slot = static_cast<Slot*>(arg);
    State* state = slot->owner;
    {
      std::lock_guard<std::mutex> lock(state->mutex);
      state->done.push_back(slot->index);
    }
    state->ready.notify_one();
  }

  explicit State(unsigned depth) : slot_pool(depth) {}

  ~State() {
    // Every callback must have run before the slots they point to go away.
    for (Slot& slot : slots) {
      if (slot.completion != nullptr) {
        slot.completion->wait_for_complete();
        slot.completion->release();
      }
    }
    io.close();
    if (connected) cluster.shutdown();
  }

  RadosBackendConfig config;
  librados::Rados cluster;
  librados::IoCtx io;
  bool connected = false;
  std::vector<Slot> slots;
  SlotPool slot_pool;
  std::vector<char> pattern;  // write payload
  std::mutex mutex;
  std::condition_variable ready;
  std::vector<unsigned> done;  // guarded by mutex
  std::vector<unsigned> draining;
};

RadosBackend::RadosBackend(std::unique_ptr<State> state) : state_(std::move(state)) {}
RadosBackend::~RadosBackend() = default;

std::uint64_t RadosBackend::capacity_bytes() const {
  return state_->config.object_size * state_->config.objects;
}

Expected<std::unique_ptr<RadosBackend>> RadosBackend::open(const RadosBackendConfig& config) {
  if (config.pool.empty()) return Error{"pool", "must name an existing pool"};
  if (config.object_size < (64u << 10) || config.object_size > (64u << 20) ||
      config.object_size % 4096 != 0) {
    return Error{"object_size", "must be a multiple of 4096 in 65536..67108864"};
  }
  if (config.objects < 1 || config.objects > 65536) return Error{"objects", "must be 1..65536"};
  if (auto bad = SlotPool::check_depth(config.queue_depth)) return *bad;
  auto state = std::make_unique<State>(config.queue_depth);
  state->config = config;
  if (int rc = state->cluster.init2(config.client_name.c_str(), "ceph", 0); rc < 0) {
    return rados_error("init2(" + config.client_name + ")", rc);
  }
  if (int rc = state->cluster.conf_read_file(config.conf_path.empty() ? nullptr : config.conf_path.c_str());
      rc < 0) {
    return rados_error("conf_read_file(" + config.conf_path + ")", rc);
  }
  if (int rc = state->cluster.connect(); rc < 0) return rados_error("connect", rc);
  state->connected = true;
  if (int rc = state->cluster.ioctx_create(config.pool.c_str(), state->io); rc < 0) {
    return rados_error("pool '" + config.pool + "'", rc);
  }
  state->pattern.assign(config.object_size, 0x51);
  for (std::uint64_t k = 0; k < config.objects; ++k) {
    std::uint64_t size = 0;
    time_t mtime = 0;
    if (state->io.stat(object_name(k), &size, &mtime) == 0 && size >= config.object_size) continue;
    librados::bufferlist whole;
    whole.append(state->pattern.data(), config.object_size);
    if (int rc = state->io.write_full(object_name(k), whole); rc < 0) {
      return rados_error("write_full(" + object_name(k) + ")", rc);
    }
  }
  state->slots.resize(config.queue_depth);
  for (unsigned k = 0; k < config.queue_depth; ++k) {
    state->slots[k].owner = state.get();
    state->slots[k].index = k;
  }
  return std::unique_ptr<RadosBackend>(new RadosBackend(std::move(state)));
}

Status RadosBackend::submit(const BackendRequest& request, Seconds /*now*/) {
  State& s = *state_;
  const std::uint64_t object = request.offset / s.config.object_size;
  const std::uint64_t within = request.offset % s.config.object_size;
  if (request.length == 0) return Error{"length", "must be > 0 bytes"};
  if (object >= s.config.objects) return Error{"offset", "beyond the pool's objects"};
  // A request that would cross into the next object is cut at the object's end (its completion
  // reports the bytes actually moved): one RADOS op per request keeps the black box's request
  // count equal to the controller's.
  const auto length = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(request.length, s.config.object_size - within));
  const auto taken = s.slot_pool.take();
  if (!taken) return taken.error();
  State::Slot& slot = s.slots[taken.value()];
  slot.token = request.token;
  slot.length = length;
  slot.data.clear();
  slot.completion = librados::Rados::aio_create_completion(&slot, &State::on_complete);
  int rc;
  if (request.operation == Operation::read) {
    rc = s.io.aio_read(object_name(object), slot.completion, &slot.data, length, within);
  } else {
    slot.data.append(s.pattern.data(), length);
    rc = s.io.aio_write(object_name(object), slot.completion, slot.data, length, within);
  }
  if (rc < 0) {
    slot.completion->release();
    slot.completion = nullptr;
    s.slot_pool.release(taken.value());
    return rados_error(request.operation == Operation::read ? "aio_read" : "aio_write", rc);
  }
  return Ok{};
}

void RadosBackend::collect(Seconds now, std::vector<BackendCompletion>& out) {
  State& s = *state_;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.draining.swap(s.done);
  }
  for (const unsigned index : s.draining) {
    State::Slot& slot = s.slots[index];
    int rc = slot.completion->get_return_value();
    // Reads return the bytes read; writes return 0 on success.
    if (rc == 0) rc = static_cast<int>(slot.length);
    slot.completion->release();
    slot.completion = nullptr;
    out.push_back(BackendCompletion{slot.token, now, rc, std::nullopt});
    s.slot_pool.release(index);
  }
  s.draining.clear();
}

void RadosBackend::wait(Seconds timeout) {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mutex);
  if (!s.done.empty() || s.slot_pool.idle()) return;
  s.ready.wait_for(lock, std::chrono::duration<double>(timeout), [&] { return !s.done.empty(); });
}

}  // namespace erails::qbox
