// erails-sim: run one simulator configuration.
//   erails-sim CONFIG [--out PREFIX] [--seed N]
// Prints a summary; with --out writes PREFIX.summary.csv and PREFIX.timeline.csv, and with a
// scheduler or stream targets also PREFIX.streams.csv (per-stream timeline) and PREFIX.targets.csv.
// Exit status: 0 ok, 1 invariant violated, 2 bad usage, config or trace.
#include <fstream>
#include <iostream>
#include <string>

#include "common/number.h"
#include "sim/config.h"
#include "sim/report.h"
#include "sim/simulation.h"

int main(int argc, char** argv) {
  using namespace erails::sim;
  std::string config_path, out_prefix;
  long long seed = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out" && i + 1 < argc) {
      out_prefix = argv[++i];
    } else if (arg == "--seed" && i + 1 < argc) {
      const auto parsed = erails::parse_int(argv[++i]);
      if (!parsed || *parsed < 0) {
        std::cerr << "--seed: '" << argv[i] << "' is not accepted; accepted: an integer >= 0\n";
        return 2;
      }
      seed = *parsed;
    } else if (config_path.empty() && arg.rfind("--", 0) != 0) {
      config_path = arg;
    } else {
      std::cerr << "usage: erails-sim CONFIG [--out PREFIX] [--seed N]\n";
      return 2;
    }
  }
  if (config_path.empty()) {
    std::cerr << "usage: erails-sim CONFIG [--out PREFIX] [--seed N]\n";
    return 2;
  }
  auto config = load_config(config_path);
  if (!config.ok()) {
    std::cerr << config.error().message << "\n";
    return 2;
  }
  SimConfig& c = config.value();
  if (seed >= 0) c.seed = static_cast<uint64_t>(seed);
  auto traces = load_traces(c);
  if (!traces.ok()) {
    std::cerr << traces.error().message << "\n";
    return 2;
  }
  const RunResult r = run_simulation(c, traces.value());
  write_text_summary(std::cout, c, r);
  if (!out_prefix.empty()) {
    std::ofstream summary(out_prefix + ".summary.csv"), timeline(out_prefix + ".timeline.csv");
    if (!summary || !timeline) {
      std::cerr << "cannot write " << out_prefix << ".summary.csv / .timeline.csv\n";
      return 2;
    }
    write_summary_csv(summary, c, r);
    write_timeline_csv(timeline, r);
    if (!r.stream_timeline.empty()) {
      std::ofstream streams(out_prefix + ".streams.csv"), targets(out_prefix + ".targets.csv");
      if (!streams || !targets) {
        std::cerr << "cannot write " << out_prefix << ".streams.csv / .targets.csv\n";
        return 2;
      }
      write_stream_timeline_csv(streams, c, r);
      write_targets_csv(targets, c, r);
    }
  }
  return r.invariant_violations == 0 ? 0 : 1;
}
