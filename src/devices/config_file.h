// The text format of device-model files (devices/model_config.h), which the simulator's configs
// (sim/config.h) extend with sections of their own:
//   # comment                      ; blank lines ignored
//   include = relative/path.conf   ; before the first section; path relative to this file; a file
//                                  ; included again (directly or through another) is read once
//   [TYPE] or [TYPE NAME]          ; a section; which types exist, and which take a name, is the
//                                  ; reader's to say
//   key = value                    ; numbers are read by common/number.h (1e9, 0.25; decimal only)
// Every error names the file, line, section and key and says what is accepted.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/error.h"

namespace erails::devices {

// Where a value came from, for error messages.
struct Place {
  std::string origin;
  int line = 0;
  std::string section;  // the header between the brackets, as written
  std::string key;
  // "origin:line: [section] key: "
  std::string prefix() const;
  // "origin:line: [section]: ", for errors about the section itself
  std::string section_prefix() const;
};

// Applies the value of one key, or says why it is refused.
using Setter = std::function<std::optional<Error>(const Place&, std::string_view)>;
// A section's keys.
using KeyTable = std::map<std::string, Setter>;

// The value as an integer in [lo, hi], or an error at `at` saying so.
Expected<int64_t> read_integer(const Place& at, std::string_view value, int64_t lo, int64_t hi);

// A real in [lo, hi]; `range` is how the error describes the accepted values.
Setter real(double* out, double lo, double hi, const char* range);
// An integer in [lo, hi], stored as T (which holds that range).
template <class T>
Setter integer(T* out, int64_t lo, int64_t hi) {
  return [=](const Place& at, std::string_view v) -> std::optional<Error> {
    auto n = read_integer(at, v, lo, hi);
    if (!n.ok()) return n.error();
    *out = static_cast<T>(n.value());
    return std::nullopt;
  };
}
// A non-empty name or path.
Setter text(std::string* out);

// "a, b, c": the keys of a table, for "accepted:" in errors.
std::string accepted_keys(const KeyTable& table);

// 1..64 letters, digits, '_', '-', '.': the names sections may take.
bool valid_name(std::string_view name);

// The directory part of a path, with its trailing '/'; "" for a bare file name.
std::string dir_of(const std::string& path);

// Loads included files; given the including file's origin and the include value, returns the text
// and the origin to report for it, or an Error.
using IncludeLoader = std::function<Expected<std::pair<std::string, std::string>>(
    const std::string& from_origin, const std::string& include)>;

// Reads the file at `path`: its text, and its path in one spelling (so that a file reached by two
// relative paths is still included once) as the origin to report.
Expected<std::pair<std::string, std::string>> read_config_file(const std::string& path);

// Reads includes from files, relative to the including file's directory.
IncludeLoader file_include_loader();

// Called at each section header with the section's type and name ("" if none) and `at` (line and
// section set); returns the keys that section accepts, or why the header is refused.
using SectionOpener =
    std::function<Expected<KeyTable>(const std::string& type, const std::string& name, const Place& at)>;

// Reads `text` (reported as `origin`) and, through `loader`, what it includes: each section is
// opened with `open` and each of its lines applied with the table `open` returned. `loader` may be
// empty: includes are then errors. Returns the first error.
std::optional<Error> read_config(std::string_view text, const std::string& origin, const IncludeLoader& loader,
                                 const SectionOpener& open);

}  // namespace erails::devices
