#include "qbox/backends/file_backend.h"

#include <fcntl.h>
#include <libaio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <vector>

#include "qbox/backends/slot_pool.h"

namespace erails::qbox {
namespace {

constexpr std::uint64_t kAlignment = 4096;

Error system_error(const std::string& call, int error) {
  return Error{call, std::strerror(error)};
}

}  // namespace

struct FileBackend::State {
  explicit State(unsigned depth) : slots(depth) {}

  int fd = -1;
  io_context_t context{};
  bool context_ready = false;
  std::uint64_t size = 0;
  std::uint32_t max_request = 0;
  std::vector<iocb> control_blocks;
  std::vector<void*> buffers;
  std::vector<std::uint64_t> tokens;  // per slot
  SlotPool slots;
  std::vector<io_event> events;
  std::vector<io_event> waited;  // events taken by wait(), handed out by the next collect()
  std::size_t waited_count = 0;

  ~State() {
    if (context_ready) io_destroy(context);
    for (void* b : buffers) std::free(b);
    if (fd >= 0) ::close(fd);
  }
};

FileBackend::FileBackend(std::unique_ptr<State> state) : state_(std::move(state)) {}
FileBackend::~FileBackend() = default;

std::uint64_t FileBackend::capacity_bytes() const { return state_->size; }

Expected<std::unique_ptr<FileBackend>> FileBackend::open(const FileBackendConfig& config) {
  if (config.path.empty()) return Error{"path", "must name a file or block device"};
  if (auto bad = SlotPool::check_depth(config.queue_depth)) return *bad;
  if (config.max_request_bytes == 0 || config.max_request_bytes % kAlignment != 0) {
    return Error{"max_request_bytes", "must be a positive multiple of 4096"};
  }
  auto state = std::make_unique<State>(config.queue_depth);
  state->fd = ::open(config.path.c_str(), O_RDWR | O_CREAT | O_DIRECT, 0600);
  if (state->fd < 0) {
    return Error{"path", config.path + ": " + std::strerror(errno) +
                             " (O_DIRECT needs a filesystem that supports it, not tmpfs)"};
  }
  struct stat info {};
  if (fstat(state->fd, &info) != 0) return system_error("fstat", errno);
  if (S_ISBLK(info.st_mode)) {
    std::uint64_t bytes = 0;
    if (ioctl(state->fd, BLKGETSIZE64, &bytes) != 0) return system_error("ioctl(BLKGETSIZE64)", errno);
    state->size = bytes;
  } else {
    if (config.size_bytes == 0 || config.size_bytes % kAlignment != 0) {
      return Error{"size_bytes", "must be a positive multiple of 4096 for a regular file"};
    }
    if (static_cast<std::uint64_t>(info.st_size) < config.size_bytes) {
      // Write real data: extents that were only allocated read back as zeros without touching the
      // device, which would make every read look free.
      void* chunk = nullptr;
      constexpr std::size_t kChunk = 1 << 20;
      if (posix_memalign(&chunk, kAlignment, kChunk) != 0) return Error{"size_bytes", "out of memory"};
      std::memset(chunk, 0x51, kChunk);
      std::uint64_t offset = static_cast<std::uint64_t>(info.st_size) / kAlignment * kAlignment;
      while (offset < config.size_bytes) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, config.size_bytes - offset));
        const ssize_t written = pwrite(state->fd, chunk, n, static_cast<off_t>(offset));
        if (written <= 0) {
          const int error = written < 0 ? errno : ENOSPC;
          std::free(chunk);
          return system_error("pwrite (filling " + config.path + ")", error);
        }
        offset += static_cast<std::uint64_t>(written);
      }
      std::free(chunk);
      if (fdatasync(state->fd) != 0) return system_error("fdatasync", errno);
    }
    state->size = config.size_bytes;
  }
  if (const int rc = io_setup(static_cast<int>(config.queue_depth), &state->context); rc < 0) {
    return system_error("io_setup", -rc);
  }
  state->context_ready = true;
  state->max_request = config.max_request_bytes;
  state->control_blocks.resize(config.queue_depth);
  state->tokens.resize(config.queue_depth);
  state->events.resize(config.queue_depth);
  state->waited.resize(config.queue_depth);
  for (unsigned slot = 0; slot < config.queue_depth; ++slot) {
    void* buffer = nullptr;
    if (posix_memalign(&buffer, kAlignment, config.max_request_bytes) != 0) {
      return Error{"max_request_bytes", "cannot allocate aligned buffers of that size"};
    }
    // Writes carry a recognizable pattern instead of uninitialized memory.
    std::memset(buffer, 0x51, config.max_request_bytes);
    state->buffers.push_back(buffer);
  }
  return std::unique_ptr<FileBackend>(new FileBackend(std::move(state)));
}

Status FileBackend::submit(const BackendRequest& request, Seconds /*now*/) {
  State& s = *state_;
  if (request.offset % kAlignment != 0 || request.length % kAlignment != 0 || request.length == 0) {
    return Error{"offset", "offset and length must be multiples of 4096 for O_DIRECT"};
  }
  if (request.length > s.max_request) {
    return Error{"length", "longer than max_request_bytes (" + std::to_string(s.max_request) + ")"};
  }
  if (request.offset + request.length > s.size) {
    return Error{"offset", "request ends beyond the device (" + std::to_string(s.size) + " bytes)"};
  }
  const auto taken = s.slots.take();
  if (!taken) return taken.error();
  const unsigned slot = taken.value();
  iocb* block = &s.control_blocks[slot];
  if (request.operation == Operation::read) {
    io_prep_pread(block, s.fd, s.buffers[slot], request.length, static_cast<long long>(request.offset));
  } else {
    io_prep_pwrite(block, s.fd, s.buffers[slot], request.length, static_cast<long long>(request.offset));
  }
  block->data = reinterpret_cast<void*>(static_cast<std::uintptr_t>(slot));
  iocb* list[1] = {block};
  const int rc = io_submit(s.context, 1, list);
  if (rc != 1) {
    s.slots.release(slot);
    return system_error("io_submit", rc < 0 ? -rc : EAGAIN);
  }
  s.tokens[slot] = request.token;
  return Ok{};
}

void FileBackend::collect(Seconds now, std::vector<BackendCompletion>& out) {
  State& s = *state_;
  auto hand_out = [&](const io_event& event) {
    const auto slot = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(event.data));
    const long result = static_cast<long>(event.res);
    out.push_back(BackendCompletion{s.tokens[slot], now, static_cast<int>(result), std::nullopt});
    s.slots.release(slot);
  };
  for (std::size_t k = 0; k < s.waited_count; ++k) hand_out(s.waited[k]);
  s.waited_count = 0;
  timespec zero{0, 0};
  const int n = io_getevents(s.context, 0, static_cast<long>(s.events.size()), s.events.data(), &zero);
  for (int k = 0; k < n; ++k) hand_out(s.events[k]);
}

void FileBackend::wait(Seconds timeout) {
  State& s = *state_;
  if (s.slots.idle() || s.waited_count > 0) return;
  timespec limit{static_cast<time_t>(timeout),
                 static_cast<long>((timeout - std::floor(timeout)) * 1e9)};
  const int n = io_getevents(s.context, 1, static_cast<long>(s.waited.size()), s.waited.data(), &limit);
  if (n > 0) s.waited_count = static_cast<std::size_t>(n);
}

}  // namespace erails::qbox
