// The erails erasure-code profile: every key the plugin accepts, its default and its range.
// Plain C++ (no Ceph types) so the parser can be unit-tested and fuzzed without a Ceph process.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/error.h"
#include "rails/schedule.h"

namespace erails {

enum class Technique { kReedSolVan, kCauchyOrig, kCauchyGood };

const char* technique_name(Technique technique);

// Every shard is a color of the Rails schedule, which handles at most rails::kMaxColors (64).
constexpr int kMaxChunks = rails::kMaxColors;

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

  // rails-frame, rails-readers, rails-epoch, rails-guard, for the k+m colors.
  rails::ScheduleParams schedule;

  // Rails steers reads and holds writes only when shards are pinned to colors.
  bool rails_enabled() const { return !crush_colors.empty(); }
};

using ProfileMap = std::map<std::string, std::string>;

// Parses `profile`, validates every key and writes the default of every absent key back into it
// (Ceph's registry requires the plugin's profile to equal the caller's). On error `profile` may
// be partly completed. An error's key is the profile key; its message is the line the monitor
// shows the operator as is: "erails: <key>=<value> is invalid: <reason and what is accepted>".
Expected<Profile> parse_profile(ProfileMap& profile);

}  // namespace erails
