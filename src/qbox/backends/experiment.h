#pragma once
// One qbox-bench run: client streams feed a Controller, which feeds a Backend, for a bounded
// duration; every `report_every` seconds one row per client is produced.
//
// Time: with a simulated backend (next_completion() known) the run advances a virtual clock from
// event to event and never reads a real one. With a real backend the caller passes `clock`, a
// function returning seconds since the run began, and the run sleeps in Backend::wait. An empty
// `clock` means simulated time.

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qbox/backend.h"
#include "qbox/client_spec.h"
#include "qbox/controller.h"

namespace erails::qbox {

struct ExperimentConfig {
  ControllerConfig controller;
  std::vector<ClientSpec> clients;
  Seconds duration = 10;      // > 0; the run stops issuing then and returns
  Seconds report_every = 1;   // > 0
  std::uint64_t device_bytes = 0;  // offsets stay below this; a multiple of 4096, >= 1 MiB
  std::uint64_t seed = 1;
};

struct WindowRow {
  Seconds end = 0;
  std::string client;
  double target = 0;                 // the client's utilization target during the window
  ClientWindow stats;
  Seconds window = 0;                // length of the window
  Seconds total_service_time = 0;    // all clients' service time in the window (simulated only)
  std::array<std::optional<Seconds>, 4> costs;  // estimator: read seq, read rand, write seq, write rand
  std::optional<WritePrice> write_price;  // osd pricing only
};

// Errors: bad config fields (named), unreadable traces, backend errors.
Expected<Ok> run_experiment(const ExperimentConfig& config, Backend& backend,
                          const std::function<Seconds()>& clock,
                          const std::function<void(const WindowRow&)>& on_row);

// CSV header and row matching WindowRow, for qbox-bench's output.
std::string csv_header();
std::string csv_row(const WindowRow& row, const char* scheduler);

}  // namespace erails::qbox
