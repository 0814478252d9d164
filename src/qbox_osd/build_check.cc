#include "qbox_osd/build_check.h"

#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "qbox_osd/allow_list.h"

namespace erails::qbox_osd {
namespace {

constexpr const char* kAllowListVariable = "ERAILS_QBOX_ALLOW_LIST";
constexpr std::uint32_t kNoteGnuBuildId = 3;
// movabs $imm64, %rax; jmp *%rax
constexpr std::uint8_t kJumpPrefix[] = {0x48, 0xB8};
constexpr std::uint8_t kJumpSuffix[] = {0xFF, 0xE0};
constexpr std::size_t kJumpLength = 12;

std::optional<std::vector<std::uint8_t>> parse_hex(const std::string& text) {
  if (text.empty() || text.size() % 2 != 0) return std::nullopt;
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i < text.size(); i += 2) {
    unsigned value = 0;
    for (std::size_t j = i; j < i + 2; ++j) {
      const char c = text[j];
      value *= 16;
      if (c >= '0' && c <= '9') value += c - '0';
      else if (c >= 'a' && c <= 'f') value += c - 'a' + 10;
      else return std::nullopt;
    }
    out.push_back(static_cast<std::uint8_t>(value));
  }
  return out;
}

Expected<AllowedBuild> parse_entry(const std::string& build_id, const std::string& bytes,
                                   const std::string& where) {
  const auto id = parse_hex(build_id);
  const auto first = parse_hex(bytes);
  if (!id || !first || first->size() < kJumpLength) {
    return Error{where, "expected '<build-id hex> <first bytes hex, at least 12 bytes>' in "
                        "lower case, got '" + build_id + " " + bytes + "'"};
  }
  return AllowedBuild{build_id, *first};
}

int find_build_id(dl_phdr_info* info, std::size_t, void* data) {
  auto* out = static_cast<std::string*>(data);
  // The first object dl_iterate_phdr reports is the main executable.
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const char* at = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    const char* end = at + ph.p_memsz;
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(at);
      const char* name = at + sizeof(ElfW(Nhdr));
      const char* desc = name + ((note->n_namesz + 3) & ~3u);
      if (note->n_type == kNoteGnuBuildId && note->n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        static const char digits[] = "0123456789abcdef";
        for (std::uint32_t k = 0; k < note->n_descsz; ++k) {
          const auto byte = static_cast<unsigned char>(desc[k]);
          *out += digits[byte >> 4];
          *out += digits[byte & 15];
        }
        return 1;
      }
      at = desc + ((note->n_descsz + 3) & ~3u);
    }
  }
  return 1;
}

}  // namespace

Expected<std::vector<AllowedBuild>> allowed_builds() {
  std::vector<AllowedBuild> out;
  const char* path = std::getenv(kAllowListVariable);
  if (path == nullptr) {
    for (const auto& [id, bytes] : kAllowedBuilds) {
      auto entry = parse_entry(id, bytes, "ERAILS_QBOX_ALLOWED_BUILDS");
      if (!entry) return entry.error();
      out.push_back(std::move(entry.value()));
    }
    return out;
  }
  std::ifstream file(path);
  if (!file) return Error{kAllowListVariable, std::string("cannot read '") + path + "'"};
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string id, bytes, extra;
    if (!(words >> id)) continue;
    words >> bytes;
    if (words >> extra) bytes += " " + extra;  // reported as malformed below
    auto entry = parse_entry(id, bytes, std::string(path) + ":" + std::to_string(number));
    if (!entry) return entry.error();
    out.push_back(std::move(entry.value()));
  }
  return out;
}

std::string executable_build_id() {
  std::string id;
  dl_iterate_phdr(find_build_id, &id);
  return id;
}

Status redirect_if_allowed(void* target, void* replacement, const std::string& build_id,
                           const std::vector<AllowedBuild>& allowed) {
  const AllowedBuild* match = nullptr;
  for (const auto& entry : allowed) {
    if (entry.build_id == build_id) match = &entry;
  }
  if (match == nullptr) {
    return Error{"build-id", "ceph-osd build-id " + (build_id.empty() ? "(none)" : build_id) +
                                 " is not on the allow-list of builds whose layouts were checked"};
  }
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
