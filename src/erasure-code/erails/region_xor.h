// XOR of equal-length regions. The first coding row of jerasure's reed_sol_van matrix is all ones,
// so with m=1, and when one chunk among the data and the first coding chunk is lost, a chunk is
// the XOR of k others: a pass with no table lookups, about 1.5x ISA-L's dot product there. ISA-L's
// own xor_gen needs 32-byte aligned buffers, which Ceph does not promise.
#pragma once

#include <cstddef>

namespace erails {

// Whether this CPU can run region_xor (AVX2).
bool region_xor_supported();

// out = sources[0] ^ ... ^ sources[count - 1] over `length` bytes, any alignment. `out` must not
// overlap a source. Requires region_xor_supported() and count >= 1.
void region_xor(const unsigned char* const* sources, int count, unsigned char* out, size_t length);

}  // namespace erails
