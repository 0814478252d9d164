#include "ceph_abi/osd_build.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "ceph_abi/op_scheduler.h"

namespace erails::ceph_osd {
namespace {

constexpr std::uint32_t kNoteGnuBuildId = 3;

std::optional<std::vector<std::uint8_t>> parse_hex(const std::string& text) {
  if (text.size() % 2 != 0) return std::nullopt;
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

std::string expected_form(std::size_t min_first_bytes) {
  if (min_first_bytes == 0) return "'<build-id hex>' in lower case";
  return "'<build-id hex> <first bytes hex, at least " + std::to_string(min_first_bytes) +
         " bytes>' in lower case";
}

Expected<AllowedBuild> parse_entry(const std::string& build_id, const std::string& bytes,
                                   const std::string& where, std::size_t min_first_bytes) {
  const auto id = parse_hex(build_id);
  const auto first = parse_hex(bytes);
  const bool bytes_ok = first && (min_first_bytes == 0 ? bytes.empty() : first->size() >= min_first_bytes);
  if (build_id.empty() || !id || !bytes_ok) {
    return Error{where, "expected " + expected_form(min_first_bytes) + ", got '" + build_id +
                            (bytes.empty() ? "" : " " + bytes) + "'"};
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

Expected<std::vector<AllowedBuild>> read_allow_list(const AllowListSource& source) {
  std::vector<AllowedBuild> out;
  const char* path = std::getenv(source.variable);
  if (path == nullptr) {
    for (const auto& [id, bytes] : source.compiled) {
      auto entry = parse_entry(id, bytes, source.setting, source.min_first_bytes);
      if (!entry) return entry.error();
      out.push_back(std::move(entry.value()));
    }
    return out;
  }
  std::ifstream file(path);
  if (!file) return Error{source.variable, std::string("cannot read '") + path + "'"};
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string id, bytes, extra;
    if (!(words >> id)) continue;
    words >> bytes;
    if (words >> extra) bytes += " " + extra;  // reported as malformed below
    auto entry = parse_entry(id, bytes, std::string(path) + ":" + std::to_string(number),
                             source.min_first_bytes);
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

Expected<const AllowedBuild*> find_build(const std::string& build_id,
                                         const std::vector<AllowedBuild>& allowed) {
  for (const auto& entry : allowed) {
    if (entry.build_id == build_id) return &entry;
  }
  return Error{"build-id", "ceph-osd build-id " + (build_id.empty() ? "(none)" : build_id) +
                               " is not on the allow-list of builds whose layouts were checked"};
}

bool in_ceph_osd() { return dlsym(RTLD_DEFAULT, kMakeSchedulerSymbol) != nullptr; }

}  // namespace erails::ceph_osd
