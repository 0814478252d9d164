// Read or write: the one distinction every layer makes (Rails' phases, the device models' costs,
// QBox's request classes, trace records), spelled once so no layer has to translate it.
#pragma once

#include <cstdint>

namespace erails {

enum class Operation : uint8_t { read, write };

inline const char* to_string(Operation o) { return o == Operation::read ? "read" : "write"; }

}  // namespace erails
