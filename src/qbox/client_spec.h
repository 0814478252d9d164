#pragma once
// One client stream of qbox-bench, given on the command line as comma-separated key=value pairs:
//   name=A,pattern=semi,op=read,size=8192,util=0.5:0,loop=closed,depth=16
// Keys (defaults in brackets):
//   name      [required] letters, digits, '-', '_'
//   pattern   [required] sequential | random | semi | trace
//   op        [read] read | write (trace streams take it from the trace)
//   size      [4096] request bytes, a multiple of 4096, <= 1 MiB
//   util      [required] target share of device time in (0, 1]; "a:b" ramps linearly from a to b
//             over the run, each in [0, 1] and not both 0 (thesis figs. 3.15/3.16); a stream
//             whose target is 0 issues nothing
//   loop      [closed] closed: keep `depth` requests outstanding; open: arrive at `rate` per second
//             (trace streams in open loop follow the trace's own timestamps)
//   depth     [8] 1..4096, closed loop only
//   rate      open loop only, requests/s > 0
//   semi      [25/475] random/sequential requests per group for pattern=semi (thesis 3.4.3)
//   trace     path of an MSR Cambridge CSV trace, for pattern=trace
//   region    [0 = the whole device] bytes the stream's offsets stay within, a multiple of 4096
//   start     [spread evenly] first offset, a multiple of 4096

#include <cstdint>
#include <string>

#include "qbox/request_class.h"
#include "common/error.h"

namespace erails::qbox {

enum class Pattern { sequential, random, semi, trace };

struct ClientSpec {
  std::string name;
  Pattern pattern = Pattern::sequential;
  Operation operation = Operation::read;
  std::uint32_t size = 4096;
  double util_start = 0;
  double util_end = 0;
  bool closed_loop = true;
  unsigned depth = 8;
  double rate = 0;
  unsigned semi_random = 25;
  unsigned semi_sequential = 475;
  std::string trace_path;
  std::uint64_t region_bytes = 0;
  bool has_start = false;
  std::uint64_t start = 0;
};

// Errors name the key and what it accepts.
Expected<ClientSpec> parse_client_spec(const std::string& text);

}  // namespace erails::qbox
