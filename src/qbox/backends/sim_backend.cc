#include "qbox/backends/sim_backend.h"

#include <algorithm>

#include "devices/hdd.h"
#include "devices/ssd.h"

namespace erails::qbox {

SimBackend::SimBackend(std::unique_ptr<erails::devices::Device> device, int units, std::uint64_t capacity)
    : device_(std::move(device)), unit_free_(static_cast<std::size_t>(units), 0.0), capacity_(capacity) {}

Expected<std::unique_ptr<SimBackend>> SimBackend::hdd(int ncq, double capacity_bytes,
                                                     double time_scale) {
  erails::devices::HddParams params;
  params.ncq_depth = ncq;
  params.time_scale = time_scale;
  if (capacity_bytes > 0) params.capacity_bytes = capacity_bytes;
  if (const Status valid = erails::devices::validate(params); !valid.ok()) {
    return Error{"hdd", valid.error().message};
  }
  const auto capacity = static_cast<std::uint64_t>(params.capacity_bytes) / 4096 * 4096;
  return std::unique_ptr<SimBackend>(
      new SimBackend(std::make_unique<erails::devices::HddModel>(params), 1, capacity));
}

Expected<std::unique_ptr<SimBackend>> SimBackend::ssd(double capacity_bytes, double time_scale) {
  erails::devices::SsdParams params;
  params.time_scale = time_scale;
  if (capacity_bytes > 0) params.capacity_bytes = capacity_bytes;
  if (const Status valid = erails::devices::validate(params); !valid.ok()) {
    return Error{"ssd", valid.error().message};
  }
  const auto capacity = static_cast<std::uint64_t>(params.capacity_bytes) / 4096 * 4096;
  return std::unique_ptr<SimBackend>(
      new SimBackend(std::make_unique<erails::devices::SsdModel>(params), params.parallelism, capacity));
}

Status SimBackend::submit(const BackendRequest& request, Seconds now) {
  if (request.length == 0) return Error{"length", "must be > 0 bytes"};
  if (request.offset + request.length > capacity_) {
    return Error{"offset", "request ends beyond the simulated device"};
  }
  erails::devices::IoRequest io;
  io.operation = request.operation;
  io.offset = request.offset;
  io.bytes = request.length;
  const erails::devices::IoResult result = device_->submit(now, io);
  auto earliest = std::min_element(unit_free_.begin(), unit_free_.end());
  const Seconds start = std::max(now, *earliest);
  *earliest = result.completion;
  const Seconds service = (result.completion - start) / static_cast<double>(unit_free_.size());
  pending_.push(Pending{result.completion, request.token, service, static_cast<int>(request.length)});
  return Ok{};
}

void SimBackend::collect(Seconds now, std::vector<BackendCompletion>& out) {
  while (!pending_.empty() && pending_.top().at <= now) {
    const Pending& done = pending_.top();
    out.push_back(BackendCompletion{done.token, done.at, done.bytes, done.service});
    pending_.pop();
  }
}

std::optional<Seconds> SimBackend::next_completion() const {
  if (pending_.empty()) return std::nullopt;
  return pending_.top().at;
}

}  // namespace erails::qbox
