#include "qbox/device_profile.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/number.h"

namespace erails::qbox {
namespace {

Error at_line(std::size_t line, const std::string& field, const std::string& message) {
  return Error{"line " + std::to_string(line) + ": " + field, message};
}

}  // namespace

std::string to_string(const RequestType& type) {
  return std::string(to_string(type.request_class.operation)) + " " +
         to_string(type.request_class.access) + " " + std::to_string(type.size_bytes) + " bytes";
}

Expected<DeviceProfile> DeviceProfile::parse(const std::string& text) {
  DeviceProfile profile;
  std::istringstream lines(text);
  std::string line;
  std::size_t number = 0;
  bool header = false;
  while (std::getline(lines, line)) {
    ++number;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::vector<std::string> tokens;
    for (std::string word; words >> word;) tokens.push_back(word);
    if (tokens.empty()) continue;

    if (!header) {
      if (tokens.size() != 2 || tokens[0] != "qbox-device-profile" || tokens[1] != "1") {
        return at_line(number, "header", "first record must be 'qbox-device-profile 1'");
      }
      header = true;
      continue;
    }
    if (tokens[0] == "interval") {
      if (profile.interval_ > 0) return at_line(number, "interval", "given more than once");
      const auto seconds = tokens.size() == 2 ? parse_real(tokens[1]) : std::nullopt;
      if (!seconds || *seconds <= 0) return at_line(number, "interval", "expects one number of seconds > 0");
      profile.interval_ = *seconds;
    } else if (tokens[0] == "samples") {
      if (profile.interval_ <= 0) {
        return at_line(number, "interval", "must be given before the first samples line");
      }
      if (tokens.size() < 5) {
        return at_line(number, "samples",
                       "expects '<read|write> <sequential|random> <bytes> <count>...'");
      }
      RequestType type;
      if (tokens[1] == "read") {
        type.request_class.operation = Operation::read;
      } else if (tokens[1] == "write") {
        type.request_class.operation = Operation::write;
      } else {
        return at_line(number, "operation", "must be 'read' or 'write', got '" + tokens[1] + "'");
      }
      if (tokens[2] == "sequential") {
        type.request_class.access = Access::sequential;
      } else if (tokens[2] == "random") {
        type.request_class.access = Access::random;
      } else {
        return at_line(number, "access",
                       "must be 'sequential' or 'random', got '" + tokens[2] + "'");
      }
      const auto bytes = parse_uint(tokens[3]);
      if (!bytes || *bytes == 0) {
        return at_line(number, "bytes", "must be a whole number > 0, got '" + tokens[3] + "'");
      }
      type.size_bytes = *bytes;
      std::vector<double>& counts = profile.samples_[type];
      for (std::size_t k = 4; k < tokens.size(); ++k) {
        const auto count = parse_real(tokens[k]);
        if (!count || *count < 0) {
          return at_line(number, "count",
                         "completions per interval must be a number >= 0, got '" + tokens[k] + "'");
        }
        counts.push_back(*count);
      }
    } else {
      return at_line(number, "record",
                     "unknown record '" + tokens[0] + "'; expected 'interval' or 'samples'");
    }
  }
  if (!header) return Error{"header", "empty profile; first record must be 'qbox-device-profile 1'"};
  if (profile.samples_.empty()) return Error{"samples", "profile has no samples lines"};
  return profile;
}

Expected<Seconds> DeviceProfile::worst_case_cost(const RequestType& type, Seconds granularity,
                                               double confidence) const {
  if (!(confidence > 0 && confidence < 1)) {
    return Error{"confidence", "must be in (0, 1), e.g. 0.95"};
  }
  const auto it = samples_.find(type);
  if (it == samples_.end()) {
    std::string known;
    for (const auto& entry : samples_) known += (known.empty() ? "" : ", ") + to_string(entry.first);
    return Error{"request type", "no samples for " + to_string(type) + "; profiled: " + known};
  }
  const std::vector<double>& counts = it->second;
  const double ratio = granularity / interval_;
  const double whole = std::round(ratio);
  if (!(granularity > 0) || whole < 1 || std::fabs(ratio - whole) > 1e-6 * whole) {
    return Error{"granularity", "must be a whole multiple of the profile interval (" +
                                    std::to_string(interval_) + " s)"};
  }
  const auto span = static_cast<std::size_t>(whole);
  if (span > counts.size()) {
    return Error{"granularity", "longer than the profile of " + to_string(type) + " (" +
                                    std::to_string(counts.size() * interval_) + " s)"};
  }
  std::vector<double> throughputs;
  throughputs.reserve(counts.size() - span + 1);
  double sum = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    sum += counts[k];
    if (k >= span) sum -= counts[k - span];
    if (k + 1 >= span) throughputs.push_back(sum / (span * interval_));
  }
  // The throughput exceeded in a `confidence` fraction of windows: the lower-tail quantile.
  const auto rank = static_cast<std::size_t>(
      std::floor((1.0 - confidence) * static_cast<double>(throughputs.size() - 1)));
  std::nth_element(throughputs.begin(), throughputs.begin() + rank, throughputs.end());
  const double throughput = throughputs[rank];
  if (!(throughput > 0)) {
    return Error{"granularity", "the profile shows no completions of " + to_string(type) +
                                    " in some windows at this granularity and confidence; "
                                    "nothing can be guaranteed (use a coarser granularity)"};
  }
  return 1.0 / throughput;
}

}  // namespace erails::qbox
