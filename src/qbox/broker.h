#pragma once
// The broker (thesis 6.1.2): turns a client's throughput requirement, stated at a granularity and a
// confidence level, into a share of device time using the device profile, and admits the client
// only while the shares of all admitted clients sum to at most 1.

#include <map>
#include <string>

#include "qbox/device_profile.h"
#include "common/error.h"

namespace erails::qbox {

struct ThroughputRequirement {
  RequestType type;
  double iops = 0;            // requests per second the client must get
  Seconds granularity = 1;    // over windows of this length
  double confidence = 0.95;   // in this fraction of windows
};

// u = iops x worst-case cost. Errors come from the profile lookup, or iops not finite and > 0.
Expected<double> utilization_for(const DeviceProfile& profile, const ThroughputRequirement& need);

class Broker {
 public:
  // The profile must outlive the broker.
  explicit Broker(const DeviceProfile& profile) : profile_(profile) {}

  // Converts and admits. Errors: conversion errors; a client already admitted; the total would
  // exceed 1 (field "admission", naming the shares involved). On error nothing changes.
  Expected<double> admit(const std::string& client, const ThroughputRequirement& need);
  // Error if the client was not admitted.
  Status release(const std::string& client);

  double total() const { return total_; }
  const std::map<std::string, double>& shares() const { return shares_; }

 private:
  const DeviceProfile& profile_;
  std::map<std::string, double> shares_;
  double total_ = 0;
};

}  // namespace erails::qbox
