// GF(2^8) matrix-times-regions with AVX2, for Reed-Solomon with w=8. jerasure multiplies one source
// region at a time and re-reads and re-writes the destination for each; here every destination
// block is accumulated in a register across all sources and stored once. The field is gf-complete's
// default GF(2^8) (polynomial 0x11d), so the bytes are exactly jerasure's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace erails {

// Whether this CPU can run the kernels below.
bool gf8_avx2_supported();

// Product of a and b in GF(2^8) with polynomial 0x11d.
uint8_t gf8_multiply(uint8_t a, uint8_t b);

// Multiplication tables for a rows x cols coefficient matrix, prepared once and reused.
class Gf8Matrix {
 public:
  // `coefficients` is row-major, rows * cols entries, each < 256.
  Gf8Matrix(int rows, int cols, const int* coefficients);

  int rows() const { return rows_; }
  int cols() const { return cols_; }

  // out[r] = sum over c of coefficient(r, c) * in[c], for every r in 0..rows-1, over `length`
  // bytes. Outputs must not overlap inputs. Requires gf8_avx2_supported().
  void multiply(const char* const* in, char* const* out, size_t length) const;

 private:
  int rows_;
  int cols_;
  // Per coefficient, 64 bytes: products with every low nibble (twice, one per AVX2 lane), then
  // with every high nibble (twice).
  std::vector<uint8_t> tables_;
};

}  // namespace erails
