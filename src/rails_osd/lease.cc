#include "rails_osd/lease.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "common/json_text.h"
#include "common/number.h"
#include "rails_osd/report_text.h"

namespace erails::rails_osd {
namespace {

constexpr const char* kAcceptedKeys =
    "accepted: seconds=<s> release=<option>=<value>[,...] [unset=<option>[,...]] [kick=<bytes>], "
    "the single word cancel, or nothing (report)";
constexpr const char* kCancelWord = "cancel";

bool option_name(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// Values reach the OSD inside an injectargs word, so they may not hold separators or quotes.
bool option_value(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-' || c == '+';
  });
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  while (true) {
    const auto end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

Expected<std::vector<std::pair<std::string, std::string>>> parse_settings(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> settings;
  for (const auto& item : split(text, ',')) {
    const auto equals = item.find('=');
    const std::string name = item.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : item.substr(equals + 1);
    if (equals == std::string::npos || !option_name(name) || !option_value(value)) {
      return Error{"release", "'" + item + "' is not <option>=<value>; accepted: comma-separated "
                              "<option>=<value>, options of [a-z0-9_], values of [A-Za-z0-9_.+-]"};
    }
    settings.emplace_back(name, value);
  }
  return settings;
}

Expected<std::vector<std::string>> parse_names(const std::string& text) {
  std::vector<std::string> names = split(text, ',');
  for (const auto& name : names) {
    if (!option_name(name)) {
      return Error{"unset", "'" + name + "' is not an option name; accepted: comma-separated "
                            "option names of [a-z0-9_]"};
    }
  }
  return names;
}

Status parse_word(const std::string& key, const std::string& value, Grant& grant) {
  if (key == "seconds") {
    const auto seconds = parse_real(value);
    if (!seconds || !(*seconds > 0) || *seconds > kMaxLeaseSeconds) {
      std::ostringstream accepted;
      accepted << "'" << value << "' is not a lease length; accepted: a number of seconds, 0 < "
               << "seconds <= " << kMaxLeaseSeconds;
      return Error{"seconds", accepted.str()};
    }
    grant.seconds = *seconds;
  } else if (key == "release") {
    auto settings = parse_settings(value);
    if (!settings) return settings.error();
    grant.release.set = std::move(settings.value());
  } else if (key == "unset") {
    auto names = parse_names(value);
    if (!names) return names.error();
    grant.release.unset = std::move(names.value());
  } else if (key == "kick") {
    const auto bytes = parse_uint(value);
    if (!bytes || *bytes > kMaxKickBytes) {
      return Error{"kick", "'" + value + "' is not a write size; accepted: 0.." +
                               std::to_string(kMaxKickBytes) + " bytes"};
    }
    grant.release.kick_bytes = *bytes;
  } else {
    return Error{key, std::string("unknown key; ") + kAcceptedKeys};
  }
  return Ok{};
}

}  // namespace

Expected<Request> parse_request(const std::vector<std::string>& words) {
  Request request;
  if (words.empty()) return request;
  if (words.size() == 1 && words[0] == kCancelWord) {
    request.kind = Request::Kind::cancel;
    return request;
  }
  std::set<std::string> seen;
  for (const auto& word : words) {
    const auto equals = word.find('=');
    if (equals == std::string::npos) {
      return Error{word, std::string("not <key>=<value>") +
                             (word == kCancelWord ? " (cancel comes alone)" : "") + "; " + kAcceptedKeys};
    }
    const std::string key = word.substr(0, equals);
    if (!seen.insert(key).second) {
      return Error{key, std::string("given twice; ") + kAcceptedKeys};
    }
    const Status parsed = parse_word(key, word.substr(equals + 1), request.grant);
    if (!parsed) return parsed.error();
  }
  for (const char* required : {"seconds", "release"}) {
    if (seen.count(required) == 0) {
      return Error{required, std::string("missing; a grant needs seconds and release; ") + kAcceptedKeys};
    }
  }
  request.kind = Request::Kind::grant;
  return request;
}

std::vector<std::string> release_commands(const ReleasePlan& plan) {
  std::vector<std::string> commands;
  if (!plan.set.empty()) {
    std::string args;
    for (const auto& [name, value] : plan.set) {
      args += (args.empty() ? "" : ",") + json_string("--" + name + "=" + value);
    }
    commands.push_back(R"({"prefix":"injectargs","injected_args":[)" + args + "]}");
  }
  for (const auto& name : plan.unset) {
    commands.push_back(R"({"prefix":"config unset","var":)" + json_string(name) + "}");
  }
  if (plan.kick_bytes > 0) {
    const std::string bytes = std::to_string(plan.kick_bytes);
    commands.push_back(R"({"prefix":"bench","count":)" + bytes + R"(,"size":)" + bytes + "}");
  }
  return commands;
}

bool Lease::grant(const Grant& grant, double now) {
  const bool lapsed = state_ == State::released;
  state_ = State::active;
  grant_ = grant;
  granted_at_ = now;
  deadline_ = now + grant.seconds;
  ++grants_;
  lapsed_at_last_grant_ = lapsed;
  return lapsed;
}

void Lease::cancel(double) {
  if (state_ == State::active) state_ = State::cancelled;
}

std::optional<double> Lease::deadline() const {
  if (state_ != State::active) return std::nullopt;
  return deadline_;
}

std::optional<ReleasePlan> Lease::take_expired(double now) {
  if (state_ != State::active || now < deadline_) return std::nullopt;
  state_ = State::released;
  ++self_releases_;
  return grant_.release;
}

void Lease::record_release(double now, bool ok, const std::string& detail) {
  released_at_ = now;
  release_ok_ = ok;
  release_detail_ = detail;
}

const char* Lease::name(State state) {
  switch (state) {
    case State::none: return "none";
    case State::active: return "active";
    case State::released: return "released";
    case State::cancelled: return "cancelled";
  }
  return "unknown";
}

std::string Lease::report_json(double now) const {
  std::string commands;
  for (const auto& command : release_commands(grant_.release)) {
    commands += (commands.empty() ? "" : ",") + json_string(command);
  }
  std::string out = "{\"state\":" + json_string(name(state_));
  out += ",\"seconds_left\":" + (state_ == State::active ? json_number(deadline_ - now) : "null");
  out += ",\"lease_seconds\":" + json_number(grant_.seconds);
  out += ",\"grants\":" + std::to_string(grants_);
  out += ",\"self_releases\":" + std::to_string(self_releases_);
  out += std::string(",\"lapsed_at_last_grant\":") + (lapsed_at_last_grant_ ? "true" : "false");
  out += ",\"release_commands\":[" + commands + "]";
  if (released_at_) {
    out += ",\"last_self_release\":{\"seconds_ago\":" + json_number(now - *released_at_) +
           ",\"ok\":" + (release_ok_ ? "true" : "false") + ",\"detail\":" + json_string(release_detail_) + "}";
  } else {
    out += ",\"last_self_release\":null";
  }
  return out + "}\n";
}

std::string Lease::report_plain(double now) const {
  std::string out;
  switch (state_) {
    case State::none: out = "no Rails lease: this OSD was never held through one\n"; break;
    case State::active:
      out = "lease active: this OSD releases itself in " + seconds_text(deadline_ - now) +
            " s unless renewed (lease of " + seconds_text(grant_.seconds) + " s)\n";
      break;
    case State::released: out = "lease ran out: this OSD released itself\n"; break;
    case State::cancelled: out = "lease cancelled: the module released this OSD\n"; break;
  }
  out += "grants " + std::to_string(grants_) + ", self-releases " + std::to_string(self_releases_) +
         (lapsed_at_last_grant_ ? ", the last grant found the lease run out" : "") + "\n";
  for (const auto& command : release_commands(grant_.release)) out += "release: " + command + "\n";
  if (released_at_) {
    out += "last self-release " + seconds_text(now - *released_at_) + " s ago: " +
           (release_ok_ ? "applied" : "failed") + ": " + release_detail_ + "\n";
  }
  return out;
}

}  // namespace erails::rails_osd
