#include "rails/schedule.h"

#include <cmath>
#include <string>

namespace erails::rails {

namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

Error bad(const char* key, const std::string& message) { return Error{key, message}; }

int64_t floor_mod(int64_t a, int64_t n) {
  int64_t r = a % n;
  return r < 0 ? r + n : r;
}

}  // namespace

Expected<ScheduleParams> validate(const ScheduleParams& p) {
  if (p.colors < 2 || p.colors > kMaxColors)
    return bad("k+m", "k+m (number of colors) is " + std::to_string(p.colors) +
                          "; accepted: 2.." + std::to_string(kMaxColors));
  if (!std::isfinite(p.frame_seconds) || p.frame_seconds < kMinFrameSeconds)
    return bad("rails-frame", "rails-frame is " + num(p.frame_seconds) + "; accepted: a finite number of seconds >= " +
                                  num(kMinFrameSeconds));
  if (p.readers < 1 || p.readers > p.colors - 1)
    return bad("rails-readers", "rails-readers is " + std::to_string(p.readers) + "; accepted: 1.." +
                                    std::to_string(p.colors - 1) +
                                    " (k+m-1: at least one color must be in write phase)");
  if (!(std::fabs(p.epoch) <= kMaxAbsTime))
    return bad("rails-epoch", "rails-epoch is " + num(p.epoch) + "; accepted: seconds in -" + num(kMaxAbsTime) +
                                  ".." + num(kMaxAbsTime));
  if (!std::isfinite(p.guard_seconds) || p.guard_seconds < 0 || p.guard_seconds >= p.frame_seconds)
    return bad("rails-guard", "rails-guard is " + num(p.guard_seconds) +
                                  "; accepted: 0 <= rails-guard < rails-frame (" + num(p.frame_seconds) + ")");
  return p;
}

Expected<Schedule> Schedule::create(const ScheduleParams& p) {
  auto v = validate(p);
  if (!v.ok()) return v.error();
  return Schedule(p);
}

int64_t Schedule::frame(double t) const {
  // The quotient can round across a boundary (t - epoch is itself rounded); correct it against the
  // frame starts so that frame() and frame_start() agree exactly, which keeps next_switch(t) > t.
  auto f = static_cast<int64_t>(std::floor((t - p_.epoch) / p_.frame_seconds));
  while (t < frame_start(f)) --f;
  while (t >= frame_start(f + 1)) ++f;
  return f;
}

int Schedule::window_start(double t) const { return static_cast<int>(floor_mod(frame(t), p_.colors)); }

ColorSet Schedule::read_set_of_frame(int64_t f) const {
  const int start = static_cast<int>(floor_mod(f, p_.colors));
  ColorSet s;
  for (int i = 0; i < p_.readers; ++i) s.insert((start + i) % p_.colors);
  return s;
}

ColorSet Schedule::read_set(double t) const { return read_set_of_frame(frame(t)); }

Phase Schedule::phase(int color, double t) const {
  return read_set(t).contains(color) ? Phase::kRead : Phase::kWrite;
}

double Schedule::frame_start(int64_t f) const {
  return p_.epoch + static_cast<double>(f) * p_.frame_seconds;
}

double Schedule::next_switch(double t) const { return frame_start(frame(t) + 1); }

bool Schedule::may_apply_writes(int color, double t) const {
  const int64_t f = frame(t);
  if (read_set_of_frame(f).contains(color)) return false;
  if (!read_set_of_frame(f + 1).contains(color)) return true;
  return t < frame_start(f + 1) - p_.guard_seconds;
}

ColorSet Schedule::apply_set(double t) const {
  ColorSet s;
  for (int c = 0; c < p_.colors; ++c)
    if (may_apply_writes(c, t)) s.insert(c);
  return s;
}

double Schedule::next_phase_change(int color, double t) const {
  const int64_t f = frame(t);
  const int n = p_.colors;
  // Position of the color inside the sliding window; it moves down by one per frame.
  const int pos = static_cast<int>(floor_mod(color - floor_mod(f, n), n));
  // A reader at position pos leaves after pos+1 frames; a writer enters when its position
  // reaches readers-1.
  const int64_t frames_ahead = pos < p_.readers ? pos + 1 : pos - p_.readers + 1;
  return frame_start(f + frames_ahead);
}

}  // namespace erails::rails
