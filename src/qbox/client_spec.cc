#include "qbox/client_spec.h"

#include <set>

#include "common/number.h"
#include "qbox/validate.h"

namespace erails::qbox {
namespace {

Error bad(const std::string& key, const std::string& accepted, const std::string& got) {
  return Error{key, "must be " + accepted + ", got '" + got + "'"};
}

}  // namespace

Expected<ClientSpec> parse_client_spec(const std::string& text) {
  ClientSpec spec;
  std::set<std::string> seen;
  bool has_util = false;
  bool has_pattern = false;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string pair = text.substr(start, comma - start);
    start = comma + 1;
    const std::size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Error{"client", "expected key=value, got '" + pair + "'"};
    }
    const std::string key = pair.substr(0, eq);
    const std::string value = pair.substr(eq + 1);
    if (!seen.insert(key).second) return Error{key, "given more than once"};
    if (key == "name") {
      if (value.empty() || value.size() > 64 ||
          value.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") !=
              std::string::npos) {
        return bad(key, "1-64 letters, digits, '-' or '_'", value);
      }
      spec.name = value;
    } else if (key == "pattern") {
      has_pattern = true;
      if (value == "sequential") spec.pattern = Pattern::sequential;
      else if (value == "random") spec.pattern = Pattern::random;
      else if (value == "semi") spec.pattern = Pattern::semi;
      else if (value == "trace") spec.pattern = Pattern::trace;
      else return bad(key, "sequential, random, semi or trace", value);
    } else if (key == "op") {
      if (value == "read") spec.operation = Operation::read;
      else if (value == "write") spec.operation = Operation::write;
      else return bad(key, "read or write", value);
    } else if (key == "size") {
      const auto size = parse_uint(value);
      if (!size || *size == 0 || *size % 4096 != 0 || *size > (1u << 20)) {
        return bad(key, "a multiple of 4096 bytes up to 1048576", value);
      }
      spec.size = static_cast<std::uint32_t>(*size);
    } else if (key == "util") {
      has_util = true;
      const std::size_t colon = value.find(':');
      const std::string first = value.substr(0, colon);
      const std::string last = colon == std::string::npos ? first : value.substr(colon + 1);
      // A ramp may start or end at 0 (thesis figs. 3.15/3.16 ramp streams to and from nothing);
      // the stream is paused while its target is 0.
      const bool ramp = colon != std::string::npos;
      auto share_ok = [&](double u) { return ramp ? (u == 0 || !check_utilization(u)) : !check_utilization(u); };
      const auto util_start = parse_real(first);
      const auto util_end = parse_real(last);
      if (!util_start || !util_end || !share_ok(*util_start) || !share_ok(*util_end) ||
          (*util_start == 0 && *util_end == 0)) {
        return bad(key, "a share in (0, 1], or a ramp 'a:b' of shares in [0, 1], not both 0", value);
      }
      spec.util_start = *util_start;
      spec.util_end = *util_end;
    } else if (key == "loop") {
      if (value == "closed") spec.closed_loop = true;
      else if (value == "open") spec.closed_loop = false;
      else return bad(key, "closed or open", value);
    } else if (key == "depth") {
      const auto depth = parse_uint(value);
      if (!depth || *depth < 1 || *depth > 4096) return bad(key, "1..4096", value);
      spec.depth = static_cast<unsigned>(*depth);
    } else if (key == "rate") {
      const auto rate = parse_real(value);
      if (!rate || !(*rate > 0)) return bad(key, "requests/s > 0", value);
      spec.rate = *rate;
    } else if (key == "semi") {
      const std::size_t slash = value.find('/');
      const auto random = slash == std::string::npos ? std::nullopt : parse_uint(value.substr(0, slash));
      const auto sequential = slash == std::string::npos ? std::nullopt : parse_uint(value.substr(slash + 1));
      if (!random || !sequential || *random + *sequential == 0 || *random > 1000000 || *sequential > 1000000) {
        return bad(key, "'random/sequential' request counts, e.g. 25/475", value);
      }
      spec.semi_random = static_cast<unsigned>(*random);
      spec.semi_sequential = static_cast<unsigned>(*sequential);
    } else if (key == "trace") {
      if (value.empty()) return bad(key, "a path to an MSR Cambridge CSV trace", value);
      spec.trace_path = value;
    } else if (key == "region") {
      const auto region = parse_uint(value);
      if (!region || *region % 4096 != 0) return bad(key, "a multiple of 4096 bytes", value);
      spec.region_bytes = *region;
    } else if (key == "start") {
      const auto start_offset = parse_uint(value);
      if (!start_offset || *start_offset % 4096 != 0) return bad(key, "a multiple of 4096 bytes", value);
      spec.has_start = true;
      spec.start = *start_offset;
    } else {
      return Error{key, "unknown key; accepted: name, pattern, op, size, util, loop, depth, rate, "
                        "semi, trace, region, start"};
    }
  }
  if (spec.name.empty()) return Error{"name", "required"};
  if (!has_pattern) return Error{"pattern", "required: sequential, random, semi or trace"};
  if (!has_util) return Error{"util", "required: a share of device time in (0, 1]"};
  if (spec.pattern == Pattern::trace && spec.trace_path.empty()) {
    return Error{"trace", "required when pattern=trace"};
  }
  if (spec.pattern != Pattern::trace && !spec.trace_path.empty()) {
    return Error{"trace", "only valid with pattern=trace"};
  }
  if (!spec.closed_loop && spec.rate == 0 && spec.pattern != Pattern::trace) {
    return Error{"rate", "required for loop=open (trace streams may use the trace's timing)"};
  }
  if (spec.closed_loop && seen.count("rate") != 0) return Error{"rate", "only valid with loop=open"};
  if (!spec.closed_loop && seen.count("depth") != 0) return Error{"depth", "only valid with loop=closed"};
  return spec;
}

}  // namespace erails::qbox
