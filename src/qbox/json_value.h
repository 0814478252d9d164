#pragma once
// A small JSON reader for the few documents QBox receives from outside (the OSD share table sent
// by the mgr). Numbers keep their text so the caller decides integer vs real with the project's
// number rules (common/number.h); objects keep their keys in order and report duplicates.

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"

namespace erails::qbox {

struct JsonValue {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  std::string text;  // the number's text, or the string's decoded value
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;  // in document order, keys unique

  // The member named `key`, or nullptr. Precondition: kind == object.
  const JsonValue* find(std::string_view key) const;
};

// "object", "array", ... for error messages.
const char* to_string(JsonValue::Kind kind);

// Parses one JSON document (RFC 8259; nesting at most 32 deep). Errors name `key` and the byte
// offset where the text stopped being JSON.
Expected<JsonValue> parse_json(std::string_view text, const std::string& key);

}  // namespace erails::qbox
