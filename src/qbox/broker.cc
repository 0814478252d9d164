#include "qbox/broker.h"

#include <cstdio>

#include "qbox/validate.h"

namespace erails::qbox {

Expected<double> utilization_for(const DeviceProfile& profile, const ThroughputRequirement& need) {
  if (auto bad = check_rate("iops", need.iops, false)) return *bad;
  auto cost = profile.worst_case_cost(need.type, need.granularity, need.confidence);
  if (!cost) return cost.error();
  return need.iops * cost.value();
}

Expected<double> Broker::admit(const std::string& client, const ThroughputRequirement& need) {
  if (shares_.count(client) != 0) {
    return Error{"client", "'" + client + "' is already admitted; release it first"};
  }
  auto share = utilization_for(profile_, need);
  if (!share) return share.error();
  // A small tolerance so shares that add up to exactly 1 on paper are not refused for rounding.
  if (total_ + share.value() > 1.0 + 1e-9) {
    char message[160];
    std::snprintf(message, sizeof message,
                  "refused: needs %.4f of device time but %.4f is already reserved (total must "
                  "stay <= 1)",
                  share.value(), total_);
    return Error{"admission", message};
  }
  shares_[client] = share.value();
  total_ += share.value();
  return share;
}

Status Broker::release(const std::string& client) {
  const auto it = shares_.find(client);
  if (it == shares_.end()) return Error{"client", "'" + client + "' was not admitted"};
  total_ -= it->second;
  shares_.erase(it);
  if (total_ < 0) total_ = 0;
  return Ok{};
}

}  // namespace erails::qbox
