"""What the rails mgr module can follow. The erails plugin's build reads MIN_RAILS_FRAME_SECONDS
from this file (src/erasure-code/erails/CMakeLists.txt), so the monitor refuses at profile creation
a frame the module would refuse to schedule, with the same figure."""

# The module carries a switch to the OSDs in several rounds of commands after it (holds and
# releases, the release's kick, counter reads), and every few seconds reads every held OSD's
# counters; a frame must leave that a small part of itself. Below it the module would spend each
# frame switching (a frame of 0.001 s had it flip holds ~17 times a second).
MIN_RAILS_FRAME_SECONDS = 2.0
