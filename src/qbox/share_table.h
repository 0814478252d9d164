#pragma once
// The share table an OSD schedules by (the contract between the in-OSD library and the mgr `qbox`
// module, doc/dev/qbox-in-osd.md): which client owners form a named client and what share of the
// OSD's device time each named client and each background class is guaranteed. Client ops whose
// owner is in no entry form the `unreserved` client, which gets what is left.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace erails::qbox {

struct ShareEntry {
  std::string name;                 // e.g. "client.alice"
  double utilization = 0;           // in (0, 1]
  std::vector<std::uint64_t> owners;  // the global ids the OSD sees as client.<id>
};

struct ShareTable {
  std::uint64_t epoch = 0;  // 0: the defaults an OSD starts with, before any table was sent
  std::vector<ShareEntry> clients;
  double background_recovery = 0;
  double background_best_effort = 0;

  // 1 - (every client's utilization + both background classes); >= 0 for a valid table.
  double unreserved() const;
};

// What an OSD runs with until the mgr sends a table: no named clients, and background work
// guaranteed a small share so that neither it nor the clients starve.
ShareTable default_share_table();

// Parses and validates the JSON text of `qbox set`'s `table` argument:
//   {"epoch": 7, "clients": [{"name": "client.alice", "utilization": 0.3, "owners": [4123]}],
//    "background_recovery": 0.1, "background_best_effort": 0.05}
// Errors name the key (e.g. "clients[1].utilization"), the value and what is accepted: a missing
// or unknown key, an epoch that is not an integer >= 1, a utilization outside (0, 1], a sum above
// 1, a name that is empty, longer than 256 bytes or repeated, an owner that is not an integer >= 0
// or is in two entries, more than 4096 clients.
Expected<ShareTable> parse_share_table(std::string_view json);

}  // namespace erails::qbox
