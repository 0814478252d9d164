// One set of rules for every number the project reads from outside: EC profiles, simulator and
// device-model files, mgr-facing specs, command-line flags and trace records.
//
// The whole text must be the number: no surrounding white space (callers trim what their format
// allows, e.g. around `=` in a config line), no leading '+', decimal only (no hex, no octal), and
// reals finite (no inf or nan). Reals take C's decimal syntax: "0.25", "-3", "1e9", "2.5E-3".
// Results are independent of the process locale. Each function returns nothing when the text is
// not such a number or does not fit the type; the caller owns the message, which names its key.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace erails {

std::optional<double> parse_real(std::string_view text);
std::optional<int64_t> parse_int(std::string_view text);
std::optional<uint64_t> parse_uint(std::string_view text);

}  // namespace erails
