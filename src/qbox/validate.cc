#include "qbox/validate.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace erails::qbox {
namespace {

std::string show(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

}  // namespace

std::optional<Error> check_utilization(double utilization) {
  if (std::isfinite(utilization) && utilization > 0 && utilization <= 1) return std::nullopt;
  return Error{"utilization", "must be a fraction of device time in (0, 1], got " + show(utilization)};
}

std::optional<Error> check_cost(Seconds cost) {
  if (std::isfinite(cost) && cost >= 0) return std::nullopt;
  return Error{"cost", "must be a finite device time >= 0 seconds, got " + show(cost)};
}

std::optional<Error> check_rate(const char* field, double rate, bool zero_allowed) {
  if (std::isfinite(rate) && (rate > 0 || (zero_allowed && rate == 0))) return std::nullopt;
  return Error{field, std::string("must be a finite rate ") + (zero_allowed ? ">= 0" : "> 0") +
                          " requests/s, got " + show(rate)};
}

}  // namespace erails::qbox
