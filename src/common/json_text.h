#pragma once
// Minimal JSON text helpers for the flat documents the project writes (the schedulers' dumps, the
// device emulator's stats); a JSON library would be the bigger dependency.

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

namespace erails {

inline std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// JSON has no infinity; unbounded values are written as null.
inline std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

template <class Id>
std::string json_id(const Id& id) {
  std::ostringstream out;
  out << id;
  return json_string(out.str());
}

}  // namespace erails
