#include "erasure-code/erails/codec.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>

#include <jerasure/galois.h>

#include "erasure-code/erails/isal.h"
#include "erasure-code/erails/region_xor.h"

namespace erails {
namespace {

// Aligned, owned storage for n chunks of one size.
class Stripe {
 public:
  Stripe(int n, unsigned chunk_size) : chunk_size_(chunk_size), chunks_(n) {
    for (auto& c : chunks_)
      c = static_cast<char*>(std::aligned_alloc(64, std::max(chunk_size, 64u)));
  }
  ~Stripe() {
    for (char* c : chunks_) std::free(c);
  }
  char** data() { return chunks_.data(); }
  char* operator[](int i) { return chunks_[i]; }
  int size() const { return static_cast<int>(chunks_.size()); }
  unsigned chunk_size() const { return chunk_size_; }

 private:
  unsigned chunk_size_;
  std::vector<char*> chunks_;
};

std::unique_ptr<Codec> make_codec(ProfileMap map) {
  auto profile = parse_profile(map);
  EXPECT_TRUE(profile.ok()) << profile.error().message;
  std::string message;
  auto codec = Codec::create(profile.value(), &message);
  EXPECT_TRUE(codec) << message;
  return codec;
}

void fill_random(Stripe& stripe, int count, unsigned seed) {
  std::mt19937 rng(seed);
  for (int i = 0; i < count; ++i)
    for (unsigned b = 0; b < stripe.chunk_size(); ++b) stripe[i][b] = static_cast<char>(rng());
}

// Every way of choosing `size` ids out of n, in lexicographic order.
std::vector<std::vector<int>> subsets(int n, int size) {
  std::vector<std::vector<int>> out;
  std::vector<bool> pick(n, false);
  std::fill(pick.begin(), pick.begin() + size, true);
  do {
    std::vector<int> ids;
    for (int i = 0; i < n; ++i)
      if (pick[i]) ids.push_back(i);
    out.push_back(ids);
  } while (std::prev_permutation(pick.begin(), pick.end()));
  return out;
}

struct CodeCase {
  int k, m;
  std::string technique;
  int w;
  int packetsize;
};

std::string case_name(const ::testing::TestParamInfo<CodeCase>& info) {
  const CodeCase& c = info.param;
  return c.technique + "_k" + std::to_string(c.k) + "_m" + std::to_string(c.m) + "_w" +
         std::to_string(c.w);
}

class EveryErasure : public ::testing::TestWithParam<CodeCase> {};

TEST_P(EveryErasure, DecodesEveryPatternOfUpToMLostChunks) {
  const CodeCase& c = GetParam();
  ProfileMap map = {{"k", std::to_string(c.k)}, {"m", std::to_string(c.m)},
                    {"technique", c.technique}, {"w", std::to_string(c.w)}};
  if (c.packetsize) map["packetsize"] = std::to_string(c.packetsize);
  auto codec = make_codec(map);
  ASSERT_TRUE(codec);
  const int n = c.k + c.m;
  // An object whose size is not a multiple of anything, as objects in a pool are.
  const unsigned chunk = codec->chunk_size(3 * codec->alignment() * c.k + 17);
  ASSERT_EQ(chunk % codec->alignment(), 0u);
  Stripe original(n, chunk);
  fill_random(original, c.k, 1234 + c.k * 31 + c.m);
  codec->encode(original.data(), original.data() + c.k, chunk);

  for (int lost = 1; lost <= c.m; ++lost) {
    for (const auto& erased : subsets(n, lost)) {
      Stripe work(n, chunk);
      for (int i = 0; i < n; ++i) std::memcpy(work[i], original[i], chunk);
      for (int id : erased) std::memset(work[id], 0xA5, chunk);
      ASSERT_TRUE(codec->decode(erased, work.data(), work.data() + c.k, chunk));
      for (int i = 0; i < n; ++i)
        ASSERT_EQ(std::memcmp(work[i], original[i], chunk), 0)
            << "chunk " << i << " wrong after losing " << ::testing::PrintToString(erased);
    }
  }
  std::vector<int> too_many;
  for (int i = 0; i <= c.m; ++i) too_many.push_back(i);
  Stripe work(n, chunk);
  EXPECT_FALSE(codec->decode(too_many, work.data(), work.data() + c.k, chunk));
}

INSTANTIATE_TEST_SUITE_P(
    Grid, EveryErasure,
    ::testing::Values(CodeCase{1, 1, "reed_sol_van", 8, 0}, CodeCase{1, 3, "reed_sol_van", 8, 0},
                      CodeCase{2, 1, "reed_sol_van", 8, 0}, CodeCase{2, 2, "reed_sol_van", 8, 0},
                      CodeCase{3, 3, "reed_sol_van", 8, 0}, CodeCase{4, 2, "reed_sol_van", 8, 0},
                      CodeCase{5, 5, "reed_sol_van", 8, 0}, CodeCase{6, 4, "reed_sol_van", 8, 0},
                      CodeCase{8, 3, "reed_sol_van", 8, 0}, CodeCase{4, 3, "reed_sol_van", 16, 0},
                      CodeCase{3, 2, "reed_sol_van", 32, 0}, CodeCase{1, 2, "cauchy_good", 8, 64},
                      CodeCase{2, 2, "cauchy_orig", 8, 64}, CodeCase{4, 2, "cauchy_orig", 8, 2048},
                      CodeCase{3, 3, "cauchy_good", 8, 64}, CodeCase{6, 3, "cauchy_good", 4, 64},
                      CodeCase{5, 4, "cauchy_good", 5, 32}, CodeCase{4, 4, "cauchy_orig", 16, 8}),
    case_name);

TEST(Codec, ChunkSizeCoversTheObjectAndIsAligned) {
  auto rs = make_codec({{"k", "4"}, {"m", "2"}});
  EXPECT_EQ(rs->alignment(), 64u);
  EXPECT_EQ(rs->chunk_size(0), 0u);
  EXPECT_EQ(rs->chunk_size(1), 64u);
  EXPECT_EQ(rs->chunk_size(4 * 64), 64u);
  EXPECT_EQ(rs->chunk_size(4 * 64 + 1), 128u);
  // The OSD asks for the chunk of a whole stripe (stripe_unit * k): it must come back exactly.
  EXPECT_EQ(rs->chunk_size(4096 * 4), 4096u);
  EXPECT_EQ(rs->chunk_size(3 * 4096 * 4), 3 * 4096u);

  auto cauchy = make_codec({{"k", "3"}, {"m", "2"}, {"technique", "cauchy_good"}, {"packetsize", "24"}});
  EXPECT_EQ(cauchy->alignment(), 192u);  // lcm(64, w * packetsize = 192)
  EXPECT_EQ(cauchy->chunk_size(1), 192u);
  EXPECT_EQ(cauchy->chunk_size(3 * 192 + 1), 384u);
}

TEST(Codec, ReplicationModeStoresFullCopies) {
  auto codec = make_codec({{"k", "1"}, {"m", "2"}, {"technique", "cauchy_good"}, {"packetsize", "64"}});
  const unsigned chunk = codec->chunk_size(1000);
  Stripe s(3, chunk);
  fill_random(s, 1, 7);
  codec->encode(s.data(), s.data() + 1, chunk);
  EXPECT_EQ(std::memcmp(s[0], s[1], chunk), 0);
  EXPECT_EQ(std::memcmp(s[0], s[2], chunk), 0);
}

TEST(Codec, RejectsOutOfRangeErasureIds) {
  auto codec = make_codec({{"k", "2"}, {"m", "2"}});
  Stripe s(4, 64);
  EXPECT_FALSE(codec->decode({4}, s.data(), s.data() + 2, 64));
  EXPECT_FALSE(codec->decode({-1}, s.data(), s.data() + 2, 64));
  EXPECT_TRUE(codec->decode({}, s.data(), s.data() + 2, 64));
}

}  // namespace
}  // namespace erails

