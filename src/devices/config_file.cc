#include "devices/config_file.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/number.h"

namespace erails::devices {

namespace {

constexpr int kMaxIncludeDepth = 8;

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

class Reader {
 public:
  Reader(const IncludeLoader& loader, const SectionOpener& open) : loader_(loader), open_(open) {}

  std::optional<Error> read(std::string_view text, const std::string& origin, int depth) {
    if (depth > kMaxIncludeDepth)
      return Error{"include", origin + ": includes nested deeper than " + std::to_string(kMaxIncludeDepth) +
                                  "; accepted: at most " + std::to_string(kMaxIncludeDepth) + " levels"};
    Place at{origin, 0, "", ""};
    KeyTable table;
    size_t pos = 0;
    while (pos <= text.size()) {
      auto nl = text.find('\n', pos);
      if (nl == std::string_view::npos) nl = text.size();
      std::string_view line = text.substr(pos, nl - pos);
      pos = nl + 1;
      at.line++;
      if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
      line = trim(line);
      if (line.empty()) continue;
      if (line.front() == '[') {
        if (line.back() != ']')
          return Error{"section", origin + ":" + std::to_string(at.line) + ": section header without ']'"};
        const std::string_view header = trim(line.substr(1, line.size() - 2));
        const auto space = header.find(' ');
        at.section = std::string(header);
        auto opened = open_(std::string(header.substr(0, space)),
                            std::string(space == std::string_view::npos ? std::string_view() : trim(header.substr(space + 1))),
                            at);
        if (!opened.ok()) return opened.error();
        table = std::move(opened).value();
        continue;
      }
      const auto eq = line.find('=');
      if (eq == std::string_view::npos)
        return Error{"line", origin + ":" + std::to_string(at.line) + ": expected 'key = value' or '[section]'"};
      at.key = std::string(trim(line.substr(0, eq)));
      const std::string_view value = trim(line.substr(eq + 1));
      if (at.key == "include" && at.section.empty()) {
        if (auto e = include(std::string(value), at, depth)) return e;
        continue;
      }
      if (at.section.empty())
        return Error{at.key, origin + ":" + std::to_string(at.line) + ": key '" + at.key +
                                 "' outside a section; accepted there: include"};
      auto setter = table.find(at.key);
      if (setter == table.end())
        return Error{at.key, at.prefix() + "unknown key; accepted: " + accepted_keys(table)};
      if (auto e = setter->second(at, value)) return e;
    }
    return std::nullopt;
  }

 private:
  std::optional<Error> include(const std::string& value, const Place& at, int depth) {
    if (!loader_)
      return Error{"include", at.origin + ":" + std::to_string(at.line) + ": include is not available here"};
    auto loaded = loader_(at.origin, value);
    if (!loaded.ok()) return loaded.error();
    // Read once, so a device file may include the file of the device it derives from and a
    // config may still include both.
    if (!included_.insert(loaded.value().second).second) return std::nullopt;
    return read(loaded.value().first, loaded.value().second, depth + 1);
  }

  const IncludeLoader& loader_;
  const SectionOpener& open_;
  std::set<std::string> included_;
};

}  // namespace

std::string Place::prefix() const { return origin + ":" + std::to_string(line) + ": [" + section + "] " + key + ": "; }

std::string Place::section_prefix() const { return origin + ":" + std::to_string(line) + ": [" + section + "]: "; }

Expected<int64_t> read_integer(const Place& at, std::string_view value, int64_t lo, int64_t hi) {
  const auto n = parse_int(value);
  if (!n || *n < lo || *n > hi)
    return Error{at.key, at.prefix() + "'" + std::string(value) + "' is not accepted; accepted: an integer in " +
                             std::to_string(lo) + ".." + std::to_string(hi)};
  return *n;
}

Setter real(double* out, double lo, double hi, const char* range) {
  return [=](const Place& at, std::string_view v) -> std::optional<Error> {
    const auto d = parse_real(v);
    if (!d || *d < lo || *d > hi)
      return Error{at.key, at.prefix() + "'" + std::string(v) + "' is not accepted; accepted: a number in " + range};
    *out = *d;
    return std::nullopt;
  };
}

Setter text(std::string* out) {
  return [=](const Place& at, std::string_view v) -> std::optional<Error> {
    if (v.empty()) return Error{at.key, at.prefix() + "empty; accepted: a name or path"};
    *out = std::string(v);
    return std::nullopt;
  };
}

std::string accepted_keys(const KeyTable& table) {
  std::string out;
  for (const auto& entry : table) out += (out.empty() ? "" : ", ") + entry.first;
  return out;
}

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

Expected<std::pair<std::string, std::string>> read_config_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"include", "cannot read config file '" + path + "'"};
  std::ostringstream s;
  s << in.rdbuf();
  return std::make_pair(s.str(), std::filesystem::path(path).lexically_normal().string());
}

IncludeLoader file_include_loader() {
  return [](const std::string& from, const std::string& include) {
    return read_config_file(!include.empty() && include.front() == '/' ? include : dir_of(from) + include);
  };
}

std::optional<Error> read_config(std::string_view text, const std::string& origin, const IncludeLoader& loader,
                                 const SectionOpener& open) {
  return Reader(loader, open).read(text, origin, 0);
}

}  // namespace erails::devices
