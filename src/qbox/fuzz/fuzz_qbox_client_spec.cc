// Client specs come from the command line: parsing must not crash, and a parsed spec must be
// usable by the stream generator.
#include <cstddef>
#include <cstdint>
#include <string>

#include "qbox/client_spec.h"
#include "qbox/stream_generator.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto spec = erails::qbox::parse_client_spec(text);
  if (!spec || spec.value().pattern == erails::qbox::Pattern::trace) return 0;
  erails::qbox::StreamGenerator generator(spec.value(), 0, 64 << 20, nullptr, 1);
  for (int k = 0; k < 64; ++k) {
    const erails::qbox::StreamRequest r = generator.next();
    if (r.offset + r.length > (64u << 20)) __builtin_trap();
  }
  return 0;
}
