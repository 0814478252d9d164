#include "rails_osd/avoid.h"

#include <algorithm>
#include <chrono>

#include "common/json_text.h"
#include "common/number.h"
#include "rails_osd/report_text.h"

namespace erails::rails_osd {
namespace {

constexpr const char* kAccepted =
    "accepted: seconds=<s> colors=<bucket>[,<bucket>...], the single word clear, or nothing (report)";
constexpr const char* kClearWord = "clear";

// CRUSH bucket names, as `ceph osd crush add-bucket` accepts them.
bool bucket_name(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

Status parse_colors(const std::string& text, std::set<std::string>& colors) {
  std::string::size_type start = 0;
  while (true) {
    const auto end = text.find(',', start);
    const std::string name = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!bucket_name(name)) {
      return Error{"colors", "'" + name + "' is not a CRUSH bucket name; accepted: comma-separated "
                             "names of [A-Za-z0-9_.-]"};
    }
    colors.insert(name);
    if (end == std::string::npos) return Ok{};
    start = end + 1;
  }
}

}  // namespace

Expected<AvoidRequest> parse_avoid_request(const std::vector<std::string>& words) {
  AvoidRequest request;
  if (words.empty()) return request;
  if (words.size() == 1 && words[0] == kClearWord) {
    request.kind = AvoidRequest::Kind::clear;
    return request;
  }
  bool have_seconds = false, have_colors = false;
  for (const auto& word : words) {
    const auto equals = word.find('=');
    const std::string key = word.substr(0, equals);
    if (equals == std::string::npos) {
      return Error{word, std::string("not <key>=<value>") + (word == kClearWord ? " (clear comes alone)" : "") +
                             "; " + kAccepted};
    }
    const std::string value = word.substr(equals + 1);
    if (key != "seconds" && key != "colors") return Error{key, std::string("unknown key; ") + kAccepted};
    bool& seen = key == "seconds" ? have_seconds : have_colors;
    if (seen) return Error{key, std::string("given twice; ") + kAccepted};
    seen = true;
    if (key == "seconds") {
      const auto seconds = parse_real(value);
      if (!seconds || !(*seconds > 0) || *seconds > kMaxAvoidSeconds) {
        return Error{"seconds", "'" + value + "' is not a mark's length; accepted: a number of seconds, 0 < "
                                "seconds <= " + seconds_text(kMaxAvoidSeconds)};
      }
      request.seconds = *seconds;
    } else {
      const Status parsed = parse_colors(value, request.colors);
      if (!parsed) return parsed.error();
    }
  }
  if (!have_seconds || !have_colors) {
    return Error{have_seconds ? "colors" : "seconds",
                 std::string("missing; a mark needs seconds and colors; ") + kAccepted};
  }
  request.kind = AvoidRequest::Kind::mark;
  return request;
}

void AvoidMarks::mark(const std::set<std::string>& colors, double seconds, double now) {
  std::lock_guard<std::mutex> lock(mutex_);
  colors_ = colors;
  until_ = now + seconds;
  ++marks_;
  any_.store(!colors_.empty(), std::memory_order_release);
}

void AvoidMarks::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  colors_.clear();
  any_.store(false, std::memory_order_release);
}

std::uint64_t AvoidMarks::slow_mask(const std::vector<std::string>& colors, double now) const {
  if (!any_.load(std::memory_order_acquire)) return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  if (now >= until_) {
    any_.store(false, std::memory_order_release);
    return 0;
  }
  std::uint64_t mask = 0;
  for (std::size_t i = 0; i < colors.size() && i < 64; ++i) {
    if (colors_.count(colors[i])) mask |= std::uint64_t{1} << i;
  }
  return mask;
}

std::string AvoidMarks::report_json(double now) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const bool active = !colors_.empty() && now < until_;
  std::string names;
  for (const auto& color : colors_) names += (names.empty() ? "" : ",") + json_string(color);
  return std::string("{\"active\":") + (active ? "true" : "false") + ",\"colors\":[" +
         (active ? names : "") + "],\"seconds_left\":" + (active ? json_number(until_ - now) : "null") +
         ",\"marks\":" + std::to_string(marks_) + "}\n";
}

std::string AvoidMarks::report_plain(double now) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out;
  if (colors_.empty() || now >= until_) {
    out = "no colors avoided: erails reads pick shards by their Rails phase only\n";
  } else {
    std::string names;
    for (const auto& color : colors_) names += (names.empty() ? "" : ", ") + color;
    out = "erails reads avoid colors " + names + " while k other shards are there, for " +
          seconds_text(until_ - now) + " s more unless renewed\n";
  }
  return out + "marks received " + std::to_string(marks_) + "\n";
}

AvoidMarks& process_avoid_marks() {
  static AvoidMarks marks;
  return marks;
}

double avoid_clock_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace erails::rails_osd
