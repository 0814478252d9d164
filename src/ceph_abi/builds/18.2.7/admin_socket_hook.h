// Ceph 18.2.7's AdminSocketHook (VersionHook's vtable relocations; call()'s registers from its
// disassembly): call() takes the command's input before the formatter, which 16.2.15's did not.
// Included by ceph_abi/admin_socket.h, after the types it uses, which says how our hooks answer.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include <rados/buffer.h>

namespace erails::ceph_osd {

class AdminSocketHook {
 public:
  virtual int call(std::string_view command, const CmdMap& cmdmap,
                   const ceph::buffer::list& /*input*/, Formatter* formatter, std::ostream& errors,
                   ceph::buffer::list& out) {
    return respond(command, cmdmap, formatter, errors, out);
  }
  virtual void call_async(std::string_view command, const CmdMap& cmdmap, Formatter* formatter,
                          const ceph::buffer::list& input,
                          std::function<void(int, const std::string&, ceph::buffer::list&)>
                              on_finish) = 0;
  virtual ~AdminSocketHook() = default;
  virtual int respond(std::string_view command, const CmdMap& cmdmap, Formatter* formatter,
                      std::ostream& errors, ceph::buffer::list& out) = 0;
};

}  // namespace erails::ceph_osd
