// Our declaration of the few CrushWrapper members a plugin calls, and of the CRUSH C structures
// it edits. CrushWrapper's own layout is not declared: the one offset we rely on is checked at run
// time (see crush_rule_at) and by the end-to-end test that creates pools on a real monitor.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

class CrushWrapper {
 public:
  // Creates a rule that takes `root_name` and chooses distinct `failure_domain_name` items in
  // `mode` ("firstn" or "indep"); returns the rule id or a negative errno with a message in *err.
  int add_simple_rule(std::string name, std::string root_name, std::string failure_domain_name,
                      std::string device_class, std::string mode, int rule_type,
                      std::ostream* err);
};

namespace crush_abi {

// C structures from CRUSH's public C API (stable since long before 16.2).
struct RuleStep {
  uint32_t op;
  int32_t arg1;
  int32_t arg2;
};
struct RuleMask {
  uint8_t ruleset;
  uint8_t type;
  uint8_t min_size;
  uint8_t max_size;
};
struct Rule {
  uint32_t len;
  RuleMask mask;
  RuleStep steps[1];
};
// The prefix of struct crush_map that we read.
struct MapPrefix {
  void** buckets;
  Rule** rules;
  int32_t max_buckets;
  uint32_t max_rules;
};

// pg_pool_t::TYPE_ERASURE, the rule type of erasure-coded pools.
constexpr int kRuleTypeErasure = 3;

// Offset of CrushWrapper's `crush_map* crush` member in Ceph 16.2.15 (from Debian's DWARF).
constexpr std::size_t kCrushMapOffset = 0x180;

// The rule `rule_id` of `crush`, or nullptr when what sits at the assumed offset does not look like
// a crush map holding that rule (another Ceph build): callers then refuse rather than write blindly.
inline Rule* crush_rule_at(CrushWrapper& crush, int rule_id, int expected_type) {
  auto* map = *reinterpret_cast<MapPrefix**>(reinterpret_cast<char*>(&crush) + kCrushMapOffset);
  if (map == nullptr || rule_id < 0 || static_cast<uint32_t>(rule_id) >= map->max_rules ||
      map->rules == nullptr)
    return nullptr;
  Rule* rule = map->rules[rule_id];
  if (rule == nullptr || rule->mask.ruleset != rule_id || rule->mask.type != expected_type ||
      rule->len == 0 || rule->len > 256)
    return nullptr;
  return rule;
}

}  // namespace crush_abi
