// Our declaration of the part of Ceph's admin socket a library needs to add commands that
// both `ceph daemon <name> ...` and `ceph tell osd.N ...` reach (doc/dev/ceph-abi.md, "Commands
// through the admin socket": symbols from nm -D, the hook's vtable from VersionHook's vtable
// relocations, the call's registers from its disassembly).
#pragma once

#include <boost/variant.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <rados/buffer.h>

namespace erails::ceph_osd {

// cmdmap_t, spelled as its mangled name in ceph-osd spells it (find_matched_hook's signature):
// std::map<std::string, boost::variant<std::string, bool, long, double, std::vector<std::string>,
// std::vector<long>, std::vector<double>>, std::less<void>>. Debian builds Ceph against its own
// Boost (1.74 in Debian 12, 1.83 in 13: the variant's layout is the same), whose variant headers
// we compile with.
using CmdValue = boost::variant<std::string, bool, std::int64_t, double, std::vector<std::string>,
                                std::vector<std::int64_t>, std::vector<double>>;
using CmdMap = std::map<std::string, CmdValue, std::less<void>>;

struct Formatter;

}  // namespace erails::ceph_osd

// AdminSocketHook, whose call() takes other parameters on other builds. Its vtable on every
// checked build: 0 call, 1 call_async, 2/3 destructors. The socket reaches a hook through
// call_async alone, which must end by calling `on_finish(result, error text, out)` exactly once.
// Our hooks answer in respond(), a slot of ours after Ceph's, from both call and call_async:
// respond() gets the command's prefix words, the validated arguments, the formatter for the
// requested format, a stream whose text becomes the error message, and `out`: when `out` is left
// empty the socket flushes the formatter into it, so a hook that fills `out` itself answers with
// exactly that text. It returns 0 or a negative errno.
#include "ceph_abi/this_build/admin_socket_hook.h"

namespace erails::ceph_osd {

// CephContext::get_admin_socket() and AdminSocket::register_command(cmddesc, hook, help), both
// exported by ceph-osd; register_command returns 0, or -EEXIST when the prefix is taken.
// `cmddesc` is Ceph's command signature: prefix words, then name=...,type=... argument specs.
inline constexpr const char* kGetAdminSocketSymbol =
    "_ZN4ceph6common11CephContext16get_admin_socketEv";
inline constexpr const char* kRegisterCommandSymbol =
    "_ZN11AdminSocket16register_commandESt17basic_string_viewIcSt11char_traitsIcEEP15AdminSocketHookS3_";
using GetAdminSocket = void* (*)(void* cct);
using RegisterCommand = int (*)(void* admin_socket, std::string_view cmddesc,
                                AdminSocketHook* hook, std::string_view help);

// AdminSocket::execute_command(const std::vector<std::string>& cmd, const bufferlist& input,
// std::ostream& errors, bufferlist* output), exported by ceph-osd: runs one command the way
// `ceph daemon` does (`cmd` holds its JSON form) and waits for the hook's answer, returning the
// hook's result. Measured by calling it from the Rails lease's own thread (doc/dev/ceph-abi.md).
inline constexpr const char* kExecuteCommandSymbol =
    "_ZN11AdminSocket15execute_commandERKSt6vectorINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESaIS6_EERKN4ceph6buffer7v15_2_04listERSoPSE_";
using ExecuteCommand = int (*)(void* admin_socket, const std::vector<std::string>& cmd,
                               const ceph::buffer::list& input, std::ostream& errors,
                               ceph::buffer::list* output);

// ceph::global::g_ceph_context, the daemon's CephContext*, a variable ceph-osd exports.
inline constexpr const char* kGlobalContextSymbol = "_ZN4ceph6global14g_ceph_contextE";

}  // namespace erails::ceph_osd
