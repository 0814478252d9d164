// erails-ec-bench: encode/decode throughput of Ceph erasure-code plugins, loaded through Ceph's
// plugin ABI exactly as the OSD loads them, side by side in one run. Rounds alternate between
// plugins so that noise from other processes falls on all of them alike; the median round counts.
// Two more subjects take part in the same rounds: memcpy of the object, the most a single core can
// move through these buffers, and optionally erails' codec called directly (no bufferlists),
// whose decode-table cache is reported at the end.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <malloc.h>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ceph_abi/plugin_host.h"
#include "common/number.h"
#include "erasure-code/erails/codec.h"

namespace {

struct PluginSpec {
  std::string name;
  std::string directory;
};

struct Options {
  std::vector<PluginSpec> plugins;
  std::string workload = "encode";
  unsigned size = 1 << 20;
  unsigned iterations = 200;
  unsigned rounds = 5;
  int k = 4;
  int m = 2;
  int erasures = -1;  // decode: defaults to m
  std::string technique = "reed_sol_van";
  std::map<std::string, std::string> parameters;
  bool codec = false;
};

void usage(const char* program) {
  std::fprintf(stderr,
               "usage: %s [options]\n"
               "  --plugin NAME=DIR     load libec_NAME.so from DIR (repeat; first is the subject,\n"
               "                        the others its peers; default erails from the build and\n"
               "                        jerasure from Ceph's plugin directory)\n"
               "  --workload W          encode | decode (default encode)\n"
               "  --size BYTES          object size (default 1048576)\n"
               "  --iterations N        operations per round (default 200)\n"
               "  --rounds N            alternating rounds per plugin, median reported (default 5)\n"
               "  -k K -m M             code geometry (default 4 and 2)\n"
               "  --erasures E          chunks lost before each decode, 0..m (default m)\n"
               "  --technique T         reed_sol_van | cauchy_orig | cauchy_good (default reed_sol_van)\n"
               "  --parameter KEY=VAL   extra profile key for every plugin (w, packetsize, ...)\n"
               "  --codec               also time erails' codec called directly, and report its\n"
               "                        decode-table cache\n",
               program);
}

bool parse_unsigned(const char* text, unsigned* out) {
  const auto value = erails::parse_uint(text);
  if (!value || *value == 0 || *value > 0xffffffffu) return false;
  *out = static_cast<unsigned>(*value);
  return true;
}

bool split_pair(const std::string& text, std::string* key, std::string* value) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  *key = text.substr(0, eq);
  *value = text.substr(eq + 1);
  return true;
}

// Returns an error message, or "" when the options are complete and consistent.
std::string parse_options(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* value = nullptr;
    if (arg == "--help" || arg == "-h") {
      usage(argv[0]);
      std::exit(0);
    }
    if (arg == "--codec") {
      o->codec = true;
      continue;
    }
    if (!(value = next())) return arg + " needs a value";
    unsigned number = 0;
    std::string key, val;
    if (arg == "--plugin") {
      if (!split_pair(value, &key, &val)) return "--plugin takes NAME=DIR, got '" + std::string(value) + "'";
      o->plugins.push_back({key, val});
    } else if (arg == "--workload") {
      o->workload = value;
      if (o->workload != "encode" && o->workload != "decode")
        return "--workload takes encode or decode, got '" + o->workload + "'";
    } else if (arg == "--size" || arg == "--iterations" || arg == "--rounds" || arg == "-k" ||
               arg == "-m" || arg == "--erasures") {
      if (arg == "--erasures" && std::strcmp(value, "0") == 0) {
        o->erasures = 0;
        continue;
      }
      if (!parse_unsigned(value, &number)) return arg + " takes a positive integer, got '" + value + "'";
      if (arg == "--size") o->size = number;
      if (arg == "--iterations") o->iterations = number;
      if (arg == "--rounds") o->rounds = number;
      if (arg == "-k") o->k = static_cast<int>(number);
      if (arg == "-m") o->m = static_cast<int>(number);
      if (arg == "--erasures") o->erasures = static_cast<int>(number);
    } else if (arg == "--technique") {
      o->technique = value;
    } else if (arg == "--parameter") {
      if (!split_pair(value, &key, &val)) return "--parameter takes KEY=VALUE, got '" + std::string(value) + "'";
      o->parameters[key] = val;
    } else {
      return "unknown option " + arg;
    }
  }
  if (o->plugins.empty()) {
    o->plugins = {{"erails", ERAILS_PLUGIN_DIR}, {"jerasure", CEPH_PLUGIN_DIR}};
  }
  if (o->erasures < 0) o->erasures = o->m;
  if (o->erasures > o->m) return "--erasures must be between 0 and m=" + std::to_string(o->m);
  return "";
}

