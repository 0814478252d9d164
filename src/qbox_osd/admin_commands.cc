#include "qbox_osd/admin_commands.h"

#include <cerrno>
#include <string>

#include "ceph_abi/osd_commands.h"
#include "qbox/share_table.h"
#include "qbox_osd/log.h"
#include "qbox_osd/osd_scheduler.h"

namespace erails::qbox_osd {
namespace {

constexpr const char* kStatusCommand = "qbox status";
constexpr const char* kSetCommand = "qbox set name=table,type=CephString";
constexpr const char* kTableArgument = "table";

void answer(ceph::buffer::list& out, const std::string& text) {
  out.append(text.data(), static_cast<unsigned>(text.size()));
}

class QBoxCommands final : public ceph_osd::SyncAdminSocketHook {
 public:
  int respond(std::string_view command, const ceph_osd::CmdMap& cmdmap, ceph_osd::Formatter*,
           std::ostream& errors, ceph::buffer::list& out) override {
    OsdState* state = osd_state();
    if (state == nullptr) {
      errors << "qbox: the scheduler is not set up in this daemon";
      return -ENOENT;
    }
    if (command == "qbox status") {
      answer(out, state->shares.status_json(state->header, now()));
      return 0;
    }
    if (command == "qbox set") {
      const auto it = cmdmap.find(kTableArgument);
      const std::string* text = it == cmdmap.end() ? nullptr : boost::get<std::string>(&it->second);
      if (text == nullptr) {
        errors << "table: missing; expected the share table as JSON text";
        return -EINVAL;
      }
      const auto table = qbox::parse_share_table(*text);
      if (!table) {
        errors << table.error().to_string();
        return -EINVAL;
      }
      state->shares.set_table(table.value(), now());
      answer(out, state->shares.status_json(state->header, now()));
      return 0;
    }
    errors << "qbox: unknown command '" << command << "'; accepted: qbox status, qbox set";
    return -EINVAL;
  }
};

}  // namespace

void register_admin_commands(void* cct) {
  // Lives as long as the daemon: the socket keeps the pointer.
  static QBoxCommands* hook = new QBoxCommands();
  const Status registered = ceph_osd::register_commands(
      cct, hook, {{kStatusCommand, "QBox: shares, costs and achieved shares of this OSD"},
                  {kSetCommand, "QBox: replace this OSD's share table (JSON)"}});
  if (!registered) {
    log_line("`qbox` commands are not available: " + registered.error().to_string());
  }
}

}  // namespace erails::qbox_osd
