#include "qbox_osd/admin_commands.h"

#include <dlfcn.h>

#include <cerrno>
#include <cstdio>
#include <sstream>
#include <string>

#include "ceph_abi/admin_socket.h"
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

class QBoxCommands final : public ceph_osd::AdminSocketHook {
 public:
  int call(std::string_view command, const ceph_osd::CmdMap& cmdmap, ceph_osd::Formatter*,
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

  void call_async(std::string_view command, const ceph_osd::CmdMap& cmdmap,
                  ceph_osd::Formatter* formatter, const ceph::buffer::list& /*input*/,
                  std::function<void(int, const std::string&, ceph::buffer::list&)> on_finish)
      override {
    ceph::buffer::list out;
    std::ostringstream errors;
    const int result = call(command, cmdmap, formatter, errors, out);
    on_finish(result, errors.str(), out);
  }
};

}  // namespace

void register_admin_commands(void* cct) {
  const auto get_socket =
      reinterpret_cast<ceph_osd::GetAdminSocket>(dlsym(RTLD_DEFAULT, ceph_osd::kGetAdminSocketSymbol));
  const auto register_command = reinterpret_cast<ceph_osd::RegisterCommand>(
      dlsym(RTLD_DEFAULT, ceph_osd::kRegisterCommandSymbol));
  if (get_socket == nullptr || register_command == nullptr || cct == nullptr) {
    log_line("the admin socket symbols are missing; `qbox` commands are not available");
    return;
  }
  void* socket = get_socket(cct);
  // Lives as long as the daemon: the socket keeps the pointer.
  static QBoxCommands* hook = new QBoxCommands();
  for (const char* command : {kStatusCommand, kSetCommand}) {
    const std::string_view help = command == kStatusCommand
                                      ? "QBox: shares, costs and achieved shares of this OSD"
                                      : "QBox: replace this OSD's share table (JSON)";
    const int r = register_command(socket, command, hook, help);
    if (r != 0) log_line(std::string("registering '") + command + "' failed: " + std::to_string(r));
  }
}

}  // namespace erails::qbox_osd