double thread_cpu_seconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

class Subject {
 public:
  Subject(const PluginSpec& spec, const Options& o) : spec_(spec), options_(o) {}

  // Returns "" on success, else why the plugin could not be prepared.
  std::string prepare(const ceph::bufferlist& object) {
    ceph::ErasureCodeProfile profile = options_.parameters;
    profile["plugin"] = spec_.name;
    profile["k"] = std::to_string(options_.k);
    profile["m"] = std::to_string(options_.m);
    profile["technique"] = options_.technique;
    std::ostringstream err;
    int r = ceph_abi::make_erasure_code(spec_.directory, spec_.name, profile, &ec_, &err);
    if (r != 0) return spec_.name + ": " + err.str() + " (" + std::to_string(r) + ")";
    n_ = static_cast<int>(ec_->get_chunk_count());
    for (int i = 0; i < n_; ++i) all_.insert(i);
    if (ec_->encode(all_, object, &encoded_) != 0) return spec_.name + ": encode failed";
    // The worst case for a systematic code: the lost chunks are data chunks.
    survivors_ = encoded_;
    for (int i = 0; i < options_.erasures; ++i) survivors_.erase(i);
    return "";
  }

  unsigned chunk_size() const { return encoded_.begin()->second.length(); }

  // One round of `iterations` operations; returns MB per CPU second of this thread, or a
  // negative value on failure. CPU time rather than wall time: the codes are single-threaded
  // and CPU-bound, and on a shared machine wall time mostly measures the other processes.
  double round(const ceph::bufferlist& object) {
    const double start = thread_cpu_seconds();
    for (unsigned i = 0; i < options_.iterations; ++i) {
      int r;
      if (options_.workload == "encode") {
        std::map<int, ceph::bufferlist> encoded;
        r = ec_->encode(all_, object, &encoded);
      } else {
        std::map<int, ceph::bufferlist> decoded;
        r = ec_->decode(all_, survivors_, &decoded, static_cast<int>(chunk_size()));
      }
      if (r != 0) return -1;
    }
    const double elapsed = thread_cpu_seconds() - start;
    return static_cast<double>(options_.size) * options_.iterations / elapsed / 1e6;
  }

  // Decoding must give back the chunks that encode made, or the figures mean nothing.
  bool verify() {
    std::map<int, ceph::bufferlist> decoded;
    if (ec_->decode(all_, survivors_, &decoded, static_cast<int>(chunk_size())) != 0) return false;
    for (int i = 0; i < n_; ++i)
      if (!decoded[i].contents_equal(encoded_[i])) return false;
    return true;
  }

 private:
  PluginSpec spec_;
  const Options& options_;
  ceph::ErasureCodeInterfaceRef ec_;
  int n_ = 0;
  std::set<int> all_;
  std::map<int, ceph::bufferlist> encoded_;
  std::map<int, ceph::bufferlist> survivors_;
};

// memcpy of the object into a buffer of its size: reads and writes every byte once, as an encode
// reads every data byte and a decode every surviving byte. Not optimised away: the copy is
// checked after the rounds.
class MemcpyBaseline {
 public:
  MemcpyBaseline(const std::string& bytes, const Options& o)
      : source_(bytes), destination_(bytes.size(), '\0'), options_(o) {}

  double round() {
    const double start = thread_cpu_seconds();
    for (unsigned i = 0; i < options_.iterations; ++i) {
      std::memcpy(destination_.data(), source_.data(), source_.size());
      asm volatile("" : : "r"(destination_.data()) : "memory");
    }
    const double elapsed = thread_cpu_seconds() - start;
    return static_cast<double>(options_.size) * options_.iterations / elapsed / 1e6;
  }

  bool verify() const { return destination_ == source_; }

