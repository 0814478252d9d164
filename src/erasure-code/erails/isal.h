// Debian's ISA-L (libisal.so.2), for Reed-Solomon with w=8: ISA-L picks its region kernels
// (AVX-512, AVX2, AVX, SSE or plain C) for the CPU on the first call.
//
// Ceph's isa plugin, libec_isa.so, carries its own copy of ISA-L under the same symbol names,
// libceph-common.so (in every daemon's global scope) ISA-L's crc functions, and Debian ships no
// static libisal. Linking libisal.so.2 the ordinary way would let the dynamic linker bind our
// calls, and ISA-L's calls between its own functions, to whichever copy of each name it finds
// first in the process. So the library is opened privately and its functions are taken from its
// own handle: see isal.cc, and tests/isal_isolation_test.sh for the check.
#pragma once

#include <string>

namespace erails {

struct Isal {
  // The ISA-L functions erails calls, with ISA-L's prototypes (isal.cc checks them).
  void (*ec_init_tables)(int k, int rows, unsigned char* coefficients, unsigned char* tables);
  void (*ec_encode_data)(int length, int k, int rows, unsigned char* tables,
                         unsigned char** sources, unsigned char** outputs);
  unsigned char (*gf_mul)(unsigned char a, unsigned char b);
  int (*gf_invert_matrix)(unsigned char* in, unsigned char* out, int n);

  // The library, loaded on the first call and kept for the life of the process. Returns nullptr
  // with *error set when it cannot be loaded (libisal2 not installed).
  static const Isal* get(std::string* error);
};

}  // namespace erails
