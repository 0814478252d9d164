// qbox-bench: client streams with utilization targets through the QBox controller (or the
// throughput-based baselines) onto a backend, for a bounded time, printing one CSV row per client
// per report window.
//
//   qbox-bench --backend file --path /var/tmp/qbox.img --file-size 1073741824
//              --scheduler qbox --duration 20 --window 1 --depth 32
//              --client name=A,pattern=sequential,util=0.3 --client name=B,pattern=random,util=0.7
//
// Backends: file (O_DIRECT + Linux AIO on a file or block device), sim-hdd / sim-ssd (the device
// models of src/devices, simulated time), rados (a RADOS pool via
// librados aio; only when built with ERAILS_WITH_CEPH).

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/number.h"
#include "qbox/backends/experiment.h"
#include "qbox/backends/file_backend.h"
#include "qbox/backends/sim_backend.h"
#ifdef QBOX_WITH_RADOS
#include "qbox/backends/rados_backend.h"
#endif

namespace qbox = erails::qbox;

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "qbox-bench: %s\n", message.c_str());
  return 2;
}

const char* const kUsage =
    "usage: qbox-bench --backend file|sim-hdd|sim-ssd|rados --client SPEC [--client SPEC ...]\n"
    "  [--scheduler qbox|fifo|mclock] [--duration S] [--window S] [--depth N] [--seed N]\n"
    "  [--classify stream|dispatch] [--sequential-slack S] [--estimator-window S]\n"
    "  [--pricing thesis|osd]\n"
    "  file:   --path PATH [--file-size BYTES]\n"
    "  sim-*:  [--device-size BYTES] [--ncq N] [--time-scale X]\n"
    "  rados:  --pool NAME [--conf PATH] [--object-size BYTES] [--objects N]\n"
    "SPEC: name=A,pattern=sequential|random|semi|trace,util=0.5[:0],op=read|write,size=4096,\n"
    "      loop=closed|open,depth=8,rate=R,semi=25/475,trace=PATH,region=BYTES,start=BYTES\n";

bool number(const char* text, double* value) {
  const auto parsed = erails::parse_real(text);
  if (parsed) *value = *parsed;
  return parsed.has_value();
}

// Backend choices gathered from the command line; each backend reads the fields it needs.
struct BackendOptions {
  std::string name;
  std::string path;
  double file_size = 1 << 30;
  double device_size = 0;
  double ncq = 1;
  double time_scale = 1;
  std::string pool;
  std::string conf;
  double object_size = 4 << 20;
  double objects = 64;
};

struct OpenedBackend {
  std::unique_ptr<qbox::Backend> backend;
  std::uint64_t device_bytes = 0;
  bool simulated = false;
};

template <class SomeBackend>
erails::Expected<OpenedBackend> opened(erails::Expected<std::unique_ptr<SomeBackend>> backend,
                                       bool simulated) {
  if (!backend) return backend.error();
  const std::uint64_t device_bytes = backend.value()->capacity_bytes();
  return OpenedBackend{std::move(backend).value(), device_bytes, simulated};
}

erails::Expected<OpenedBackend> open_backend(const BackendOptions& options, unsigned depth) {
  if (options.name == "file") {
    if (options.path.empty()) return erails::Error{"--path", "required with --backend file"};
    qbox::FileBackendConfig file;
    file.path = options.path;
    file.size_bytes = static_cast<std::uint64_t>(options.file_size);
    file.queue_depth = depth;
    return opened(qbox::FileBackend::open(file), false);
  }
  if (options.name == "sim-hdd") {
    return opened(qbox::SimBackend::hdd(static_cast<int>(options.ncq), options.device_size,
                                        options.time_scale),
                  true);
  }
  if (options.name == "sim-ssd") {
    return opened(qbox::SimBackend::ssd(options.device_size, options.time_scale), true);
  }
#ifdef QBOX_WITH_RADOS
  if (options.name == "rados") {
    qbox::RadosBackendConfig rados;
    rados.pool = options.pool;
    rados.conf_path = options.conf;
    rados.object_size = static_cast<std::uint64_t>(options.object_size);
    rados.objects = static_cast<std::uint64_t>(options.objects);
    rados.queue_depth = depth;
    return opened(qbox::RadosBackend::open(rados), false);
  }
#endif
  return erails::Error{"--backend", "must be one of: file, sim-hdd, sim-ssd"
#ifdef QBOX_WITH_RADOS
                                  ", rados"
#endif
                                  " (in this build), got '" + options.name + "'"};
}

}  // namespace