 private:
  const std::string& source_;
  std::string destination_;
  const Options& options_;
};

// erails' Codec on 64-byte aligned chunks, without the Ceph adapter: the difference from the
// plugin is what bufferlists, allocation and padding cost per call.
class CodecSubject {
 public:
  explicit CodecSubject(const Options& o) : options_(o) {}
  ~CodecSubject() {
    for (char* c : chunks_) std::free(c);
  }
  CodecSubject(const CodecSubject&) = delete;
  CodecSubject& operator=(const CodecSubject&) = delete;

  std::string prepare(const std::string& bytes) {
    erails::ProfileMap map = options_.parameters;
    map["k"] = std::to_string(options_.k);
    map["m"] = std::to_string(options_.m);
    map["technique"] = options_.technique;
    const auto profile = erails::parse_profile(map);
    if (!profile.ok()) return "codec: " + profile.error().message;
    std::string error;
    codec_ = erails::Codec::create(profile.value(), &error);
    if (!codec_) return "codec: " + error;
    const int n = options_.k + options_.m;
    chunk_ = codec_->chunk_size(options_.size);
    for (int i = 0; i < n; ++i) {
      chunks_.push_back(static_cast<char*>(std::aligned_alloc(64, std::max(chunk_, 64u))));
      std::memset(chunks_.back(), 0, chunk_);
    }
    for (int i = 0; i < options_.k && static_cast<size_t>(i) * chunk_ < bytes.size(); ++i)
      std::memcpy(chunks_[i], bytes.data() + static_cast<size_t>(i) * chunk_,
                  std::min<size_t>(chunk_, bytes.size() - static_cast<size_t>(i) * chunk_));
    codec_->encode(chunks_.data(), chunks_.data() + options_.k, chunk_);
    for (char* c : chunks_) encoded_.emplace_back(c, chunk_);
    // The worst case for a systematic code, as for the plugins: the lost chunks are data chunks.
    // Cleared, so that verify() shows that decode rebuilt them.
    if (options_.workload == "decode") {
      for (int i = 0; i < options_.erasures; ++i) {
        erased_.push_back(i);
        std::memset(chunks_[i], 0, chunk_);
      }
    }
    return "";
  }

  double round() {
    const double start = thread_cpu_seconds();
    for (unsigned i = 0; i < options_.iterations; ++i) {
      if (options_.workload == "encode") {
        codec_->encode(chunks_.data(), chunks_.data() + options_.k, chunk_);
      } else if (!codec_->decode(erased_, chunks_.data(), chunks_.data() + options_.k, chunk_)) {
        return -1;
      }
    }
    const double elapsed = thread_cpu_seconds() - start;
    return static_cast<double>(options_.size) * options_.iterations / elapsed / 1e6;
  }

  bool verify() const {
    for (size_t i = 0; i < chunks_.size(); ++i)
      if (encoded_[i].compare(0, chunk_, chunks_[i], chunk_) != 0) return false;
    return true;
  }

  unsigned chunk_size() const { return chunk_; }

 private:
  const Options& options_;
  std::unique_ptr<erails::Codec> codec_;
  unsigned chunk_ = 0;
  std::vector<char*> chunks_;
  std::vector<std::string> encoded_;
  std::vector<int> erased_;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  std::string error = parse_options(argc, argv, &options);
  if (!error.empty()) {
    std::fprintf(stderr, "erails-ec-bench: %s\n", error.c_str());
    usage(argv[0]);
    return 2;
  }
  // glibc raises its mmap threshold only after freeing a large mmapped block, so whether a
  // plugin's chunk buffers come back from the heap or are faulted in afresh on every call would
  // depend on what the process happened to allocate before. A long-running OSD is in the warm
  // state; pin every plugin there so the figures measure the codes, not the allocator's history.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
  if (int r = ceph_abi::ensure_ceph_context(); r != 0) {
    std::fprintf(stderr, "erails-ec-bench: cannot create a CephContext for stock plugins (%d)\n", r);
    return 1;
  }

