#include "erasure-code/erails/erasure_code_erails.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "ceph_abi/checked_build.h"
#include "ceph_abi/crush_wrapper.h"
#include "rails/read_selection.h"
#include "rails_osd/avoid.h"

namespace erails {
namespace {

// Chunks we allocate are cache-line aligned: page alignment measured up to 20% slower encodes
// here (glibc pads every such allocation by a page). Buffers we are handed are copied only when
// gf-complete could not use them: its SSE region operations need every buffer of one call to
// have the same address modulo 16.
constexpr unsigned kBufferAlignment = 64;
constexpr unsigned kSimdAlignment = 16;

ceph::bufferptr aligned_buffer(unsigned length) {
  return ceph::bufferptr(ceph::buffer::create_aligned(length, kBufferAlignment));
}

// Makes `bl` one contiguous buffer that gf-complete can use and returns its address.
char* contiguous_aligned(ceph::bufferlist& bl) {
  if (!bl.is_contiguous() || reinterpret_cast<uintptr_t>(bl.c_str()) % kSimdAlignment != 0)
    bl.rebuild_aligned(kSimdAlignment);
  return bl.c_str();
}

// The schedule runs on the wall clock, which every OSD and the mgr keep NTP-synced.
double wall_clock_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool in_range(const std::set<int>& ids, int n) {
  return ids.empty() || (*ids.begin() >= 0 && *ids.rbegin() < n);
}

}  // namespace

int ErasureCodeErails::init(ceph::ErasureCodeProfile& profile, std::ostream* ss) {
  auto parsed = parse_profile(profile);
  if (!parsed.ok()) {
    *ss << parsed.error().message;
    return -EINVAL;
  }
  profile_ = std::move(parsed).value();
  std::string codec_error;
  codec_ = Codec::create(profile_, &codec_error);
  if (!codec_) {
    *ss << codec_error;
    return -ENOMEM;
  }
  if (profile_.rails_enabled()) {
    auto schedule = rails::Schedule::create(profile_.schedule);
    if (!schedule.ok()) {  // parse_profile validated it; kept for the invariant's sake
      *ss << "erails: " << schedule.error().message;
      return -EINVAL;
    }
    schedule_ = std::make_unique<rails::Schedule>(schedule.value());
  }
  profile_map_ = profile;
  return 0;
}

int ErasureCodeErails::create_rule(const std::string& name, CrushWrapper& crush,
                                   std::ostream* ss) const {
  // With colors, add_simple_rule still creates the named rule (keeping CRUSH's name maps
  // consistent) and resolves the first color, device class and failure domain for us; its steps
  // are then replaced by the ordered blocks.
  const std::string& root =
      profile_.rails_enabled() ? profile_.crush_colors.front() : profile_.crush_root;
  int rule_id = crush.add_simple_rule(name, root, profile_.crush_failure_domain,
                                      profile_.crush_device_class, "indep",
                                      crush_abi::kRuleTypeErasure, ss);
  if (rule_id < 0) return rule_id;
  crush_abi::Rule* rule = crush_abi::crush_rule_at(crush, rule_id, crush_abi::kRuleTypeErasure);
  if (rule == nullptr) {
    *ss << "erails: the CRUSH map of this Ceph build does not have the layout of Ceph "
        << erails::ceph_build::kVersion << " the plugin was built for; rebuild erails against it";
    return -ENOTSUP;
  }
  if (profile_.rails_enabled()) return make_color_rule(crush, rule_id, rule, ss);
  // An erasure-coded pool always has exactly k+m shards, on builds that check rule sizes at all.
  if (erails::ceph_build::kCrushRuleHasRuleset)
    rule->mask.min_size = rule->mask.max_size = static_cast<uint8_t>(get_chunk_count());
  return rule_id;
}

int ErasureCodeErails::make_color_rule(CrushWrapper& crush, int rule_id,
                                       const crush_abi::Rule* simple, std::ostream* ss) const {
  // Keep the simple rule's tunable steps (choose tries) and learn the failure domain's type.
  std::vector<crush_abi::RuleStep> tunables;
  int domain_type = -1;
  for (uint32_t i = 0; i < simple->len; ++i) {
    const crush_abi::RuleStep& step = simple->steps[i];
    if (step.op == crush_abi::kChooseIndep || step.op == crush_abi::kChooseLeafIndep)
      domain_type = step.arg2;
    else if (step.op != crush_abi::kTake && step.op != crush_abi::kEmit)
      tunables.push_back(step);
  }
  if (domain_type < 0) {
    *ss << "erails: could not read the failure domain type from the rule CRUSH made";
    return -ENOTSUP;
  }

  const std::string& device_class = profile_.crush_device_class;
  std::vector<int> color_ids;
  for (const std::string& color : profile_.crush_colors) {
    const std::string item = device_class.empty() ? color : color + "~" + device_class;
    if (!crush.name_exists(item)) {
      *ss << "erails: crush-colors names " << item << ", which is not a CRUSH bucket"
          << (device_class.empty() ? "" : " (a color with no device of class " + device_class + ")");
      return -ENOENT;
    }
    const int id = crush.get_item_id(item);
    const int size = crush_abi::bucket_size(crush, id);
    if (size < 0) {
      *ss << "erails: crush-colors names " << item << ", which is a device, not a bucket";
      return -EINVAL;
    }
    if (size == 0) {
      *ss << "erails: crush-colors bucket " << item << " is empty: every color needs OSDs";
      return -EINVAL;
    }
    color_ids.push_back(id);
  }

  // One block per color, in shard order: shard i of every PG lands on an OSD of color i.
  // `choose` when the domain is the OSD itself: chooseleaf would ignore `ceph osd out` there.
  const int n = get_chunk_count();
  const int op = domain_type == 0 ? crush_abi::kChooseIndep : crush_abi::kChooseLeafIndep;
  crush_abi::Rule* ordered = crush_abi::make_rule(static_cast<int>(tunables.size()) + 3 * n, rule_id,
                                                  crush_abi::kRuleTypeErasure, n);
  if (ordered == nullptr) return -ENOMEM;
  int pos = 0;
  for (const auto& step : tunables)
    crush_abi::crush_rule_set_step(ordered, pos++, static_cast<int>(step.op), step.arg1, step.arg2);
  for (int id : color_ids) {
    crush_abi::crush_rule_set_step(ordered, pos++, crush_abi::kTake, id, 0);
    crush_abi::crush_rule_set_step(ordered, pos++, op, 1, domain_type);
    crush_abi::crush_rule_set_step(ordered, pos++, crush_abi::kEmit, 0, 0);
  }
  crush_abi::replace_rule(crush, rule_id, ordered);
  return rule_id;
}

unsigned int ErasureCodeErails::get_chunk_size(unsigned int object_size) const {
  return codec_->chunk_size(object_size);
}

int ErasureCodeErails::choose_shards(const std::set<int>& want_to_read,
                                     const std::set<int>& available, std::set<int>* chosen) const {
  const int n = get_chunk_count();
  if (!in_range(want_to_read, n) || !in_range(available, n)) return -EINVAL;
  chosen->clear();
  if (want_to_read.empty()) return 0;
  // Without colors every shard counts as read-phase, and none is marked slow (a shard index names
  // no OSD there): the plain erasure-code choice.
  rails::ColorSet read_phase(n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1);
  rails::ColorSet slow;
  if (schedule_) {
    read_phase = schedule_->read_set(wall_clock_seconds());
    slow = rails::ColorSet(rails_osd::process_avoid_marks().slow_mask(profile_.crush_colors, rails_osd::avoid_clock_seconds()));
  }
  auto choice = rails::choose_read_shards(
      profile_.k, n, std::vector<int>(want_to_read.begin(), want_to_read.end()),
      std::vector<int>(available.begin(), available.end()), read_phase, slow);
  if (!choice.ok()) return static_cast<int>(available.size()) < profile_.k ? -EIO : -EINVAL;
  chosen->insert(choice.value().shards.begin(), choice.value().shards.end());
  return 0;
}

int ErasureCodeErails::minimum_to_decode(
    const std::set<int>& want_to_read, const std::set<int>& available,
    std::map<int, std::vector<std::pair<int, int>>>* minimum) {
  std::set<int> chosen;
  int r = choose_shards(want_to_read, available, &chosen);
  if (r != 0) return r;
  minimum->clear();
  for (int id : chosen) (*minimum)[id] = {{0, get_sub_chunk_count()}};
  return 0;
}

int ErasureCodeErails::minimum_to_decode_with_cost(const std::set<int>& want_to_read,
                                                   const std::map<int, int>& available,
                                                   std::set<int>* minimum) {
  std::set<int> ids;
  for (const auto& [id, cost] : available) ids.insert(id);
  int r = choose_shards(want_to_read, ids, minimum);
  if (r != 0 || minimum->size() == want_to_read.size()) return r;
  // Decoding: keep the wanted chunks that are available, fill up to k with the cheapest others.
  std::multimap<int, int> by_cost;
  for (const auto& [id, cost] : available)
    if (!want_to_read.count(id)) by_cost.emplace(cost, id);
  minimum->clear();
  for (int id : want_to_read)
    if (available.count(id)) minimum->insert(id);
  for (auto it = by_cost.begin(); static_cast<int>(minimum->size()) < profile_.k; ++it)
    minimum->insert(it->second);
  return 0;
}

int ErasureCodeErails::encode(const std::set<int>& want_to_encode, const ceph::bufferlist& in,
                              std::map<int, ceph::bufferlist>* encoded) {
  const int k = profile_.k, n = get_chunk_count();
  if (!in_range(want_to_encode, n)) return -EINVAL;
  const unsigned length = in.length();
  const unsigned chunk = get_chunk_size(length);
  // Built in place: a second map moved into *encoded cost a tenth of a 64 KiB encode.
  std::map<int, ceph::bufferlist>& chunks = *encoded;
  chunks.clear();

  // Whole data chunks share the caller's memory; copying (and faulting in) a fresh buffer for
  // every object would cost more than the coding itself.
  const int whole = chunk == 0 ? k : static_cast<int>(length / chunk);
  for (int i = 0; i < whole; ++i) chunks[i].substr_of(in, static_cast<unsigned>(i) * chunk, chunk);
  // The tail of the object, then zero padding. Each chunk gets its own buffer: one allocation
  // for all of them crosses malloc's mmap threshold and faults in fresh pages on every call.
  for (int i = whole; i < k; ++i) {
    const unsigned offset = static_cast<unsigned>(i) * chunk;
    const unsigned copied = offset < length ? std::min(chunk, length - offset) : 0;
    ceph::bufferptr buffer = aligned_buffer(chunk);
    if (copied) in.begin(offset).copy(copied, buffer.c_str());
    std::memset(buffer.c_str() + copied, 0, chunk - copied);
    chunks[i].append(std::move(buffer));
  }
  for (int i = k; i < n; ++i) chunks[i].append(aligned_buffer(chunk));

  int r = encode_chunks(want_to_encode, &chunks);
  if (r != 0) return r;
  for (int i = 0; i < n; ++i)
    if (!want_to_encode.count(i)) chunks.erase(i);
  return 0;
}

int ErasureCodeErails::encode_chunks(const std::set<int>& want_to_encode,
                                     std::map<int, ceph::bufferlist>* encoded) {
  const int k = profile_.k, n = get_chunk_count();
  if (!in_range(want_to_encode, n) || static_cast<int>(encoded->size()) != n) return -EINVAL;
  const unsigned chunk = encoded->begin()->second.length();
  std::vector<char*> chunks(n);
  for (int i = 0; i < n; ++i) {
    auto it = encoded->find(i);
    if (it == encoded->end() || it->second.length() != chunk) return -EINVAL;
    chunks[i] = contiguous_aligned(it->second);
  }
  if (chunk % codec_->alignment() != 0) return -EINVAL;
  codec_->encode(chunks.data(), chunks.data() + k, chunk);
  return 0;
}

int ErasureCodeErails::decode(const std::set<int>& want_to_read,
                              const std::map<int, ceph::bufferlist>& chunks,
                              std::map<int, ceph::bufferlist>* decoded, int /*chunk_size*/) {
  const int n = get_chunk_count();
  if (!in_range(want_to_read, n) || chunks.empty()) return -EINVAL;
  bool all_present = true;
  for (int id : want_to_read) all_present = all_present && chunks.count(id);
  decoded->clear();
  if (all_present) {
    for (int id : want_to_read) (*decoded)[id] = chunks.at(id);
    return 0;
  }
  if (static_cast<int>(chunks.size()) < profile_.k) return -EIO;
  const unsigned chunk = chunks.begin()->second.length();
  for (int i = 0; i < n; ++i) {
    auto it = chunks.find(i);
    if (it != chunks.end()) {
      (*decoded)[i] = it->second;
    } else {
      (*decoded)[i].append(aligned_buffer(chunk));
    }
  }
  return decode_chunks(want_to_read, chunks, decoded);
}

int ErasureCodeErails::decode_chunks(const std::set<int>& want_to_read,
                                     const std::map<int, ceph::bufferlist>& chunks,
                                     std::map<int, ceph::bufferlist>* decoded) {
  const int k = profile_.k, n = get_chunk_count();
  if (!in_range(want_to_read, n) || static_cast<int>(decoded->size()) != n) return -EINVAL;
  const unsigned chunk = decoded->begin()->second.length();
  if (chunk % codec_->alignment() != 0) return -EINVAL;
  std::vector<char*> buffers(n);
  std::vector<int> erased;
  for (int i = 0; i < n; ++i) {
    auto it = decoded->find(i);
    if (it == decoded->end() || it->second.length() != chunk) return -EINVAL;
    buffers[i] = contiguous_aligned(it->second);
    if (!chunks.count(i)) erased.push_back(i);
  }
  if (!codec_->decode(erased, buffers.data(), buffers.data() + k, chunk)) return -EIO;
  return 0;
}

int ErasureCodeErails::decode_concat(const std::map<int, ceph::bufferlist>& chunks,
                                     ceph::bufferlist* decoded) {
  std::set<int> data_chunks;
  for (int i = 0; i < profile_.k; ++i) data_chunks.insert(i);
  std::map<int, ceph::bufferlist> out;
  int r = decode(data_chunks, chunks, &out, 0);
  if (r != 0) return r;
  for (int i = 0; i < profile_.k; ++i) decoded->claim_append(out[i]);
  return 0;
}

}  // namespace erails