int main(int argc, char** argv) {
  qbox::ExperimentConfig config;
  BackendOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (i + 1 >= argc) return fail("missing value for " + flag + "\n" + kUsage);
    const char* value = argv[++i];
    double x = 0;
    if (flag == "--backend") {
      options.name = value;
    } else if (flag == "--client") {
      auto spec = qbox::parse_client_spec(value);
      if (!spec) return fail("--client " + std::string(value) + ": " + spec.error().to_string());
      config.clients.push_back(spec.value());
    } else if (flag == "--scheduler") {
      auto kind = qbox::parse_scheduler(value);
      if (!kind) return fail(kind.error().to_string());
      config.controller.scheduler = kind.value();
    } else if (flag == "--duration" && number(value, &x) && x > 0 && x <= 3600) {
      config.duration = x;
    } else if (flag == "--window" && number(value, &x) && x > 0) {
      config.report_every = x;
    } else if (flag == "--depth" && number(value, &x) && x >= 1 && x <= 1024) {
      config.controller.max_in_flight = static_cast<std::size_t>(x);
    } else if (flag == "--pricing") {
      auto pricing = qbox::parse_pricing(value);
      if (!pricing) return fail(pricing.error().to_string());
      config.controller.pricing = pricing.value();
    } else if (flag == "--classify") {
      auto classification = qbox::parse_classification(value);
      if (!classification) return fail(classification.error().to_string());
      config.controller.classification = classification.value();
    } else if (flag == "--estimator-window" && number(value, &x) && x > 0 && x <= 60) {
      config.controller.estimator.window = x;
    } else if (flag == "--sequential-slack" && number(value, &x) && x >= 0 && x <= 10) {
      config.controller.sequential_slack = x;
    } else if (flag == "--seed" && number(value, &x) && x >= 0) {
      config.seed = static_cast<std::uint64_t>(x);
    } else if (flag == "--path") {
      options.path = value;
    } else if (flag == "--file-size" && number(value, &x) && x > 0) {
      options.file_size = x;
    } else if (flag == "--device-size" && number(value, &x) && x > 0) {
      options.device_size = x;
    } else if (flag == "--ncq" && number(value, &x) && x >= 1 && x <= 256) {
      options.ncq = x;
    } else if (flag == "--time-scale" && number(value, &x) && x > 0 && x <= 1000) {
      options.time_scale = x;
    } else if (flag == "--pool") {
      options.pool = value;
    } else if (flag == "--conf") {
      options.conf = value;
    } else if (flag == "--object-size" && number(value, &x) && x > 0) {
      options.object_size = x;
    } else if (flag == "--objects" && number(value, &x) && x >= 1) {
      options.objects = x;
    } else {
      return fail("bad flag or value: " + flag + " " + value + " (durations in (0, 3600] s, "
                  "depth 1..1024, sizes > 0, ncq 1..256, time scale (0, 1000], "
                  "sequential slack [0, 10] s, "
                  "estimator window (0, 60] s)\n" + kUsage);
    }
  }
  if (config.clients.empty()) return fail(std::string("give at least one --client\n") + kUsage);

  auto opened = open_backend(options, static_cast<unsigned>(config.controller.max_in_flight));
  if (!opened) return fail(opened.error().to_string());
  config.device_bytes = opened.value().device_bytes;
  std::function<qbox::Seconds()> clock;
  if (!opened.value().simulated) {
    const auto start = std::chrono::steady_clock::now();
    clock = [start] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
  }

  std::printf("%s\n", qbox::csv_header().c_str());
  const char* scheduler = qbox::to_string(config.controller.scheduler);
  const auto ran =
      qbox::run_experiment(config, *opened.value().backend, clock, [&](const qbox::WindowRow& row) {
        std::printf("%s\n", qbox::csv_row(row, scheduler).c_str());
        std::fflush(stdout);
      });
  if (!ran) return fail(ran.error().to_string());
  return 0;
}
