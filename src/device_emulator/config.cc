#include "device_emulator/config.h"

#include <sys/stat.h>

#include <cmath>
#include <optional>
#include <set>
#include <sstream>

#include "common/number.h"
#include "devices/slowed.h"

namespace erails::device_emulator {

namespace {

constexpr double kMinStatsInterval = 0.1;
constexpr double kMaxStatsInterval = 3600;

// The section to run: the one named, or the one no other derives from.
Expected<std::string> pick_model(const devices::DeviceModels& models, const char* wanted, const std::string& file) {
  std::string names;
  for (const auto& entry : models) names += (names.empty() ? "" : ", ") + entry.first;
  if (wanted) {
    if (models.count(wanted)) return std::string(wanted);
    return Error{kModelVar, std::string(kModelVar) + "='" + wanted + "' is not a section of " + file +
                                "; accepted: " + names};
  }
  std::set<std::string> bases;
  for (const auto& entry : models) bases.insert(entry.second.base);
  std::string leaf;
  int leaves = 0;
  for (const auto& entry : models)
    if (!bases.count(entry.first)) {
      leaf = entry.first;
      ++leaves;
    }
  if (leaves == 1) return leaf;
  return Error{kModelVar, std::string(kModelVar) + " is unset and " + file + " has " + std::to_string(leaves) +
                              " sections that no other derives from; set it to one of: " + names};
}

}  // namespace

Expected<EmulatorConfig> read_config(const Getenv& getenv) {
  EmulatorConfig c;
  const char* file = getenv(kConfigVar);
  if (!file || !*file) return Error{kConfigVar, std::string(kConfigVar) + " is unset; accepted: the path of a model file"};
  c.model_file = file;
  auto models = devices::load_models(c.model_file);
  if (!models.ok()) return models.error();
  auto name = pick_model(models.value(), getenv(kModelVar), c.model_file);
  if (!name.ok()) return name.error();
  c.model_name = name.value();
  c.model = models.value().at(c.model_name);

  const char* device = getenv(kDeviceVar);
  if (!device || !*device)
    return Error{kDeviceVar, std::string(kDeviceVar) + " is unset; accepted: the path of the data device"};
  c.device_path = device;
  struct stat st {};
  if (::stat(device, &st) != 0)
    return Error{kDeviceVar, std::string(kDeviceVar) + "='" + c.device_path +
                                 "' cannot be read; accepted: the path of an existing file or block device"};
  // A block device is known by the device it is (st_rdev), not by its inode in /dev.
  c.device_dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
  c.device_ino = S_ISBLK(st.st_mode) ? 0 : st.st_ino;

  if (const char* stats = getenv(kStatsVar); stats && *stats) c.stats_path = stats;
  if (const char* interval = getenv(kStatsIntervalVar)) {
    const auto v = parse_real(interval);
    if (!v || !(*v >= kMinStatsInterval && *v <= kMaxStatsInterval))
      return Error{kStatsIntervalVar, std::string(kStatsIntervalVar) + "='" + interval +
                                          "' is not accepted; accepted: seconds in 0.1..3600"};
    c.stats_interval = *v;
  }
  if (const char* control = getenv(kControlVar); control && *control) c.control_path = control;
  return c;
}

Expected<Control> parse_control(const std::string& text) {
  constexpr const char* kBlank = " \t\r";
  constexpr const char* kAccepted = "accepted: slowdown = K (K in 1..1000), model = on|off, each at most once";
  auto trimmed = [&](std::string part) {
    part.erase(0, part.find_first_not_of(kBlank));
    part.erase(part.find_last_not_of(kBlank) + 1);
    return part;
  };
  Control control;
  bool have_slowdown = false, have_model = false;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    line = trimmed(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    const auto eq = line.find('=');
    const std::string key = trimmed(line.substr(0, eq));
    if (key != "slowdown" && key != "model") return Error{key, "'" + key + "' is not a control; " + kAccepted};
    if (eq == std::string::npos) return Error{key, key + " has no value; " + kAccepted};
    bool& seen = key == "slowdown" ? have_slowdown : have_model;
    if (seen) return Error{key, key + " is given twice; " + kAccepted};
    seen = true;
    const std::string value = trimmed(line.substr(eq + 1));
    if (key == "model") {
      if (value != "on" && value != "off") return Error{key, "model = '" + value + "' is not accepted; " + kAccepted};
      control.model_on = value == "on";
      continue;
    }
    const std::optional<double> slowdown = parse_real(value);
    if (Status valid = devices::check_slowdown(slowdown.value_or(NAN), value); !valid.ok()) return valid.error();
    control.slowdown = *slowdown;
  }
  return control;
}

}  // namespace erails::device_emulator
