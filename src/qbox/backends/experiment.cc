#include "qbox/backends/experiment.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "common/msr_trace.h"
#include "qbox/stream_generator.h"

namespace erails::qbox {
namespace {

constexpr std::uint64_t kBlock = 4096;
// Streams start on 1 MiB boundaries so size-aligned requests stay aligned to stripes and objects.
constexpr std::uint64_t kStreamAlignment = 1 << 20;
// A ramp that reaches 0 pauses the stream; the scheduler still needs a positive share on record.
constexpr double kPausedShare = 0.001;

struct Stream {
  ClientSpec spec;
  Controller::ClientHandle handle = 0;
  std::unique_ptr<StreamGenerator> generator;
  std::vector<TraceRecord> trace;
  double target = 0;
};

double target_at(const ClientSpec& spec, Seconds t, Seconds duration) {
  return spec.util_start + (spec.util_end - spec.util_start) * std::clamp(t / duration, 0.0, 1.0);
}

std::string cost_text(const std::optional<Seconds>& cost) {
  if (!cost) return "";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9f", *cost);
  return buffer;
}

}  // namespace

std::string csv_header() {
  return "time_s,scheduler,client,target_util,completions,iops,mib_per_s,estimated_util,"
         "device_util,device_share,errors,est_read_seq_s,est_read_rand_s,est_write_seq_s,"
         "est_write_rand_s,write_per_op_s,write_per_mib_s";
}

std::string csv_row(const WindowRow& row, const char* scheduler) {
  char buffer[512];
  const double w = row.window;
  const bool simulated = row.total_service_time > 0;
  std::snprintf(buffer, sizeof buffer, "%.3f,%s,%s,%.4f,%llu,%.1f,%.3f,%.4f,%s,%s,%llu,", row.end,
                scheduler, row.client.c_str(), row.target,
                static_cast<unsigned long long>(row.stats.completions), row.stats.completions / w,
                row.stats.bytes / w / (1 << 20), row.stats.estimated_time / w,
                simulated ? std::to_string(row.stats.service_time / w).c_str() : "",
                simulated ? std::to_string(row.stats.service_time / row.total_service_time).c_str() : "",
                static_cast<unsigned long long>(row.stats.errors));
  const auto& price = row.write_price;
  return std::string(buffer) + cost_text(row.costs[0]) + "," + cost_text(row.costs[1]) + "," +
         cost_text(row.costs[2]) + "," + cost_text(row.costs[3]) + "," +
         cost_text(price ? std::optional<Seconds>(price->per_op) : std::nullopt) + "," +
         cost_text(price ? std::optional<Seconds>(price->per_byte * (1 << 20)) : std::nullopt);
}

Expected<Ok> run_experiment(const ExperimentConfig& config, Backend& backend,
                          const std::function<Seconds()>& clock,
                          const std::function<void(const WindowRow&)>& on_row) {
  if (!(config.duration > 0)) return Error{"duration", "must be > 0 seconds"};
  if (!(config.report_every > 0)) return Error{"report_every", "must be > 0 seconds"};
  if (config.device_bytes < (1u << 20) || config.device_bytes % kBlock != 0) {
    return Error{"device_bytes", "must be a multiple of 4096 and at least 1 MiB"};
  }
  if (config.clients.empty()) return Error{"client", "give at least one client stream"};
  if (const Status runnable = check(config.controller); !runnable) return runnable.error();
  const bool simulated = !clock;

  Controller controller(config.controller, backend, 0);
  std::vector<Stream> streams(config.clients.size());
  const std::uint64_t n = config.clients.size();
  for (std::size_t i = 0; i < streams.size(); ++i) {
    Stream& s = streams[i];
    s.spec = config.clients[i];
    if (s.spec.pattern == Pattern::trace) {
      auto trace = load_msr_trace(s.spec.trace_path);
      if (!trace) return Error{"client " + s.spec.name + ": " + trace.error().key, trace.error().message};
      s.trace = std::move(trace).value();
    }
    std::uint64_t start = s.spec.has_start ? s.spec.start
                          : s.spec.pattern == Pattern::random
                              ? 0
                              : config.device_bytes / n * i / kStreamAlignment * kStreamAlignment;
    if (start >= config.device_bytes) {
      return Error{"client " + s.spec.name + ": start", "beyond the device"};
    }
    std::uint64_t region = config.device_bytes - start;
    if (s.spec.region_bytes != 0) region = std::min(region, s.spec.region_bytes);
    if (region < std::max<std::uint64_t>(s.spec.size, 1u << 20)) {
      return Error{"client " + s.spec.name + ": region", "must leave at least 1 MiB on the device"};
    }
    s.target = target_at(s.spec, 0, config.duration);
    auto handle = controller.add_client(s.spec.name, std::max(s.target, kPausedShare));
    if (!handle) return Error{"client " + s.spec.name + ": " + handle.error().key, handle.error().message};
    s.handle = handle.value();
    s.generator = std::make_unique<StreamGenerator>(s.spec, start, region,
                                                    s.trace.empty() ? nullptr : &s.trace,
                                                    config.seed * 7919 + i);
  }

  Seconds now = 0;
  Seconds window_start = 0;
  Seconds window_end = config.report_every;
  const Seconds end = config.duration;
  while (true) {
    // Completions first: they free dispatch slots and, in closed loop, let streams issue more.
    controller.reap(now);
    // Issue what the streams have ready.
    for (Stream& s : streams) {
      if (s.target <= 0) continue;
      if (s.spec.closed_loop) {
        while (controller.outstanding(s.handle) < s.spec.depth) {
          const StreamRequest r = s.generator->next();
          if (auto st = controller.submit(s.handle, r.operation, r.offset, r.length, now); !st) return st.error();
        }
      } else {
        while (s.generator->next_arrival() <= now) {
          const StreamRequest r = s.generator->next();
          if (auto st = controller.submit(s.handle, r.operation, r.offset, r.length, now); !st) return st.error();
        }
      }
    }
    if (auto sent = controller.dispatch(now); !sent) return sent.error();

    if (now >= window_end || now >= end) {
      const Seconds stop = std::min(now, end);
      const std::vector<ClientWindow> windows = controller.take_window();
      Seconds total_service = 0;
      for (const ClientWindow& w : windows) total_service += w.service_time;
      const std::optional<WritePrice> write_price = controller.write_price();
      for (Stream& s : streams) {
        WindowRow row;
        row.end = stop;
        row.client = s.spec.name;
        row.target = s.target;
        row.stats = windows[s.handle];
        row.window = stop - window_start;
        row.total_service_time = total_service;
        for (Operation op : {Operation::read, Operation::write}) {
          for (Access access : {Access::sequential, Access::random}) {
            const RequestClass c{op, access};
            row.costs[class_index(c)] = controller.estimator().cost(c);
          }
        }
        row.write_price = write_price;
        if (row.window > 0) on_row(row);
        // Targets move in steps of one report window (thesis 3.4.3 changes them online).
        s.target = target_at(s.spec, stop, config.duration);
        if (auto st = controller.set_utilization(s.handle, std::max(s.target, kPausedShare)); !st) {
          return st.error();
        }
      }
      window_start = stop;
      window_end = stop + config.report_every;
      if (now >= end) return Ok{};
    }

    // Advance to the next event.
    Seconds next = std::min(window_end, end);
    for (const Stream& s : streams) {
      if (!s.spec.closed_loop && s.target > 0) next = std::min(next, s.generator->next_arrival());
    }
    if (const auto ready = controller.next_ready()) next = std::min(next, *ready);
    if (simulated) {
      if (const auto done = backend.next_completion()) next = std::min(next, *done);
      now = std::max(now, next);
    } else {
      const Seconds current = clock();
      if (next > current) backend.wait(std::min(next - current, 0.002));
      now = std::max(now, clock());
    }
  }
}

}  // namespace erails::qbox
