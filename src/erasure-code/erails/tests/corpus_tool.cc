// erails-corpus: the non-regression corpus of encoded chunks. `create DIR` writes the chunks that
// the plugin makes today for a fixed grid of profiles and object sizes; `check DIR` re-encodes the
// same objects and fails on any byte that differs, then decodes the stored chunks with m of them
// lost, so that data written by an earlier build stays readable. The chunks are what OSDs store
// on disk: they must never change silently.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "ceph_abi/plugin_host.h"

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kProfiles = {
    "k=1,m=2",
    "k=2,m=1",
    "k=3,m=2",
    "k=4,m=2",
    "k=6,m=3",
    "k=4,m=3,w=16",
    "k=3,m=2,w=32",
    "k=3,m=2,technique=cauchy_orig,packetsize=64",
    "k=4,m=2,technique=cauchy_good,packetsize=64",
    "k=5,m=3,technique=cauchy_good,w=4,packetsize=32",
};
const std::vector<unsigned> kObjectSizes = {1, 1000, 8191, 20000};

// Object contents: part of the corpus format, so this generator must never change either.
std::string object_bytes(unsigned size, unsigned salt) {
  uint64_t state = 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(size) << 20) ^ salt;
  std::string bytes(size, '\0');
  for (auto& b : bytes) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    b = static_cast<char>(state >> 56);
  }
  return bytes;
}

ceph::ErasureCodeProfile parse(const std::string& text) {
  ceph::ErasureCodeProfile profile;
  std::istringstream in(text);
  std::string pair;
  while (std::getline(in, pair, ',')) {
    auto eq = pair.find('=');
    profile[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  return profile;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

int run(const std::string& mode, const fs::path& root, const std::string& plugin_dir) {
  int failures = 0, checked = 0;
  for (size_t p = 0; p < kProfiles.size(); ++p) {
    ceph::ErasureCodeProfile profile = parse(kProfiles[p]);
    ceph::ErasureCodeInterfaceRef ec;
    std::ostringstream err;
    if (ceph_abi::make_erasure_code(plugin_dir, "erails", profile, &ec, &err) != 0) {
      std::fprintf(stderr, "%s: %s\n", kProfiles[p].c_str(), err.str().c_str());
      return 1;
    }
    const int n = ec->get_chunk_count(), k = ec->get_data_chunk_count();
    std::set<int> all;
    for (int i = 0; i < n; ++i) all.insert(i);
    for (unsigned size : kObjectSizes) {
      const std::string bytes = object_bytes(size, static_cast<unsigned>(p));
      ceph::bufferlist object;
      object.append(bytes.data(), size);
      std::map<int, ceph::bufferlist> encoded;
      if (ec->encode(all, object, &encoded) != 0) {
        std::fprintf(stderr, "%s size %u: encode failed\n", kProfiles[p].c_str(), size);
        return 1;
      }
      const fs::path dir = root / kProfiles[p] / std::to_string(size);
      if (mode == "create") {
        fs::create_directories(dir);
        for (auto& [id, chunk] : encoded) {
          std::ofstream out(dir / std::to_string(id), std::ios::binary);
          out.write(chunk.c_str(), chunk.length());
        }
        continue;
      }
      std::map<int, ceph::bufferlist> stored;
      for (int id = 0; id < n; ++id) {
        const fs::path file = dir / std::to_string(id);
        const std::string want(encoded[id].c_str(), encoded[id].length());
        const std::string have = fs::exists(file) ? read_file(file) : std::string();
        ++checked;
        if (have != want) {
          std::fprintf(stderr, "FAIL %s: chunk differs from today's encoding\n", file.c_str());
          ++failures;
        }
        if (id >= n - k) stored[id].append(have.data(), have.size());
      }
      // Read back what was stored with the first m chunks lost.
      ceph::bufferlist decoded;
      if (ec->decode_concat(stored, &decoded) != 0 || decoded.length() < size ||
          std::string(decoded.c_str(), size) != bytes) {
        std::fprintf(stderr, "FAIL %s: stored chunks do not decode to the object\n", dir.c_str());
        ++failures;
      }
    }
  }
  if (mode == "check")
    std::printf("%d chunks checked, %d differ\n", checked, failures);
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 || (std::string(argv[1]) != "create" && std::string(argv[1]) != "check")) {
    std::fprintf(stderr, "usage: %s create|check CORPUS_DIR PLUGIN_DIR\n", argv[0]);
    return 2;
  }
  return run(argv[1], argv[2], argv[3]);
}
