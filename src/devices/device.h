// The device interface the simulator, and the QBox reproductions, drive.
//
// A device is a deterministic function of the requests submitted to it: submit() is told the
// time a request reaches the device and returns the time it completes. Requests are served in
// submission order (the model's queue), so callers must submit in nondecreasing `now`; a device
// never reads a clock. This interface is stable: add fields, do not change meanings.
#pragma once

#include <cstdint>
#include <string>

#include "common/operation.h"

namespace erails::devices {

struct IoRequest {
  Operation operation = Operation::read;
  uint64_t offset = 0;  // bytes from the start of the device; wrapped into capacity by the model
  uint32_t bytes = 0;   // > 0
};

struct IoResult {
  double completion = 0;   // seconds, >= the submit time
  double gc_wait = 0;      // part of the request's time spent waiting on garbage collection (SSD)
};

struct DeviceStats {
  uint64_t reads = 0, writes = 0;
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t gc_events = 0;         // blocking garbage-collection events
  double gc_blocked_seconds = 0;  // device time spent blocked in garbage collection
  double busy_seconds = 0;        // device time spent serving requests (excluding GC)
};

class Device {
 public:
  virtual ~Device() = default;
  // Precondition: now >= the `now` of every earlier call; req.bytes > 0.
  virtual IoResult submit(double now, const IoRequest& req) = 0;
  // Time at which everything submitted so far has completed.
  virtual double drained_at() const = 0;
  virtual const DeviceStats& stats() const = 0;
  virtual std::string describe() const = 0;
};

}  // namespace erails::devices
