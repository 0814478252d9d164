// qbox-bench: client streams with utilization targets through the QBox controller (or the
// throughput-based baselines) onto a backend, for a bounded time, printing one CSV row per client
// per report window.
//
//   qbox-bench --backend file --path /var/tmp/qbox.img --file-size 1073741824 \
//              --scheduler qbox --duration 20 --window 1 --depth 32 \
//              --client name=A,pattern=sequential,util=0.3 --client name=B,pattern=random,util=0.7
//
// Backends: file (O_DIRECT + Linux AIO on a file or block device), sim-hdd / sim-ssd (the device
// models of src/sim, simulated time; only when built with ERAILS_WITH_SIM), rados (a RADOS pool via
// librados aio; only when built with ERAILS_WITH_CEPH).

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "experiment.h"
#include "file_backend.h"
#ifdef QBOX_WITH_SIM
#include "sim_backend.h"
#endif
#ifdef QBOX_WITH_RADOS
#include "rados_backend.h"
#endif

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "qbox-bench: %s\n", message.c_str());
  return 2;
}

const char* const kUsage =
    "usage: qbox-bench --backend file|sim-hdd|sim-ssd|rados --client SPEC [--client SPEC ...]\n"
    "  [--scheduler qbox|fifo|mclock] [--duration S] [--window S] [--depth N] [--seed N]\n"
    "  file:   --path PATH [--file-size BYTES]\n"
    "  sim-*:  [--device-size BYTES] [--ncq N]\n"
    "  rados:  --pool NAME [--conf PATH] [--object-size BYTES] [--objects N]\n"
    "SPEC: name=A,pattern=sequential|random|semi|trace,util=0.5[:0],op=read|write,size=4096,\n"
    "      loop=closed|open,depth=8,rate=R,semi=25/475,trace=PATH,region=BYTES,start=BYTES\n";

bool number(const char* text, double* value) {
  char* end = nullptr;
  *value = std::strtod(text, &end);
  return end != text && *end == '\0';
}

}  // namespace

int main(int argc, char** argv) {
  qbox::ExperimentConfig config;
  std::string backend_name;
  std::string path;
  std::string pool;
  std::string conf;
  double file_size = 1 << 30;
  double device_size = 0;
  double object_size = 4 << 20;
  double objects = 256;
  double ncq = 1;
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
      backend_name = value;
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
    } else if (flag == "--seed" && number(value, &x) && x >= 0) {
      config.seed = static_cast<std::uint64_t>(x);
    } else if (flag == "--path") {
      path = value;
    } else if (flag == "--file-size" && number(value, &x) && x > 0) {
      file_size = x;
    } else if (flag == "--device-size" && number(value, &x) && x > 0) {
      device_size = x;
    } else if (flag == "--ncq" && number(value, &x) && x >= 1 && x <= 256) {
      ncq = x;
    } else if (flag == "--pool") {
      pool = value;
    } else if (flag == "--conf") {
      conf = value;
    } else if (flag == "--object-size" && number(value, &x) && x > 0) {
      object_size = x;
    } else if (flag == "--objects" && number(value, &x) && x >= 1) {
      objects = x;
    } else {
      return fail("bad flag or value: " + flag + " " + value + " (durations in (0, 3600] s, "
                  "depth 1..1024, sizes > 0, ncq 1..256)\n" + kUsage);
    }
  }
  if (config.clients.empty()) return fail(std::string("give at least one --client\n") + kUsage);

  std::unique_ptr<qbox::Backend> backend;
  std::function<qbox::Seconds()> clock;
  if (backend_name == "file") {
    if (path.empty()) return fail("--backend file needs --path");
    qbox::FileBackendConfig file;
    file.path = path;
    file.size_bytes = static_cast<std::uint64_t>(file_size);
    file.queue_depth = static_cast<unsigned>(config.controller.max_in_flight);
    auto opened = qbox::FileBackend::open(file);
    if (!opened) return fail(opened.error().to_string());
    config.device_bytes = opened.value()->size_bytes();
    backend = std::move(opened).value();
    const auto start = std::chrono::steady_clock::now();
    clock = [start] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
#ifdef QBOX_WITH_SIM
  } else if (backend_name == "sim-hdd" || backend_name == "sim-ssd") {
    auto sim = backend_name == "sim-hdd" ? qbox::SimBackend::hdd(static_cast<int>(ncq), device_size)
                                         : qbox::SimBackend::ssd(device_size);
    if (!sim) return fail(sim.error().to_string());
    config.device_bytes = sim.value()->capacity_bytes();
    backend = std::move(sim).value();
#endif
#ifdef QBOX_WITH_RADOS
  } else if (backend_name == "rados") {
    if (pool.empty()) return fail("--backend rados needs --pool");
    auto rados = qbox::RadosBackend::open(conf, pool, static_cast<std::uint64_t>(object_size),
                                          static_cast<std::uint64_t>(objects));
    if (!rados) return fail(rados.error().to_string());
    config.device_bytes = rados.value()->size_bytes();
    backend = std::move(rados).value();
    const auto start = std::chrono::steady_clock::now();
    clock = [start] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
#endif
  } else {
    return fail("--backend must be one of: file"
#ifdef QBOX_WITH_SIM
                ", sim-hdd, sim-ssd"
#endif
#ifdef QBOX_WITH_RADOS
                ", rados"
#endif
                " (this build), got '" + backend_name + "'");
  }
  (void)pool;
  (void)conf;
  (void)object_size;
  (void)objects;
  (void)ncq;
  (void)device_size;

  std::printf("%s\n", qbox::csv_header().c_str());
  const char* scheduler = qbox::to_string(config.controller.scheduler);
  const auto ran = qbox::run_experiment(config, *backend, clock, [&](const qbox::WindowRow& row) {
    std::printf("%s\n", qbox::csv_row(row, scheduler).c_str());
    std::fflush(stdout);
  });
  if (!ran) return fail(ran.error().to_string());
  return 0;
}
