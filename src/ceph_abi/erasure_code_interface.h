// Our declaration of Ceph 16.2's erasure-code interface, written from the measured vtable layout
// (doc/dev/ceph-abi.md). The host (ceph-osd, ceph-mon, tools) calls a plugin only through
// this vtable, so the order and signatures of the virtual functions below ARE the ABI: never
// reorder, add or remove one. Bufferlist comes from librados' public header.
#pragma once

#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <rados/buffer.h>

class CrushWrapper;

namespace ceph {

using ErasureCodeProfile = std::map<std::string, std::string>;

class ErasureCodeInterface {
 public:
  virtual ~ErasureCodeInterface() {}

  // Validates the profile and writes every default back into it: the registry compares the
  // caller's profile with get_profile() after factory() and refuses the plugin if they differ.
  virtual int init(ErasureCodeProfile& profile, std::ostream* ss) = 0;
  virtual const ErasureCodeProfile& get_profile() const = 0;
  // Called by the monitor when a pool is created without an explicit rule.
  virtual int create_rule(const std::string& name, CrushWrapper& crush, std::ostream* ss) const = 0;
  virtual unsigned int get_chunk_count() const = 0;
  virtual unsigned int get_data_chunk_count() const = 0;
  virtual unsigned int get_coding_chunk_count() const = 0;
  virtual int get_sub_chunk_count() = 0;
  virtual unsigned int get_chunk_size(unsigned int object_size) const = 0;
  // The primary OSD's read path: which shards (and sub-chunk ranges) to read for `want`.
  virtual int minimum_to_decode(const std::set<int>& want_to_read, const std::set<int>& available,
                                std::map<int, std::vector<std::pair<int, int>>>* minimum) = 0;
  virtual int minimum_to_decode_with_cost(const std::set<int>& want_to_read,
                                          const std::map<int, int>& available,
                                          std::set<int>* minimum) = 0;
  virtual int encode(const std::set<int>& want_to_encode, const bufferlist& in,
                     std::map<int, bufferlist>* encoded) = 0;
  // `encoded` holds k data chunks and m coding chunks of equal length; fills the coding chunks.
  virtual int encode_chunks(const std::set<int>& want_to_encode,
                            std::map<int, bufferlist>* encoded) = 0;
  virtual int decode(const std::set<int>& want_to_read, const std::map<int, bufferlist>& chunks,
                     std::map<int, bufferlist>* decoded, int chunk_size) = 0;
  // `decoded` holds a buffer of the chunk length for every chunk; fills those not in `chunks`.
  virtual int decode_chunks(const std::set<int>& want_to_read,
                            const std::map<int, bufferlist>& chunks,
                            std::map<int, bufferlist>* decoded) = 0;
  // Empty means the identity: data chunk i is shard i.
  virtual const std::vector<int>& get_chunk_mapping() const = 0;
  virtual int decode_concat(const std::map<int, bufferlist>& chunks, bufferlist* decoded) = 0;
};

using ErasureCodeInterfaceRef = std::shared_ptr<ErasureCodeInterface>;

}  // namespace ceph
