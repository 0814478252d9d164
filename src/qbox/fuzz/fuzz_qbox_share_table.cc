// Share tables come from `ceph tell osd.N qbox set`, inside a running OSD: parsing must never
// crash, and an accepted table must satisfy every rule the parser promises.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "qbox/share_table.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto table = erails::qbox::parse_share_table(text);
  if (!table) return 0;
  const auto& t = table.value();
  if (t.epoch == 0 || t.unreserved() < 0) __builtin_trap();
  std::set<std::string> names;
  std::set<std::uint64_t> owners;
  for (const auto& client : t.clients) {
    if (!(client.utilization > 0 && client.utilization <= 1)) __builtin_trap();
    if (!names.insert(client.name).second) __builtin_trap();
    for (const auto owner : client.owners) {
      if (!owners.insert(owner).second) __builtin_trap();
    }
  }
  return 0;
}
