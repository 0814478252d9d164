#include "erasure-code/erails/region_xor.h"

#include <immintrin.h>

namespace erails {
namespace {

__attribute__((target("avx2"))) inline __m256i load(const unsigned char* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

__attribute__((target("avx2"))) inline void store(unsigned char* p, __m256i v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}

}  // namespace

bool region_xor_supported() { return __builtin_cpu_supports("avx2"); }

// Four vectors per step: each source is read once, each output byte written once, and the loads
// of one source are independent of each other.
__attribute__((target("avx2"))) void region_xor(const unsigned char* const* sources, int count,
                                                unsigned char* out, size_t length) {
  size_t pos = 0;
  for (; pos + 128 <= length; pos += 128) {
    __m256i a = load(sources[0] + pos), b = load(sources[0] + pos + 32),
            c = load(sources[0] + pos + 64), d = load(sources[0] + pos + 96);
    for (int s = 1; s < count; ++s) {
      a = _mm256_xor_si256(a, load(sources[s] + pos));
      b = _mm256_xor_si256(b, load(sources[s] + pos + 32));
      c = _mm256_xor_si256(c, load(sources[s] + pos + 64));
      d = _mm256_xor_si256(d, load(sources[s] + pos + 96));
    }
    store(out + pos, a);
    store(out + pos + 32, b);
    store(out + pos + 64, c);
    store(out + pos + 96, d);
  }
  for (; pos + 32 <= length; pos += 32) {
    __m256i a = load(sources[0] + pos);
    for (int s = 1; s < count; ++s) a = _mm256_xor_si256(a, load(sources[s] + pos));
    store(out + pos, a);
  }
  for (; pos < length; ++pos) {
    unsigned char a = sources[0][pos];
    for (int s = 1; s < count; ++s) a ^= sources[s][pos];
    out[pos] = a;
  }
}

}  // namespace erails
