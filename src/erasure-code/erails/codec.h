// Reed-Solomon coding over jerasure/gf-complete, with no Ceph types: the Ceph adapter, the tests
// and the benchmarks share it. Prepared once per profile (matrices, schedules); encode and decode
// work on caller-owned buffers and keep no state between calls, so one Codec may be used from
// several threads at once.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "erasure-code/erails/gf8_avx2.h"
#include "erasure-code/erails/profile.h"

namespace erails {

class Codec {
 public:
  // Which implementation multiplies regions. Both produce identical bytes; kFastest uses the AVX2
  // kernel for reed_sol_van with w=8 when the CPU has AVX2, jerasure otherwise.
  enum class Kernel { kFastest, kJerasure };

  // Prepares the code for a validated profile. Returns nullptr with *error set when jerasure
  // cannot build the matrices (out of memory).
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

 private:
  explicit Codec(const Profile& profile);

  // The AVX2 path of decode(): rebuild erased data from k survivors, then erased coding.
  bool decode_avx2(const std::vector<int>& erased, char* const* data, char* const* coding,
                   unsigned chunk_size) const;

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
  std::unique_ptr<Gf8Matrix> encode_tables_;  // set when the AVX2 kernel is used
};

}  // namespace erails
