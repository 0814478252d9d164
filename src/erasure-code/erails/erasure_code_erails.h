// The Ceph-facing side of erails: adapts Ceph's bufferlists and CRUSH map to the plain Codec and
// Profile. Everything Ceph-specific about erasure coding in this project stops here.
#pragma once

#include <memory>

#include "erasure-code/erails/codec.h"
#include "ceph_abi/crush_wrapper.h"
#include "ceph_abi/erasure_code_interface.h"
#include "erasure-code/erails/profile.h"
#include "rails/schedule.h"

namespace erails {

class ErasureCodeErails final : public ceph::ErasureCodeInterface {
 public:
  int init(ceph::ErasureCodeProfile& profile, std::ostream* ss) override;
  const ceph::ErasureCodeProfile& get_profile() const override { return profile_map_; }
  int create_rule(const std::string& name, CrushWrapper& crush, std::ostream* ss) const override;
  unsigned int get_chunk_count() const override { return profile_.k + profile_.m; }
  unsigned int get_data_chunk_count() const override { return profile_.k; }
  unsigned int get_coding_chunk_count() const override { return profile_.m; }
  int get_sub_chunk_count() override { return 1; }
  unsigned int get_chunk_size(unsigned int object_size) const override;
  int minimum_to_decode(const std::set<int>& want_to_read, const std::set<int>& available,
                        std::map<int, std::vector<std::pair<int, int>>>* minimum) override;
  int minimum_to_decode_with_cost(const std::set<int>& want_to_read,
                                  const std::map<int, int>& available,
                                  std::set<int>* minimum) override;
  int encode(const std::set<int>& want_to_encode, const ceph::bufferlist& in,
             std::map<int, ceph::bufferlist>* encoded) override;
  int encode_chunks(const std::set<int>& want_to_encode,
                    std::map<int, ceph::bufferlist>* encoded) override;
  int decode(const std::set<int>& want_to_read, const std::map<int, ceph::bufferlist>& chunks,
             std::map<int, ceph::bufferlist>* decoded, int chunk_size) override;
  int decode_chunks(const std::set<int>& want_to_read,
                    const std::map<int, ceph::bufferlist>& chunks,
                    std::map<int, ceph::bufferlist>* decoded) override;
  const std::vector<int>& get_chunk_mapping() const override { return chunk_mapping_; }
  int decode_concat(const std::map<int, ceph::bufferlist>& chunks,
                    ceph::bufferlist* decoded) override;

 private:
  // The shards to read for `want_to_read` among `available`, or -EIO if fewer than k are.
  // With colors, read-phase shards of the schedule at this moment are preferred.
  int choose_shards(const std::set<int>& want_to_read, const std::set<int>& available,
                    std::set<int>* chosen) const;
  // Replaces the steps of `simple` (rule `rule_id`) by one take/choose/emit block per color.
  int make_color_rule(CrushWrapper& crush, int rule_id, const crush_abi::Rule* simple,
                      std::ostream* ss) const;

  ceph::ErasureCodeProfile profile_map_;
  Profile profile_;
  std::unique_ptr<Codec> codec_;
  std::unique_ptr<rails::Schedule> schedule_;  // set when the profile names colors
  const std::vector<int> chunk_mapping_;  // identity: shard i holds chunk i, on color i
};

}  // namespace erails
