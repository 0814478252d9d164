#include "erasure-code/erails/gf8_avx2.h"

#include <immintrin.h>

#include <array>

namespace erails {
namespace {

struct LogTables {
  std::array<uint8_t, 256> log{};
  std::array<uint8_t, 512> exp{};
  LogTables() {
    unsigned x = 1;
    for (int i = 0; i < 255; ++i) {
      exp[i] = exp[i + 255] = static_cast<uint8_t>(x);
      log[x] = static_cast<uint8_t>(i);
      x <<= 1;
      if (x & 0x100) x ^= 0x11d;
    }
  }
};

const LogTables& log_tables() {
  static const LogTables tables;
  return tables;
}

constexpr int kTableBytes = 64;  // per coefficient: low-nibble products twice, high-nibble twice

// Rows [first, first + Rows) of the product: each source block is loaded once for all of them.
template <int Rows>
__attribute__((target("avx2"))) void multiply_rows(const uint8_t* tables, int first, int cols,
                                                   const char* const* in, char* const* out,
                                                   size_t length) {
  const __m256i low_mask = _mm256_set1_epi8(0x0f);
  const size_t vector_end = length / 32 * 32;
  for (size_t pos = 0; pos < vector_end; pos += 32) {
    __m256i acc[Rows];
    for (int r = 0; r < Rows; ++r) acc[r] = _mm256_setzero_si256();
    for (int c = 0; c < cols; ++c) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in[c] + pos));
      const __m256i vl = _mm256_and_si256(v, low_mask);
      const __m256i vh = _mm256_and_si256(_mm256_srli_epi64(v, 4), low_mask);
      for (int r = 0; r < Rows; ++r) {
        const uint8_t* t = tables + (static_cast<size_t>(first + r) * cols + c) * kTableBytes;
        const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t));
        const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t + 32));
        acc[r] = _mm256_xor_si256(acc[r], _mm256_xor_si256(_mm256_shuffle_epi8(lo, vl),
                                                           _mm256_shuffle_epi8(hi, vh)));
      }
    }
    for (int r = 0; r < Rows; ++r)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out[first + r] + pos), acc[r]);
  }
  for (size_t pos = vector_end; pos < length; ++pos) {
    for (int r = 0; r < Rows; ++r) {
      uint8_t acc = 0;
      for (int c = 0; c < cols; ++c) {
        const uint8_t v = static_cast<uint8_t>(in[c][pos]);
        const uint8_t* t = tables + (static_cast<size_t>(first + r) * cols + c) * kTableBytes;
        acc ^= t[v & 0x0f] ^ t[32 + (v >> 4)];
      }
      out[first + r][pos] = static_cast<char>(acc);
    }
  }
}

}  // namespace

bool gf8_avx2_supported() { return __builtin_cpu_supports("avx2"); }

uint8_t gf8_multiply(uint8_t a, uint8_t b) {
  if (a == 0 || b == 0) return 0;
  const LogTables& t = log_tables();
  return t.exp[t.log[a] + t.log[b]];
}

Gf8Matrix::Gf8Matrix(int rows, int cols, const int* coefficients)
    : rows_(rows), cols_(cols), tables_(static_cast<size_t>(rows) * cols * kTableBytes) {
  for (int i = 0; i < rows * cols; ++i) {
    const uint8_t c = static_cast<uint8_t>(coefficients[i]);
    uint8_t* t = &tables_[static_cast<size_t>(i) * kTableBytes];
    for (int nibble = 0; nibble < 16; ++nibble) {
      t[nibble] = t[16 + nibble] = gf8_multiply(c, static_cast<uint8_t>(nibble));
      t[32 + nibble] = t[48 + nibble] = gf8_multiply(c, static_cast<uint8_t>(nibble << 4));
    }
  }
}

void Gf8Matrix::multiply(const char* const* in, char* const* out, size_t length) const {
  // Four accumulators share each source load and leave registers for the tables.
  int r = 0;
  for (; r + 4 <= rows_; r += 4) multiply_rows<4>(tables_.data(), r, cols_, in, out, length);
  switch (rows_ - r) {
    case 3: multiply_rows<3>(tables_.data(), r, cols_, in, out, length); break;
    case 2: multiply_rows<2>(tables_.data(), r, cols_, in, out, length); break;
    case 1: multiply_rows<1>(tables_.data(), r, cols_, in, out, length); break;
    default: break;
  }
}

}  // namespace erails
