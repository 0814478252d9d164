#include "qbox_osd/build_check.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "qbox_osd/allow_list.h"

namespace erails::qbox_osd {
namespace {

constexpr const char* kAllowListVariable = "ERAILS_QBOX_ALLOW_LIST";
// movabs $imm64, %rax; jmp *%rax
constexpr std::uint8_t kJumpPrefix[] = {0x48, 0xB8};
constexpr std::uint8_t kJumpSuffix[] = {0xFF, 0xE0};
constexpr std::size_t kJumpLength = 12;

}  // namespace

Expected<std::vector<AllowedBuild>> allowed_builds() {
  ceph_osd::AllowListSource source{"ERAILS_QBOX_ALLOWED_BUILDS", kAllowListVariable, {}, kJumpLength};
  for (const auto& entry : kAllowedBuilds) source.compiled.push_back(entry);
  return ceph_osd::read_allow_list(source);
}

Status redirect_if_allowed(void* target, void* replacement, const std::string& build_id,
                           const std::vector<AllowedBuild>& allowed) {
  const auto found = ceph_osd::find_build(build_id, allowed);
  if (!found) return found.error();
  const AllowedBuild* match = found.value();
  if (std::memcmp(target, match->first_bytes.data(), match->first_bytes.size()) != 0) {
    return Error{"make_scheduler", "the first bytes of make_scheduler differ from the allow-list "
                                   "entry of build-id " + build_id};
  }
  std::uint8_t jump[kJumpLength];
  const auto address = reinterpret_cast<std::uintptr_t>(replacement);
  std::memcpy(jump, kJumpPrefix, 2);
  std::memcpy(jump + 2, &address, 8);
  std::memcpy(jump + 10, kJumpSuffix, 2);
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto start = reinterpret_cast<std::uintptr_t>(target) & ~(page - 1);
  const auto length = reinterpret_cast<std::uintptr_t>(target) + kJumpLength - start;
  void* region = reinterpret_cast<void*>(start);
  if (mprotect(region, length, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
    return Error{"make_scheduler", std::string("mprotect to patch it failed: ") + std::strerror(errno)};
  }
  std::memcpy(target, jump, kJumpLength);
  mprotect(region, length, PROT_READ | PROT_EXEC);
  __builtin___clear_cache(static_cast<char*>(target), static_cast<char*>(target) + kJumpLength);
  return Ok{};
}

}  // namespace erails::qbox_osd
