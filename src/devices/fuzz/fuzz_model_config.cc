// libFuzzer target for the device-model file parser: any bytes must yield models or an Error, never
// a crash, hang or sanitizer report. Includes are refused (no file access while fuzzing).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "devices/model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto models = erails::devices::parse_models(text, "fuzz.conf", {});
  if (!models.ok() && models.error().message.empty()) __builtin_trap();  // every error must explain itself
  return 0;
}