  std::mt19937 rng(42);
  std::string bytes(options.size, '\0');
  for (auto& b : bytes) b = static_cast<char>(rng());
  // Page-aligned, as the OSD's stripes are: where the object starts decides whether a plugin
  // that wants aligned chunks (isa copies any that are not on 32 bytes) copies them, which would
  // otherwise vary with the heap's history from one build to the next.
  ceph::bufferptr page_aligned(ceph::buffer::create_aligned(options.size, 4096));
  page_aligned.copy_in(0, options.size, bytes.data());
  ceph::bufferlist object;
  object.append(std::move(page_aligned));

  std::vector<Subject> subjects;
  for (const auto& spec : options.plugins) {
    subjects.emplace_back(spec, options);
    error = subjects.back().prepare(object);
    if (error.empty() && !subjects.back().verify()) error = spec.name + ": decode did not reproduce the encoded chunks";
    if (!error.empty()) {
      std::fprintf(stderr, "erails-ec-bench: %s\n", error.c_str());
      return 1;
    }
  }

  MemcpyBaseline baseline(bytes, options);
  std::unique_ptr<CodecSubject> codec;
  if (options.codec) {
    codec = std::make_unique<CodecSubject>(options);
    error = codec->prepare(bytes);
    if (!error.empty()) {
      std::fprintf(stderr, "erails-ec-bench: %s\n", error.c_str());
      return 1;
    }
  }

  std::vector<std::vector<double>> rounds(subjects.size());
  std::vector<double> baseline_rounds, codec_rounds;
  for (unsigned r = 0; r < options.rounds; ++r) {
    for (size_t s = 0; s < subjects.size(); ++s) {
      double mbps = subjects[s].round(object);
      if (mbps < 0) {
        std::fprintf(stderr, "erails-ec-bench: %s failed during the %s workload\n",
                     options.plugins[s].name.c_str(), options.workload.c_str());
        return 1;
      }
      rounds[s].push_back(mbps);
    }
    if (codec) {
      codec_rounds.push_back(codec->round());
      if (codec_rounds.back() < 0) {
        std::fprintf(stderr, "erails-ec-bench: the codec failed during the %s workload\n",
                     options.workload.c_str());
        return 1;
      }
    }
    baseline_rounds.push_back(baseline.round());
  }
  if (!baseline.verify() || (codec && !codec->verify())) {
    std::fprintf(stderr, "erails-ec-bench: memcpy or the codec did not reproduce its bytes\n");
    return 1;
  }

  std::printf("workload=%s k=%d m=%d technique=%s size=%u erasures=%d iterations=%u rounds=%u\n",
              options.workload.c_str(), options.k, options.m, options.technique.c_str(),
              options.size, options.workload == "decode" ? options.erasures : 0,
              options.iterations, options.rounds);
  const double memcpy_mbps = median(baseline_rounds);
  std::printf("baseline=memcpy MB/s(cpu)=%.1f\n", memcpy_mbps);
  std::vector<double> medians;
  for (size_t s = 0; s < subjects.size(); ++s) {
    medians.push_back(median(rounds[s]));
    std::printf("plugin=%s chunk_size=%u MB/s(cpu)=%.1f of_memcpy=%.3f\n",
                options.plugins[s].name.c_str(), subjects[s].chunk_size(), medians.back(),
                medians.back() / memcpy_mbps);
  }
  if (codec) {
    const double mbps = median(codec_rounds);
    std::printf("codec=erails chunk_size=%u MB/s(cpu)=%.1f of_memcpy=%.3f\n", codec->chunk_size(),
                mbps, mbps / memcpy_mbps);
    const erails::DecodeCacheStats cache = erails::Codec::decode_cache_stats();
    const uint64_t lookups = cache.hits + cache.misses;
    std::printf("decode_cache entries=%zu bytes=%zu capacity_bytes=%zu hits=%llu misses=%llu "
                "evictions=%llu hit_rate=%.4f\n",
                cache.entries, cache.bytes, cache.capacity_bytes,
                static_cast<unsigned long long>(cache.hits),
                static_cast<unsigned long long>(cache.misses),
                static_cast<unsigned long long>(cache.evictions),
                lookups ? static_cast<double>(cache.hits) / lookups : 0.0);
  }
  for (size_t s = 1; s < subjects.size(); ++s)
    std::printf("ratio %s/%s=%.3f\n", options.plugins[0].name.c_str(),
                options.plugins[s].name.c_str(), medians[0] / medians[s]);
  return 0;
}
