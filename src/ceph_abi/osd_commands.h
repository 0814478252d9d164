// Adding commands to, and running commands of, the admin socket of the ceph-osd a library is
// loaded into (doc/dev/ceph-abi.md, "Commands through the admin socket"). Shared by libec_qbox.so
// and the Rails lease inside libec_erails.so; only for builds on the caller's allow-list.
#pragma once

#include <functional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "ceph_abi/admin_socket.h"
#include "common/error.h"

namespace erails::ceph_osd {

// A hook whose commands answer at once: call_async runs respond() and reports its outcome, which is
// what Ceph's base class (not linked to) does with call() for hooks that override only call().
class SyncAdminSocketHook : public AdminSocketHook {
 public:
  void call_async(std::string_view command, const CmdMap& cmdmap, Formatter* formatter,
                  const ceph::buffer::list& /*input*/,
                  std::function<void(int, const std::string&, ceph::buffer::list&)> on_finish)
      override {
    ceph::buffer::list out;
    std::ostringstream errors;
    const int result = respond(command, cmdmap, formatter, errors, out);
    on_finish(result, errors.str(), out);
  }
};

struct CommandSpec {
  const char* descriptor;  // Ceph's signature: prefix words, then name=...,type=... arguments
  const char* help;
};

// Registers every command of `commands` for `hook` with the admin socket of `cct`; `hook` must
// live as long as the daemon. Errors name the command that failed, or the missing symbols.
Status register_commands(void* cct, AdminSocketHook* hook, const std::vector<CommandSpec>& commands);

// A command's list argument `name` (n=N), empty when not given.
std::vector<std::string> words_argument(const CmdMap& cmdmap, const char* name);

// Whether the caller asked for JSON (`-f json`, `-f json-pretty`).
bool wants_json(const CmdMap& cmdmap);

struct CommandOutcome {
  int result;          // 0 or a negative errno, as the command's hook returned it
  std::string output;  // what `ceph daemon` would print
  std::string errors;
};

// Runs one command (Ceph's JSON form, {"prefix": ..., arguments}) through the admin socket of
// `cct`, as `ceph daemon` would, and waits for its answer. Must not be called from inside a hook
// of the same socket. -ENOSYS when the socket's symbols are missing.
CommandOutcome execute_command(void* cct, const std::string& json);

// The daemon's CephContext, from the global that ceph-osd exports (nm -D); nullptr elsewhere.
void* daemon_context();

// "erails <library>: <text>" on standard error (ceph_abi/daemon_log.h) and, because a daemonized
// ceph-osd's standard error is /dev/null, appended as one line to the daemon's own log file
// (its `log_file` setting, read through `config get`), stamped as Ceph stamps its lines.
void log_to_daemon(void* cct, const char* library, const std::string& text);

}  // namespace erails::ceph_osd
