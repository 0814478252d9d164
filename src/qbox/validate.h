#pragma once
// Range checks shared by the schedulers and the broker, so every entry point words its errors the
// same way.

#include <optional>
#include <string>

#include "common/error.h"
#include "qbox/seconds.h"

namespace erails::qbox {

// A share of device time: finite and in (0, 1].
std::optional<Error> check_utilization(double utilization);
// An estimated device time: finite and >= 0 seconds.
std::optional<Error> check_cost(Seconds cost);
// A rate (requests per second) named `field`: finite and > 0, or also 0 when `zero_allowed`.
std::optional<Error> check_rate(const char* field, double rate, bool zero_allowed);

}  // namespace erails::qbox
