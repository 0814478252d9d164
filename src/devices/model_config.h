// Device-model configuration: [ssd NAME] and [hdd NAME] sections, in the format of
// devices/config_file.h, giving the parameters of the models in devices/ssd.h and devices/hdd.h.
//   [ssd NAME]   every field of SsdParams, and base = NAME of another [ssd]: start from that
//                device's values (its own base applied first), then this section's keys, wherever
//                each is defined; chains at most 8 deep, no cycles
//   [hdd NAME]   every field of HddParams, and base = NAME of another [hdd]
// The calibrated models are files of such sections (src/devices/models). The simulator reads them
// among its own sections through ModelSections; a program that needs only the models (an SSD
// emulator loaded with LD_PRELOAD) reads a model file with load_models.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"
#include "devices/config_file.h"
#include "devices/hdd.h"
#include "devices/ssd.h"

namespace erails::devices {

struct DeviceModel {
  // `base = NAME`: the device of the same kind this one starts from; its own keys override the
  // base's. Empty: the struct defaults.
  std::string base;
  bool is_ssd = true;
  SsdParams ssd;
  HddParams hdd;
};

// By section name.
using DeviceModels = std::map<std::string, DeviceModel>;

// Collects the [ssd]/[hdd] sections of one reading (a file and what it includes), then resolves
// their bases. The tables open() returns refer to this object, which therefore stays in place.
class ModelSections {
 public:
  ModelSections() = default;
  ModelSections(const ModelSections&) = delete;
  ModelSections& operator=(const ModelSections&) = delete;

  // Starts the section [ssd NAME] (is_ssd) or [hdd NAME] at `at`; returns the keys it accepts.
  // Precondition: valid_name(name).
  Expected<KeyTable> open(bool is_ssd, const std::string& name, const Place& at);

  // Gives every device with a base its final values: the base's (resolved first), then the
  // device's own lines replayed on top, so a base may be defined after the device or in another
  // file, and the order of keys in a section does not matter. Call once, after the last open().
  Status resolve_bases();

  // The devices read so far; after resolve_bases(), final.
  DeviceModels& models() { return models_; }

 private:
  Status resolve(const std::string& name, std::vector<std::string> chain, std::set<std::string>& resolved);
  const Place& base_line(const std::string& device);
  std::vector<std::string> base_candidates(const std::string& device) const;

  DeviceModels models_;
  // Each device's lines as read, to replay on top of its base.
  std::map<std::string, std::vector<std::pair<Place, std::string>>> lines_;
};

// The first invalid model (devices/ssd.h's and devices/hdd.h's validate), as an error reported
// against `origin`, the file that was read.
Status check_models(const DeviceModels& models, const std::string& origin);

// Reads a model file (reported as `origin`) and what it includes, which may hold [ssd] and [hdd]
// sections only; returns the resolved and checked models or the first error. `loader` may be
// empty: includes are then errors.
Expected<DeviceModels> parse_models(std::string_view text, const std::string& origin, const IncludeLoader& loader);

// parse_models on the file at `path`, its includes read relative to it.
Expected<DeviceModels> load_models(const std::string& path);

}  // namespace erails::devices
