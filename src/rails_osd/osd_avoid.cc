#include "rails_osd/osd_avoid.h"

#include <cerrno>

#include "ceph_abi/osd_commands.h"
#include "rails_osd/avoid.h"

namespace erails::rails_osd {
namespace {

constexpr const char* kAvoidCommand = "rails avoid name=args,type=CephString,n=N,req=false";
constexpr const char* kAvoidHelp =
    "Rails: with no words, the colors this OSD's erails reads avoid; seconds=<s> "
    "colors=<bucket>,... avoids them for <s> seconds unless renewed; clear drops them";

class AvoidHook final : public ceph_osd::SyncAdminSocketHook {
 public:
  int respond(std::string_view, const ceph_osd::CmdMap& cmdmap, ceph_osd::Formatter*,
              std::ostream& errors, ceph::buffer::list& out) override {
    const auto request = parse_avoid_request(ceph_osd::words_argument(cmdmap, "args"));
    if (!request) {
      errors << "rails avoid: " << request.error().to_string();
      return -EINVAL;
    }
    AvoidMarks& marks = process_avoid_marks();
    const double at = avoid_clock_seconds();
    if (request.value().kind == AvoidRequest::Kind::mark) {
      marks.mark(request.value().colors, request.value().seconds, at);
    } else if (request.value().kind == AvoidRequest::Kind::clear) {
      marks.clear();
    }
    const std::string text = ceph_osd::wants_json(cmdmap) ? marks.report_json(at) : marks.report_plain(at);
    out.append(text.data(), static_cast<unsigned>(text.size()));
    return 0;
  }
};

}  // namespace

Status register_avoid_command(void* cct) {
  // Lives as long as the daemon: the socket keeps the pointer.
  static AvoidHook* hook = new AvoidHook();
  return ceph_osd::register_commands(cct, hook, {{kAvoidCommand, kAvoidHelp}});
}

}  // namespace erails::rails_osd
