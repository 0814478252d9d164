// Our declaration of the few CrushWrapper members a plugin calls, and of the CRUSH C structures
// it edits. CrushWrapper's own layout is not declared: the one offset we rely on is checked at run
// time (see crush_rule_at) and by the end-to-end test that creates pools on a real monitor.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "ceph_abi/checked_build.h"

class CrushWrapper {
 public:
  // Creates a rule that takes `root_name` and chooses distinct `failure_domain_name` items in
  // `mode` ("firstn" or "indep"); returns the rule id or a negative errno with a message in *err.
  int add_simple_rule(std::string name, std::string root_name, std::string failure_domain_name,
                      std::string device_class, std::string mode, int rule_type,
                      std::ostream* err);
  // Id of the bucket or device named `name` (shadow buckets are named "<bucket>~<class>").
  // Precondition: name_exists(name).
  int get_item_id(const std::string& name) const;
  bool name_exists(const std::string& name) const;
};

namespace crush_abi {

// C structures from CRUSH's public C API (stable since long before 16.2).
struct RuleStep {
  uint32_t op;
  int32_t arg1;
  int32_t arg2;
};
struct RuleMask {
  uint8_t ruleset;  // unset where the build has no rulesets (kCrushRuleHasRuleset)
  uint8_t type;
  uint8_t min_size;
  uint8_t max_size;
};
struct Rule {
  uint32_t len;
  RuleMask mask;
  RuleStep steps[1];
};
// The prefix of struct crush_bucket that we read.
struct BucketPrefix {
  int32_t id;
  uint16_t type;
  uint8_t alg;
  uint8_t hash;
  uint32_t weight;
  uint32_t size;  // number of items
};
// The prefix of struct crush_map that we read.
struct MapPrefix {
  BucketPrefix** buckets;
  Rule** rules;
  int32_t max_buckets;
  uint32_t max_rules;
};

// Rule step operations of CRUSH's C API.
enum RuleOp : uint32_t {
  kTake = 1,
  kChooseIndep = 3,
  kEmit = 4,
  kChooseLeafIndep = 7,
};

// CRUSH's C rule builder, exported by libceph-common and ceph-osd. crush_make_rule's parameters
// depend on the build: (len, ruleset, type, min_size, max_size) where rules carry a ruleset,
// (len, type) where they do not; it is declared without them and called through make_rule.
extern "C" {
void crush_make_rule();
void crush_rule_set_step(Rule* rule, int pos, int op, int arg1, int arg2);
void crush_destroy_rule(Rule* rule);
}

// A rule of `len` steps and `type` for rule `rule_id` of a pool of `size` shards.
inline Rule* make_rule(int len, int rule_id, int type, int size) {
  if constexpr (erails::ceph_build::kCrushRuleHasRuleset) {
    using MakeRule = Rule* (*)(int len, int ruleset, int type, int min_size, int max_size);
    return reinterpret_cast<MakeRule>(&crush_make_rule)(len, rule_id, type, size, size);
  } else {
    using MakeRule = Rule* (*)(int len, int type);
    return reinterpret_cast<MakeRule>(&crush_make_rule)(len, type);
  }
}

// pg_pool_t::TYPE_ERASURE, the rule type of erasure-coded pools.
constexpr int kRuleTypeErasure = 3;

// The rule `rule_id` of `crush`, or nullptr when what sits at the assumed offset does not look like
// a crush map holding that rule (another Ceph build): callers then refuse rather than write blindly.
inline MapPrefix* crush_map_of(CrushWrapper& crush) {
  return *reinterpret_cast<MapPrefix**>(reinterpret_cast<char*>(&crush) + erails::ceph_build::kCrushMapOffset);
}

inline Rule* crush_rule_at(CrushWrapper& crush, int rule_id, int expected_type) {
  MapPrefix* map = crush_map_of(crush);
  if (map == nullptr || rule_id < 0 || static_cast<uint32_t>(rule_id) >= map->max_rules ||
      map->rules == nullptr)
    return nullptr;
  Rule* rule = map->rules[rule_id];
  if (rule == nullptr || rule->mask.type != expected_type || rule->len == 0 || rule->len > 256)
    return nullptr;
  if (erails::ceph_build::kCrushRuleHasRuleset && rule->mask.ruleset != rule_id)
    return nullptr;
  return rule;
}

// Replaces rule `rule_id` (checked with crush_rule_at) by `rule`, taking ownership of it.
inline void replace_rule(CrushWrapper& crush, int rule_id, Rule* rule) {
  MapPrefix* map = crush_map_of(crush);
  crush_destroy_rule(map->rules[rule_id]);
  map->rules[rule_id] = rule;
}

// Number of items in bucket `bucket_id` (< 0), or -1 if there is no such bucket.
inline int bucket_size(CrushWrapper& crush, int bucket_id) {
  MapPrefix* map = crush_map_of(crush);
  const int index = -1 - bucket_id;
  if (bucket_id >= 0 || index >= map->max_buckets || map->buckets[index] == nullptr) return -1;
  return static_cast<int>(map->buckets[index]->size);
}

}  // namespace crush_abi
