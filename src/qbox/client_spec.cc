#include "qbox/client_spec.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>

#include "qbox/validate.h"

namespace erails::qbox {
namespace {


bool to_double(const std::string& text, double* value) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  *value = std::strtod(text.c_str(), &end);
  return errno == 0 && *end == '\0' && std::isfinite(*value);
}

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
    std::uint64_t number = 0;
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
      if (!parse_u64(value, &number) || number == 0 || number % 4096 != 0 || number > (1u << 20)) {
        return bad(key, "a multiple of 4096 bytes up to 1048576", value);
      }
      spec.size = static_cast<std::uint32_t>(number);
    } else if (key == "util") {
      has_util = true;
      const std::size_t colon = value.find(':');
      const std::string first = value.substr(0, colon);
      const std::string last = colon == std::string::npos ? first : value.substr(colon + 1);
      // A ramp may start or end at 0 (thesis figs. 3.15/3.16 ramp streams to and from nothing);
      // the stream is paused while its target is 0.
      const bool ramp = colon != std::string::npos;
      auto share_ok = [&](double u) { return ramp ? (u == 0 || !check_utilization(u)) : !check_utilization(u); };
      if (!to_double(first, &spec.util_start) || !to_double(last, &spec.util_end) ||
          !share_ok(spec.util_start) || !share_ok(spec.util_end) ||
          (spec.util_start == 0 && spec.util_end == 0)) {
        return bad(key, "a share in (0, 1], or a ramp 'a:b' of shares in [0, 1], not both 0", value);
      }
    } else if (key == "loop") {
      if (value == "closed") spec.closed_loop = true;
      else if (value == "open") spec.closed_loop = false;
      else return bad(key, "closed or open", value);
    } else if (key == "depth") {
      if (!parse_u64(value, &number) || number < 1 || number > 4096) return bad(key, "1..4096", value);
      spec.depth = static_cast<unsigned>(number);
    } else if (key == "rate") {
      if (!to_double(value, &spec.rate) || !(spec.rate > 0)) return bad(key, "requests/s > 0", value);
    } else if (key == "semi") {
      const std::size_t slash = value.find('/');
      std::uint64_t random = 0;
      std::uint64_t sequential = 0;
      if (slash == std::string::npos || !parse_u64(value.substr(0, slash), &random) ||
          !parse_u64(value.substr(slash + 1), &sequential) || random + sequential == 0 ||
          random > 1000000 || sequential > 1000000) {
        return bad(key, "'random/sequential' request counts, e.g. 25/475", value);
      }
      spec.semi_random = static_cast<unsigned>(random);
      spec.semi_sequential = static_cast<unsigned>(sequential);
    } else if (key == "trace") {
      if (value.empty()) return bad(key, "a path to an MSR Cambridge CSV trace", value);
      spec.trace_path = value;
    } else if (key == "region") {
      if (!parse_u64(value, &number) || number % 4096 != 0) return bad(key, "a multiple of 4096 bytes", value);
      spec.region_bytes = number;
    } else if (key == "start") {
      if (!parse_u64(value, &number) || number % 4096 != 0) return bad(key, "a multiple of 4096 bytes", value);
      spec.has_start = true;
      spec.start = number;
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
