#pragma once
// A device profile (thesis 6.1.2): completions counted per fixed interval while the device ran one
// request type at a time in isolation. From it the broker reads the throughput a request type
// sustains at a given granularity (window length) in all but the worst (1 - confidence) of windows.
//
// Text format, one record per line, '#' starts a comment:
//   qbox-device-profile 1
//   interval <seconds>                                  (exactly once, before any samples)
//   samples <read|write> <sequential|random> <bytes> <count> <count> ...
// Each `samples` line holds the completions of consecutive intervals for one request type; a type
// may appear on several lines, which are concatenated in order.

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "qbox/request_class.h"
#include "common/error.h"
#include "qbox/seconds.h"

namespace erails::qbox {

struct RequestType {
  RequestClass request_class;
  std::uint64_t size_bytes = 0;

  friend bool operator<(const RequestType& a, const RequestType& b) {
    return std::make_tuple(a.request_class.operation, a.request_class.access, a.size_bytes) <
           std::make_tuple(b.request_class.operation, b.request_class.access, b.size_bytes);
  }
};

std::string to_string(const RequestType& type);

class DeviceProfile {
 public:
  // Parses the text format above. Errors name the line number and the field.
  static Expected<DeviceProfile> parse(const std::string& text);

  Seconds interval() const { return interval_; }
  const std::map<RequestType, std::vector<double>>& samples() const { return samples_; }

  // Worst-case cost of one request of `type`: 1 / (the throughput that sliding windows of
  // `granularity` seconds reach with probability `confidence`). Errors: type not profiled,
  // granularity not a whole multiple of the interval or longer than the profile, confidence
  // outside (0, 1), zero throughput at that level.
  Expected<Seconds> worst_case_cost(const RequestType& type, Seconds granularity,
                                  double confidence) const;

 private:
  Seconds interval_ = 0;
  std::map<RequestType, std::vector<double>> samples_;
};

}  // namespace erails::qbox
