// The queue in front of one simulated data device when a QoS scheduler is configured: the QBox
// library's own Scheduler (qbox/scheduler.h), linked, not copied, with every stream a client.
//
// The simulation enqueues every request bound for the device with the stream that caused it and
// the request's price, dequeues while the queue allows (at most dispatch_depth in flight), submits
// what it gets to the device model, and reports each completion. `now` is always the simulator's
// clock; nothing here reads a clock.
#pragma once

#include <cstdint>
#include <memory>

#include "qbox/scheduler.h"
#include "sim/config.h"

namespace erails::sim {

// Precondition: config validated, config.scheduler set. With cost_source estimator, the scheduler
// runs QBox's estimator on the device's dispatches and completions.
std::unique_ptr<qbox::Scheduler> make_device_scheduler(const SimConfig& config);

// The device time the profile gives a request of `bytes` bytes (read_cost or write_cost per 4 KiB):
// what qbox prices it at until the estimator has seen its class.
double profiled_cost(const SimConfig& config, qbox::RequestClass request_class, uint32_t bytes);

}  // namespace erails::sim
