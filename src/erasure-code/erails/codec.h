// Reed-Solomon coding with no Ceph types: the Ceph adapter, the tests and the benchmarks share it.
// jerasure builds the coding matrix of every technique, so the bytes are jerasure's; the region
// arithmetic of reed_sol_van with w=8 runs on ISA-L, everything else on jerasure/gf-complete.
// Prepared once per profile (matrices, tables, schedules); encode and decode work on caller-owned
// buffers and share only the thread-safe decode cache, so one Codec may be used from several
// threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "erasure-code/erails/decode_cache.h"
#include "erasure-code/erails/profile.h"

namespace erails {

struct Isal;

class Codec {
 public:
  // Which implementation multiplies regions. Both produce identical bytes; kFastest uses ISA-L for
  // reed_sol_van with w=8, jerasure otherwise. kJerasure is the reference the tests compare with.
  enum class Kernel { kFastest, kJerasure };

  // Prepares the code for a validated profile. Returns nullptr with *error set when jerasure
  // cannot build the matrices (out of memory) or ISA-L cannot be loaded.
  static std::unique_ptr<Codec> create(const Profile& profile, std::string* error,
                                       Kernel kernel = Kernel::kFastest);
  ~Codec();
  Codec(const Codec&) = delete;
  Codec& operator=(const Codec&) = delete;

  int data_chunks() const { return k_; }
  int coding_chunks() const { return m_; }

  // Every chunk size is a multiple of this: 64 bytes (a cache line, and a whole number of SIMD
  // words for gf-complete) and, for the cauchy techniques, of w * packetsize.
  unsigned alignment() const { return alignment_; }

  // The chunk size that holds `object_size` bytes across k chunks: ceil(object_size / k) rounded
  // up to alignment(). A multiple of k * alignment() maps to exactly that divided by k.
  unsigned chunk_size(unsigned object_size) const;

  // Computes the m coding chunks from the k data chunks. Each pointer addresses `chunk_size`
  // bytes, a multiple of alignment(); coding buffers must not overlap data buffers.
  void encode(char* const* data, char* const* coding, unsigned chunk_size) const;

  // Rebuilds the chunks listed in `erased` (ids 0..k-1 data, k..k+m-1 coding) from the others, in
  // place. Every pointer addresses `chunk_size` bytes. Returns false when more than m chunks are
  // erased or an id is out of range; the buffers are then unspecified.
  bool decode(const std::vector<int>& erased, char* const* data, char* const* coding,
              unsigned chunk_size) const;

  // The process-wide cache of decoding tables that the ISA-L path uses.
  static DecodeCacheStats decode_cache_stats() { return DecodeCache::shared().stats(); }

 private:
  explicit Codec(const Profile& profile);

  // The ISA-L path of decode(): every erased chunk, data or coding, in one pass over k survivors.
  bool decode_isal(uint64_t erased, char* const* data, char* const* coding,
                   unsigned chunk_size) const;
  // The survivors and decoding matrix for one erasure pattern; nullptr if not invertible.
  std::shared_ptr<const DecodePlan> make_decode_plan(uint64_t erased) const;

  const int k_;
  const int m_;
  const int w_;
  const Technique technique_;
  const int packetsize_;
  unsigned alignment_ = 0;
  bool row_k_ones_ = false;
  int* matrix_ = nullptr;      // m x k coding matrix (malloc'ed by jerasure)
  int* bitmatrix_ = nullptr;   // cauchy: (m*w) x (k*w) bit matrix
  int** schedule_ = nullptr;   // cauchy: XOR schedule derived from the bit matrix
  const Isal* isal_ = nullptr;  // set when ISA-L does the region arithmetic
  std::vector<unsigned char> encode_tables_;  // ISA-L's expansion of the coding matrix
  bool xor_rows_ = false;  // with ISA-L: all-ones rows are computed by region_xor
};

}  // namespace erails
