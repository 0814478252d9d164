#include "qbox/share_table.h"

#include <cstdio>
#include <unordered_map>

#include "common/number.h"
#include "qbox/json_value.h"
#include "qbox/validate.h"

namespace erails::qbox {
namespace {

constexpr double kDefaultRecovery = 0.1;
constexpr double kDefaultBestEffort = 0.05;
// Sums are compared with a little slack: 0.1 + 0.2 + 0.7 is 1.0000000000000002 in doubles.
constexpr double kSumSlack = 1e-9;
constexpr std::size_t kMaxNameLength = 256;
// Each name an OSD has seen keeps an account for the OSD's life (osd_shares.h), so a table's size
// bounds what a stream of tables can make it hold.
constexpr std::size_t kMaxClients = 4096;

std::string shown(const JsonValue& value) {
  if (value.kind == JsonValue::Kind::number) return value.text;
  if (value.kind == JsonValue::Kind::string) return "\"" + value.text + "\"";
  return to_string(value.kind);
}

Error wrong(const std::string& key, const JsonValue& value, const char* accepted) {
  return Error{key, "got " + shown(value) + "; " + accepted};
}

Expected<double> utilization(const std::string& key, const JsonValue& value) {
  const char* accepted = "expected a fraction of device time in (0, 1]";
  if (value.kind != JsonValue::Kind::number) return wrong(key, value, accepted);
  const auto parsed = parse_real(value.text);
  if (!parsed || check_utilization(*parsed)) return wrong(key, value, accepted);
  return *parsed;
}

Expected<std::uint64_t> whole(const std::string& key, const JsonValue& value, const char* accepted,
                              std::uint64_t minimum) {
  if (value.kind != JsonValue::Kind::number) return wrong(key, value, accepted);
  const auto parsed = parse_uint(value.text);
  if (!parsed || *parsed < minimum) return wrong(key, value, accepted);
  return *parsed;
}

std::optional<Error> unknown_members(const std::string& prefix, const JsonValue& object,
                                     std::initializer_list<std::string_view> known,
                                     const char* accepted) {
  for (const auto& member : object.members) {
    bool ok = false;
    for (const auto k : known) ok = ok || member.first == k;
    if (!ok) return Error{prefix + member.first, std::string("is not a known key; accepted: ") + accepted};
  }
  return std::nullopt;
}

const JsonValue* required(const JsonValue& object, const std::string& prefix, const char* name,
                          std::optional<Error>& error) {
  const JsonValue* value = object.find(name);
  if (value == nullptr && !error) error = Error{prefix + name, "is missing"};
  return value;
}

Expected<ShareEntry> entry(const std::string& key, const JsonValue& value) {
  if (value.kind != JsonValue::Kind::object) {
    return wrong(key, value, "expected an object {\"name\", \"utilization\", \"owners\"}");
  }
  if (auto bad = unknown_members(key + ".", value, {"name", "utilization", "owners"},
                                 "name, utilization, owners")) {
    return *bad;
  }
  std::optional<Error> missing;
  const JsonValue* name = required(value, key + ".", "name", missing);
  const JsonValue* share = required(value, key + ".", "utilization", missing);
  const JsonValue* owners = required(value, key + ".", "owners", missing);
  if (missing) return *missing;

  ShareEntry out;
  if (name->kind != JsonValue::Kind::string || name->text.empty() ||
      name->text.size() > kMaxNameLength) {
    return wrong(key + ".name", *name, "expected a non-empty string of at most 256 bytes");
  }
  out.name = name->text;
  const auto u = utilization(key + ".utilization", *share);
  if (!u) return u.error();
  out.utilization = u.value();
  if (owners->kind != JsonValue::Kind::array) {
    return wrong(key + ".owners", *owners, "expected an array of global ids (integers >= 0)");
  }
  for (std::size_t i = 0; i < owners->items.size(); ++i) {
    const auto id = whole(key + ".owners[" + std::to_string(i) + "]", owners->items[i],
                          "expected a global id (an integer >= 0)", 0);
    if (!id) return id.error();
    out.owners.push_back(id.value());
  }
  return out;
}

}  // namespace

double ShareTable::unreserved() const {
  double sum = background_recovery + background_best_effort;
  for (const auto& client : clients) sum += client.utilization;
  return sum >= 1 ? 0 : 1 - sum;
}

ShareTable default_share_table() {
  ShareTable table;
  table.background_recovery = kDefaultRecovery;
  table.background_best_effort = kDefaultBestEffort;
  return table;
}

Expected<ShareTable> parse_share_table(std::string_view json) {
  const auto document = parse_json(json, "table");
  if (!document) return document.error();
  const JsonValue& root = document.value();
  if (root.kind != JsonValue::Kind::object) {
    return wrong("table", root, "expected an object {\"epoch\", \"clients\", "
                                "\"background_recovery\", \"background_best_effort\"}");
  }
  if (auto bad = unknown_members("", root,
                                 {"epoch", "clients", "background_recovery", "background_best_effort"},
                                 "epoch, clients, background_recovery, background_best_effort")) {
    return *bad;
  }
  std::optional<Error> missing;
  const JsonValue* epoch = required(root, "", "epoch", missing);
  const JsonValue* clients = required(root, "", "clients", missing);
  const JsonValue* recovery = required(root, "", "background_recovery", missing);
  const JsonValue* best_effort = required(root, "", "background_best_effort", missing);
  if (missing) return *missing;

  ShareTable table;
  const auto e = whole("epoch", *epoch, "expected an integer >= 1 (0 means no table)", 1);
  if (!e) return e.error();
  table.epoch = e.value();
  const auto r = utilization("background_recovery", *recovery);
  if (!r) return r.error();
  table.background_recovery = r.value();
  const auto b = utilization("background_best_effort", *best_effort);
  if (!b) return b.error();
  table.background_best_effort = b.value();

  if (clients->kind != JsonValue::Kind::array) {
    return wrong("clients", *clients, "expected an array of client entries");
  }
  if (clients->items.size() > kMaxClients) {
    return Error{"clients", std::to_string(clients->items.size()) +
                                " entries; accepted: at most " + std::to_string(kMaxClients)};
  }
  std::unordered_map<std::string, std::size_t> names;
  std::unordered_map<std::uint64_t, std::size_t> owners;
  double sum = table.background_recovery + table.background_best_effort;
  for (std::size_t i = 0; i < clients->items.size(); ++i) {
    const std::string key = "clients[" + std::to_string(i) + "]";
    auto parsed = entry(key, clients->items[i]);
    if (!parsed) return parsed.error();
    ShareEntry& client = parsed.value();
    if (!names.emplace(client.name, i).second) {
      return Error{key + ".name", "\"" + client.name + "\" is already the name of clients[" +
                                      std::to_string(names[client.name]) + "]; names must be unique"};
    }
    for (const auto owner : client.owners) {
      const auto [at, fresh] = owners.emplace(owner, i);
      if (!fresh) {
        return Error{key + ".owners", "global id " + std::to_string(owner) +
                                          " is already an owner of clients[" +
                                          std::to_string(at->second) +
                                          "]; each owner may be in one entry only"};
      }
    }
    sum += client.utilization;
    table.clients.push_back(std::move(client));
  }
  if (sum > 1 + kSumSlack) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "sum of every utilization (clients and both background classes) is %.6g; "
                  "accepted: at most 1",
                  sum);
    return Error{"clients", text};
  }
  return table;
}

}  // namespace erails::qbox
