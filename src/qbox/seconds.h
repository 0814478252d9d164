#pragma once
// One unit of time for the whole library: seconds as double. Scheduling logic never reads a clock;
// every call that needs the time takes `now` so tests and the simulator drive it deterministically.

namespace erails::qbox {

using Seconds = double;

}  // namespace erails::qbox
