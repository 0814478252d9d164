"""What the rails mgr module can follow. The erails plugin's build reads MIN_RAILS_FRAME_SECONDS
from this file (src/erasure-code/erails/CMakeLists.txt), so the monitor refuses at profile creation
a frame the module would refuse to schedule, with the same figure."""

# The module carries a switch to the OSDs in several rounds of commands after it (holds and
# releases, the release's kick and counter reads). On a 4-OSD local cluster (2-core VM, load
# average 8 to 13, 2026-11-24) holds reached the OSDs 2 to 22 ms after their guard began and
# releases, kick included, 14 to 102 ms after their switch. At 2 s that is at most a twentieth of
# a frame and half the default guard (a tenth of the frame); below it the module would spend its
# frames switching (at 0.001 s it flipped holds ~17 times a second).
MIN_RAILS_FRAME_SECONDS = 2.0
