#pragma once
// What the controller dispatches to: a black box that takes requests and reports completions.
// Backends: a file or block device through Linux AIO with O_DIRECT (file_backend.h), a RADOS pool
// through librados aio (rados_backend.h), a simulated device (sim_backend.h).

#include <cstdint>
#include <optional>
#include <vector>

#include "qbox/request_class.h"
#include "common/error.h"
#include "qbox/seconds.h"

namespace erails::qbox {

struct BackendRequest {
  Operation operation = Operation::read;
  std::uint64_t offset = 0;  // bytes
  std::uint32_t length = 0;  // bytes, > 0
  std::uint64_t token = 0;   // returned unchanged in the completion
};

struct BackendCompletion {
  std::uint64_t token = 0;
  Seconds completed_at = 0;
  int result = 0;  // bytes transferred, or -errno
  // Device time the request itself occupied, when the backend can know it (simulated devices);
  // used only to evaluate the scheduler, never by it.
  std::optional<Seconds> service_time;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // Starts `request` at `now`. An error leaves nothing in flight.
  virtual Status submit(const BackendRequest& request, Seconds now) = 0;
  // Appends every completion that has happened by `now`.
  virtual void collect(Seconds now, std::vector<BackendCompletion>& out) = 0;
  // When the next completion will happen, for backends that know (simulated devices); callers
  // driving simulated time advance to it. Real backends do not know.
  virtual std::optional<Seconds> next_completion() const { return std::nullopt; }
  // Blocks up to `timeout` seconds until a completion may be ready (real backends only).
  virtual void wait(Seconds timeout) = 0;
};

}  // namespace erails::qbox
