// The erails erasure-code profile: every key the plugin accepts, its default and its range.
// Plain C++ (no Ceph types) so the parser can be unit-tested and fuzzed without a Ceph process.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace erails {

enum class Technique { kReedSolVan, kCauchyOrig, kCauchyGood };

const char* technique_name(Technique technique);

// Ceph numbers shards with an 8-bit signed id (-1 means "no shard").
constexpr int kMaxChunks = 128;

struct Profile {
  int k = 0;
  int m = 0;
  Technique technique = Technique::kReedSolVan;
  int w = 8;
  int packetsize = 0;  // cauchy techniques only; 0 otherwise

  std::string crush_root;
  std::string crush_failure_domain;
  std::string crush_device_class;
  std::vector<std::string> crush_colors;  // empty, or exactly k + m bucket names in shard order

  double rails_frame = 0;  // seconds per window step
  int rails_readers = 0;   // colors in the read window
  double rails_epoch = 0;  // seconds since the Unix epoch when frame 0 starts
  double rails_guard = 0;  // seconds before turning read-phase that a color stops applying writes
};

// What was wrong with one key: the key, the value given, and what would have been accepted.
struct ProfileError {
  std::string key;
  std::string value;
  std::string accepted;

  // "erails: <key>=<value> is invalid: <accepted>", the form the monitor shows the operator.
  std::string message() const;
};

using ProfileMap = std::map<std::string, std::string>;

// Parses `profile`, validates every key and writes the default of every absent key back into it
// (Ceph's registry requires the plugin's profile to equal the caller's). On error `profile` may
// be partly completed and `*parsed` is unspecified.
std::optional<ProfileError> parse_profile(ProfileMap& profile, Profile* parsed);

}  // namespace erails
