// The Rails schedule: which colors are read-phase at a wall-clock time.
//
// Definition (doc/dev/design.md, thesis §4.4.3 and §5.4): with N colors, frame length F, s readers
// and an epoch E,
//   frame(t)        = floor((t - E) / F)          (a true floor, also for t < E)
//                     exactly: the f with start(f) <= t < start(f+1), start(f) = E + f*F in
//                     double arithmetic (this settles the last-ulp rounding of the quotient)
//   window start    = frame(t) mod N              (mathematical modulo, always in 0..N-1)
//   read set at t   = { (start + i) mod N : 0 <= i < s }
//   write set at t  = the other N - s colors.
// A phase switch happens at every frame boundary: the window slides by one color, so one reader
// becomes a writer and one writer becomes a reader.
//
// Guard (thesis §4.4.4, "idle before switch"): the writer that becomes a reader at the next switch
// stops applying writes guard_seconds before that switch, so its device has no background work
// left when reads arrive. The guard never changes phase(); it is a separate query.
//
// Everything here is a pure function of the time passed in: the plugin, the mgr module
// (mgr/rails/schedule.py, which must agree on testdata/schedule_vectors.txt) and the simulator
// all compute the same answer from the same clock.
#pragma once

#include <cstdint>

#include "rails/color_set.h"
#include "common/error.h"

namespace erails::rails {

// Frames shorter than a millisecond make no sense for devices, and with times bounded by
// kMaxAbsTime (whose double spacing is ~0.12 ms) they keep every frame start a distinct double.
inline constexpr double kMinFrameSeconds = 0.001;
inline constexpr double kMaxAbsTime = 1e12;

struct ScheduleParams {
  int colors = 0;              // N = k + m; 2..kMaxColors
  double frame_seconds = 0;    // rails-frame; kMinFrameSeconds..finite
  int readers = 0;             // rails-readers; 1..N-1 (N would leave no color to apply writes)
  double epoch = 0;            // rails-epoch; |epoch| <= kMaxAbsTime, seconds on the clock of t
  double guard_seconds = 0;    // rails-guard; 0 <= guard < frame
};

enum class Phase { kRead, kWrite };

// Returns the first problem with p as an Error naming the key, or nothing if p is valid.
// Keys used: "k+m" (colors), "rails-frame", "rails-readers", "rails-epoch", "rails-guard".
Expected<ScheduleParams> validate(const ScheduleParams& p);

// Precondition for every time argument below: |t| <= kMaxAbsTime (about 31,700 years).
class Schedule {
 public:
  // The only way to build a Schedule: invalid parameters come back as an Error.
  static Expected<Schedule> create(const ScheduleParams& p);

  const ScheduleParams& params() const { return p_; }

  int64_t frame(double t) const;
  // Color at which the read window starts at t, in 0..N-1.
  int window_start(double t) const;
  // Read-phase colors at t (exactly `readers` of them).
  ColorSet read_set(double t) const;
  // Precondition: 0 <= color < N.
  Phase phase(int color, double t) const;

  // May `color` apply (flush) held writes to its data device at t? False for readers, and for the
  // writer that becomes a reader at the next switch once t >= next_switch(t) - guard_seconds.
  // Precondition: 0 <= color < N.
  bool may_apply_writes(int color, double t) const;
  // Colors for which may_apply_writes(color, t) is true.
  ColorSet apply_set(double t) const;

  // Smallest time strictly after t at which the frame number changes.
  double next_switch(double t) const;
  // Smallest time strictly after t at which `color` changes phase. Precondition: 0 <= color < N.
  double next_phase_change(int color, double t) const;

  // epoch + f * frame_seconds, in double arithmetic: frame(x) == f exactly for
  // frame_start(f) <= x < frame_start(f + 1).
  double frame_start(int64_t f) const;

  // Read set of a given frame number.
  ColorSet read_set_of_frame(int64_t f) const;

 private:
  explicit Schedule(const ScheduleParams& p) : p_(p) {}
  ScheduleParams p_;
};

}  // namespace erails::rails
