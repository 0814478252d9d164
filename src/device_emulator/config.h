// What one process's emulator is told, through environment variables set on that process's
// command line only (vstart-configs/start.sh sets them per OSD):
//   ERAILS_EMULATOR_CONFIG          model file (devices/model_config.h): [ssd]/[hdd] sections,
//                                   base = ..., time_scale = ...; required
//   ERAILS_EMULATOR_MODEL           which section of it to run; default: the one section no
//                                   other section names as its base
//   ERAILS_EMULATOR_DEVICE          path of the data device (a file or block device); the
//                                   emulator knows it by device+inode, whatever path opens it
//   ERAILS_EMULATOR_STATS           JSON file the stats are written to (atomically); optional
//   ERAILS_EMULATOR_STATS_INTERVAL  seconds between stats writes, 0.1..3600 (default 1)
//   ERAILS_EMULATOR_LOG             file the emulator's log lines are appended to (default stderr)
//   ERAILS_EMULATOR_CONTROL         file read again every 0.1 s while the process runs; it may say
//                                   `slowdown = K` (1..1000): the device becomes K times slower
//                                   from then on (devices/slowed.h), and `model = off`: requests
//                                   complete at their real time, the model bypassed, until
//                                   `model = on`. Absent or empty: 1 and on. Optional
//   ERAILS_EMULATOR_TEST_HOST       1: a program with no Ceph in it may load the emulator (the
//                                   tests); without it only a checked ceph-osd may
#pragma once

#include <functional>
#include <string>
#include <sys/types.h>

#include "common/error.h"
#include "devices/model_config.h"

namespace erails::device_emulator {

inline constexpr const char* kConfigVar = "ERAILS_EMULATOR_CONFIG";
inline constexpr const char* kModelVar = "ERAILS_EMULATOR_MODEL";
inline constexpr const char* kDeviceVar = "ERAILS_EMULATOR_DEVICE";
inline constexpr const char* kStatsVar = "ERAILS_EMULATOR_STATS";
inline constexpr const char* kStatsIntervalVar = "ERAILS_EMULATOR_STATS_INTERVAL";
inline constexpr const char* kLogVar = "ERAILS_EMULATOR_LOG";
inline constexpr const char* kTestHostVar = "ERAILS_EMULATOR_TEST_HOST";
inline constexpr const char* kControlVar = "ERAILS_EMULATOR_CONTROL";
inline constexpr double kControlInterval = 0.1;  // seconds between reads of the control file

struct EmulatorConfig {
  std::string model_file;
  std::string model_name;
  devices::DeviceModel model;
  std::string device_path;
  dev_t device_dev = 0;
  ino_t device_ino = 0;
  std::string stats_path;  // empty: no stats file
  double stats_interval = 1;
  std::string control_path;  // empty: the device's speed never changes
};

// A variable's value, or nullptr when unset.
using Getenv = std::function<const char*(const char*)>;

// Reads and checks the whole configuration; an error's key is the variable (or the model file's
// key) that is wrong, and its message says what is accepted.
Expected<EmulatorConfig> read_config(const Getenv& getenv);

// What a control file asks for.
struct Control {
  double slowdown = 1;
  bool model_on = true;
  friend bool operator==(const Control& a, const Control& b) {
    return a.slowdown == b.slowdown && a.model_on == b.model_on;
  }
  friend bool operator!=(const Control& a, const Control& b) { return !(a == b); }
};

// A control file's text: blank lines and `#` comments aside, at most one `slowdown = K` line with
// K in 1..1000 and at most one `model = on|off` line; nothing else. What is not said is 1 and on.
// An error's key is the key that is wrong ("slowdown", "model", or the unknown one).
Expected<Control> parse_control(const std::string& text);

}  // namespace erails::device_emulator
