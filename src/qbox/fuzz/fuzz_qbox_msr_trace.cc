// MSR traces are outside files: parsing must not crash, and replaying a parsed trace must keep
// every request inside the stream's region.
#include <cstddef>
#include <cstdint>
#include <string>

#include "qbox/client_spec.h"
#include "qbox/msr_trace.h"
#include "qbox/stream_generator.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto trace = qbox::parse_msr_trace(text);
  if (!trace) return 0;
  const auto spec = qbox::parse_client_spec("name=T,pattern=trace,trace=x,util=0.5,loop=open");
  qbox::StreamGenerator generator(spec.value(), 4096, 8 << 20, &trace.value(), 1);
  for (std::size_t k = 0; k < 2 * trace.value().size() && k < 256; ++k) {
    const qbox::StreamRequest r = generator.next();
    if (r.offset < 4096 || r.offset + r.length > 4096 + (8u << 20) || r.length == 0) __builtin_trap();
  }
  return 0;
}