namespace erails {
namespace {

// ISA-L and gf-complete must be the same field for ISA-L to produce jerasure's bytes: check every
// product rather than trust that both use the polynomial 0x11d.
TEST(Isal, MultiplicationIsGfCompletesDefaultField) {
  std::string error;
  const Isal* isal = Isal::get(&error);
  ASSERT_TRUE(isal) << error;
  ASSERT_EQ(galois_init_default_field(8), 0);
  for (int a = 0; a < 256; ++a)
    for (int b = 0; b < 256; ++b)
      ASSERT_EQ(isal->gf_mul(static_cast<unsigned char>(a), static_cast<unsigned char>(b)),
                galois_single_multiply(a, b, 8))
          << a << " * " << b;
}

// The functions must come from Debian's libisal itself, whatever else the process has loaded.
TEST(Isal, FunctionsComeFromDebiansLibrary) {
  std::string error;
  const Isal* isal = Isal::get(&error);
  ASSERT_TRUE(isal) << error;
  for (void* function : {reinterpret_cast<void*>(isal->ec_init_tables),
                         reinterpret_cast<void*>(isal->ec_encode_data),
                         reinterpret_cast<void*>(isal->gf_mul),
                         reinterpret_cast<void*>(isal->gf_invert_matrix)}) {
    Dl_info info;
    ASSERT_NE(dladdr(function, &info), 0);
    EXPECT_NE(std::string(info.dli_fname).find("libisal.so."), std::string::npos) << info.dli_fname;
  }
}

// ISA-L and jerasure must produce the same bytes for every erasure pattern, and for lengths that
// are not a multiple of any vector width.
TEST(Codec, IsalMatchesJerasureByteForByte) {
  for (int k : {2, 3, 4, 6, 8, 10}) {
    for (int m : {1, 2, 3, 4}) {
      ProfileMap map = {{"k", std::to_string(k)}, {"m", std::to_string(m)}};
      const auto profile = parse_profile(map);
      ASSERT_TRUE(profile.ok()) << profile.error().message;
      std::string error;
      auto fast = Codec::create(profile.value(), &error, Codec::Kernel::kFastest);
      auto reference = Codec::create(profile.value(), &error, Codec::Kernel::kJerasure);
      ASSERT_TRUE(fast && reference) << error;
      const int n = k + m;
      for (unsigned length : {40u, 96u, 1000u, 4160u, 12352u}) {
        Stripe a(n, length), b(n, length);
        fill_random(a, k, k * 100 + m + length);
        for (int i = 0; i < k; ++i) std::memcpy(b[i], a[i], length);
        fast->encode(a.data(), a.data() + k, length);
        reference->encode(b.data(), b.data() + k, length);
        for (int i = k; i < n; ++i)
          ASSERT_EQ(std::memcmp(a[i], b[i], length), 0) << "k=" << k << " m=" << m;
        for (int lost = 1; lost <= m; ++lost) {
          for (const auto& erased : subsets(n, lost)) {
            Stripe work(n, length);
            for (int i = 0; i < n; ++i) std::memcpy(work[i], a[i], length);
            for (int id : erased) std::memset(work[id], 0, length);
            ASSERT_TRUE(fast->decode(erased, work.data(), work.data() + k, length));
            for (int i = 0; i < n; ++i)
              ASSERT_EQ(std::memcmp(work[i], a[i], length), 0)
                  << "k=" << k << " m=" << m << " chunk " << i << " after losing "
                  << ::testing::PrintToString(erased);
          }
        }
      }
    }
  }
}

// Ceph hands the codec buffers at any 16-byte boundary and chunks of any multiple of 64 bytes;
// region_xor must not care about either.
TEST(RegionXor, AnyAlignmentAnyLength) {
  if (!region_xor_supported()) GTEST_SKIP() << "this CPU has no AVX2";
  std::mt19937 rng(3);
  std::vector<unsigned char> buffer(8 * 1024);
  for (auto& b : buffer) b = static_cast<unsigned char>(rng());
  std::vector<unsigned char> out(1024 + 64);
  for (int count : {1, 2, 5}) {
    for (size_t length : {0, 1, 31, 32, 33, 127, 128, 129, 300, 1000}) {
      for (size_t misalign : {0, 1, 16, 17}) {
        std::vector<const unsigned char*> sources;
        for (int s = 0; s < count; ++s)
          sources.push_back(buffer.data() + s * 1100 + misalign * (s + 1));
        region_xor(sources.data(), count, out.data() + misalign, length);
        for (size_t i = 0; i < length; ++i) {
          unsigned char expected = 0;
          for (const unsigned char* source : sources) expected ^= source[i];
          ASSERT_EQ(out[misalign + i], expected)
              << "count " << count << " length " << length << " byte " << i;
        }
      }
    }
  }
}

TEST(Codec, DecodingTablesAreCachedPerErasurePattern) {
  auto codec = make_codec({{"k", "5"}, {"m", "3"}});
  const unsigned chunk = 640;
  Stripe original(8, chunk);
  fill_random(original, 5, 99);
  codec->encode(original.data(), original.data() + 5, chunk);
  // A pattern no other test of this process uses, so that its first decode is a miss.
  const std::vector<int> erased = {1, 4, 6};
  const DecodeCacheStats before = Codec::decode_cache_stats();
  for (int round = 0; round < 3; ++round) {
    Stripe work(8, chunk);
    for (int i = 0; i < 8; ++i) std::memcpy(work[i], original[i], chunk);
    for (int id : erased) std::memset(work[id], 0, chunk);
    ASSERT_TRUE(codec->decode(erased, work.data(), work.data() + 5, chunk));
    for (int i = 0; i < 8; ++i) ASSERT_EQ(std::memcmp(work[i], original[i], chunk), 0);
  }
  const DecodeCacheStats after = Codec::decode_cache_stats();
  EXPECT_EQ(after.misses - before.misses, 1u);
  EXPECT_EQ(after.hits - before.hits, 2u);
  EXPECT_GE(after.entries, 1u);
  EXPECT_LE(after.bytes, after.capacity_bytes);
}

// OSD threads decode concurrently with one codec: every thread must get its own pattern right
// while the others fill and hit the shared cache.
TEST(Codec, ConcurrentDecodesOfDifferentPatterns) {
  auto codec = make_codec({{"k", "6"}, {"m", "3"}});
  const int n = 9;
  const unsigned chunk = 4096;
  Stripe original(n, chunk);
  fill_random(original, 6, 5);
  codec->encode(original.data(), original.data() + 6, chunk);
  const auto patterns = subsets(n, 3);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Stripe work(n, chunk);
      for (int round = 0; round < 200; ++round) {
        const auto& erased = patterns[(t * 37 + round) % patterns.size()];
        for (int i = 0; i < n; ++i) std::memcpy(work[i], original[i], chunk);
        for (int id : erased) std::memset(work[id], 0, chunk);
        bool ok = codec->decode(erased, work.data(), work.data() + 6, chunk);
        for (int i = 0; ok && i < n; ++i) ok = std::memcmp(work[i], original[i], chunk) == 0;
        if (!ok) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace erails
