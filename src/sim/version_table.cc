#include "sim/version_table.h"

#include <sys/mman.h>

#include <new>

namespace erails::sim {

static_assert(sizeof(ObjectVersions) == 8 && sizeof(ShardVersions) == 8, "records are 8-byte slots");

VersionTable::VersionTable(uint64_t objects, int shards)
    : objects_(objects), stride_(1 + static_cast<uint64_t>(shards)), bytes_(objects * stride_ * 8) {
  if (bytes_ == 0) bytes_ = 8;
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // Advice only: without transparent huge pages the table works the same, just slower.
  madvise(p, bytes_, MADV_HUGEPAGE);
  base_ = static_cast<uint64_t*>(p);
}

VersionTable::~VersionTable() { munmap(base_, bytes_); }

}  // namespace erails::sim
