// Drives the built libec_erails.so through Ceph's plugin ABI, exactly as ceph-osd does: dlopen,
// version check, registration, factory, then the interface's virtual functions on bufferlists.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <random>
#include <sstream>

#include "ceph_abi/checked_build.h"
#include "ceph_abi/plugin_host.h"
#include "rails/schedule.h"

namespace {

using ceph::bufferlist;

ceph::ErasureCodeInterfaceRef make(ceph::ErasureCodeProfile profile, int* result = nullptr,
                                   std::string* message = nullptr) {
  ceph::ErasureCodeInterfaceRef ec;
  std::ostringstream err;
  int r = ceph_abi::make_erasure_code(ERAILS_PLUGIN_DIR, "erails", profile, &ec, &err);
  if (result) *result = r;
  if (message) *message = err.str();
  if (!result) {
    EXPECT_EQ(r, 0) << err.str();
  }
  return ec;
}

// An object split over several buffers at odd offsets, as the OSD hands them over.
bufferlist random_object(unsigned size, unsigned seed) {
  std::mt19937 rng(seed);
  std::string bytes(size, '\0');
  for (auto& b : bytes) b = static_cast<char>(rng());
  bufferlist bl;
  unsigned pos = 0;
  while (pos < size) {
    unsigned piece = std::min<unsigned>(size - pos, 1 + rng() % 5000);
    bl.append(bytes.data() + pos, piece);
    pos += piece;
  }
  return bl;
}

std::set<int> range(int from, int to) {
  std::set<int> ids;
  for (int i = from; i < to; ++i) ids.insert(i);
  return ids;
}

TEST(Plugin, ReportsTheInstalledCephVersion) {
  void* library = dlopen(ERAILS_PLUGIN_DIR "/libec_erails.so", RTLD_NOW);
  ASSERT_NE(library, nullptr) << dlerror();
  auto version = reinterpret_cast<const char* (*)()>(dlsym(library, "__erasure_code_version"));
  ASSERT_NE(version, nullptr);
  EXPECT_STREQ(version(), erails::ceph_build::kVersion);
  dlclose(library);
}

TEST(Plugin, WritesDefaultsBackAndReportsGeometry) {
  ceph::ErasureCodeProfile profile = {{"k", "4"}, {"m", "2"}};
  auto ec = make(profile);
  ASSERT_TRUE(ec);
  EXPECT_EQ(ec->get_profile().at("technique"), "reed_sol_van");
  EXPECT_EQ(ec->get_profile().at("crush-failure-domain"), "host");
  EXPECT_EQ(ec->get_chunk_count(), 6u);
  EXPECT_EQ(ec->get_data_chunk_count(), 4u);
  EXPECT_EQ(ec->get_coding_chunk_count(), 2u);
  EXPECT_EQ(ec->get_sub_chunk_count(), 1);
  EXPECT_TRUE(ec->get_chunk_mapping().empty());
  EXPECT_EQ(ec->get_chunk_size(4 * 4096), 4096u);
}

TEST(Plugin, RefusesABadProfileWithTheKeyInTheMessage) {
  int r = 0;
  std::string message;
  auto ec = make({{"k", "4"}, {"m", "2"}, {"technique", "nope"}}, &r, &message);
  EXPECT_EQ(r, -EINVAL);
  EXPECT_FALSE(ec);
  EXPECT_NE(message.find("technique=nope"), std::string::npos) << message;
  EXPECT_NE(message.find("reed_sol_van, cauchy_orig, cauchy_good"), std::string::npos);
}

class RoundTrip : public ::testing::TestWithParam<ceph::ErasureCodeProfile> {};

TEST_P(RoundTrip, EncodesAndDecodesObjectsOfAnySize) {
  auto ec = make(GetParam());
  ASSERT_TRUE(ec);
  const int k = ec->get_data_chunk_count(), n = ec->get_chunk_count();
  for (unsigned size : {1u, 63u, 4096u, 4097u, 65536u * 3 + 5}) {
    bufferlist object = random_object(size, size);
    std::map<int, bufferlist> encoded;
    ASSERT_EQ(ec->encode(range(0, n), object, &encoded), 0);
    ASSERT_EQ(static_cast<int>(encoded.size()), n);
    const unsigned chunk = ec->get_chunk_size(size);
    for (auto& [id, bl] : encoded) ASSERT_EQ(bl.length(), chunk) << "chunk " << id;

    // Lose the first m chunks (all data when k <= m): decode must rebuild them.
    std::map<int, bufferlist> survivors(std::next(encoded.begin(), n - k), encoded.end());
    bufferlist concatenated;
    ASSERT_EQ(ec->decode_concat(survivors, &concatenated), 0);
    ASSERT_GE(concatenated.length(), size);
    bufferlist prefix;
    prefix.substr_of(concatenated, 0, size);
    EXPECT_TRUE(prefix.contents_equal(object)) << "size " << size;

    std::map<int, bufferlist> decoded;
    ASSERT_EQ(ec->decode(range(0, n), survivors, &decoded, chunk), 0);
    for (int i = 0; i < n; ++i)
      EXPECT_TRUE(decoded[i].contents_equal(encoded[i])) << "chunk " << i << " size " << size;
  }
}

INSTANTIATE_TEST_SUITE_P(Profiles, RoundTrip,
                         ::testing::Values(ceph::ErasureCodeProfile{{"k", "2"}, {"m", "1"}},
                                           ceph::ErasureCodeProfile{{"k", "4"}, {"m", "2"}},
                                           ceph::ErasureCodeProfile{{"k", "1"}, {"m", "2"}},
                                           ceph::ErasureCodeProfile{{"k", "3"}, {"m", "3"}, {"technique", "cauchy_good"}},
                                           ceph::ErasureCodeProfile{{"k", "5"}, {"m", "2"}, {"technique", "cauchy_orig"}, {"packetsize", "64"}}));

TEST(Plugin, DecodeWithMoreChunksThanNeeded) {
  auto ec = make({{"k", "3"}, {"m", "3"}});
  bufferlist object = random_object(10000, 3);
  std::map<int, bufferlist> encoded;
  ASSERT_EQ(ec->encode(range(0, 6), object, &encoded), 0);
  // Chunk 1 lost, five of six present: one more than k.
  std::map<int, bufferlist> chunks = encoded;
  chunks.erase(1);
  std::map<int, bufferlist> decoded;
  ASSERT_EQ(ec->decode({1}, chunks, &decoded, 0), 0);
  EXPECT_TRUE(decoded[1].contents_equal(encoded[1]));
  // Everything wanted is present: handed back as is.
  ASSERT_EQ(ec->decode({0, 2}, chunks, &decoded, 0), 0);
  EXPECT_EQ(decoded.size(), 2u);
  EXPECT_TRUE(decoded[2].contents_equal(encoded[2]));
}

TEST(Plugin, DecodeErrors) {
  auto ec = make({{"k", "3"}, {"m", "2"}});
  bufferlist object = random_object(5000, 4);
  std::map<int, bufferlist> encoded, decoded;
  ASSERT_EQ(ec->encode(range(0, 5), object, &encoded), 0);
  std::map<int, bufferlist> two = {{3, encoded[3]}, {4, encoded[4]}};
  EXPECT_EQ(ec->decode({0}, two, &decoded, 0), -EIO);
  EXPECT_EQ(ec->decode({7}, encoded, &decoded, 0), -EINVAL);
  EXPECT_EQ(ec->decode({0}, {}, &decoded, 0), -EINVAL);
  std::map<int, bufferlist> uneven = {{1, encoded[1]}, {2, encoded[2]}, {3, bufferlist()}};
  uneven[3].append("short", 5);
  EXPECT_EQ(ec->decode({0}, uneven, &decoded, 0), -EINVAL);
  bufferlist out;
  EXPECT_EQ(ec->decode_concat(two, &out), -EIO);
  EXPECT_EQ(ec->encode({5}, object, &encoded), -EINVAL);
}

TEST(Plugin, EncodeChunksAndDecodeChunksWorkOnCallerBuffers) {
  auto ec = make({{"k", "2"}, {"m", "2"}});
  bufferlist object = random_object(2 * 4096, 5);
  std::map<int, bufferlist> reference;
  ASSERT_EQ(ec->encode(range(0, 4), object, &reference), 0);

  std::map<int, bufferlist> chunks;
  chunks[0].substr_of(object, 0, 4096);
  chunks[1].substr_of(object, 4096, 4096);
  chunks[2].append(std::string(4096, '\0'));
  chunks[3].append(std::string(4096, '\0'));
  ASSERT_EQ(ec->encode_chunks(range(0, 4), &chunks), 0);
  EXPECT_TRUE(chunks[2].contents_equal(reference[2]));
  EXPECT_TRUE(chunks[3].contents_equal(reference[3]));

  std::map<int, bufferlist> present = {{1, reference[1]}, {3, reference[3]}};
  std::map<int, bufferlist> decoded = present;
  decoded[0].append(std::string(4096, 'x'));
  decoded[2].append(std::string(4096, 'x'));
  ASSERT_EQ(ec->decode_chunks({0, 2}, present, &decoded), 0);
  EXPECT_TRUE(decoded[0].contents_equal(reference[0]));
  EXPECT_TRUE(decoded[2].contents_equal(reference[2]));

  std::map<int, bufferlist> missing_one = {{0, reference[0]}};
  EXPECT_EQ(ec->encode_chunks(range(0, 4), &missing_one), -EINVAL);
}

TEST(Plugin, MinimumToDecode) {
  auto ec = make({{"k", "4"}, {"m", "2"}});
  std::map<int, std::vector<std::pair<int, int>>> minimum;
  ASSERT_EQ(ec->minimum_to_decode({1, 2}, range(0, 6), &minimum), 0);
  EXPECT_EQ(minimum.size(), 2u);
  EXPECT_EQ(minimum[1], (std::vector<std::pair<int, int>>{{0, 1}}));

  ASSERT_EQ(ec->minimum_to_decode({0, 1}, {1, 2, 3, 4, 5}, &minimum), 0);
  std::set<int> chosen;
  for (auto& [id, ranges] : minimum) chosen.insert(id);
  EXPECT_EQ(chosen, (std::set<int>{1, 2, 3, 4}));

  EXPECT_EQ(ec->minimum_to_decode({0}, {1, 2, 3}, &minimum), -EIO);
  EXPECT_EQ(ec->minimum_to_decode({6}, range(0, 6), &minimum), -EINVAL);

  std::set<int> cheapest;
  ASSERT_EQ(ec->minimum_to_decode_with_cost({0}, {{1, 9}, {2, 1}, {3, 5}, {4, 2}, {5, 1}},
                                            &cheapest),
            0);
  EXPECT_EQ(cheapest, (std::set<int>{2, 3, 4, 5}));
  ASSERT_EQ(ec->minimum_to_decode_with_cost({1}, {{1, 9}, {2, 1}}, &cheapest), 0);
  EXPECT_EQ(cheapest, (std::set<int>{1}));
  EXPECT_EQ(ec->minimum_to_decode_with_cost({0}, {{1, 1}, {2, 1}}, &cheapest), -EIO);
}

TEST(Plugin, WithColorsReadsComeFromReadPhaseShards) {
  // A long frame, so that the read set rarely changes between computing it here and the plugin
  // computing it; if it does, the comparison is retried.
  ceph::ErasureCodeProfile profile = {{"k", "2"}, {"m", "2"}, {"crush-colors", "c0,c1,c2,c3"},
                                      {"rails-frame", "1000"}, {"rails-readers", "2"}};
  auto ec = make(profile);
  ASSERT_TRUE(ec);
  erails::rails::ScheduleParams params{4, 1000, 2, 0, 100};
  auto schedule = erails::rails::Schedule::create(params);
  ASSERT_TRUE(schedule.ok());
  auto now = [] {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  };
  for (int attempt = 0; attempt < 3; ++attempt) {
    const auto before = schedule.value().read_set(now());
    std::map<int, std::vector<std::pair<int, int>>> minimum;
    ASSERT_EQ(ec->minimum_to_decode({0, 1}, range(0, 4), &minimum), 0);
    if (schedule.value().read_set(now()) != before) continue;
    std::set<int> chosen;
    for (auto& [id, ranges] : minimum) chosen.insert(id);
    const auto expected = before.to_vector();
    EXPECT_EQ(chosen, std::set<int>(expected.begin(), expected.end()));
    // With a read-phase shard down, one write-phase shard has to be read.
    std::set<int> available = range(0, 4);
    available.erase(expected.front());
    ASSERT_EQ(ec->minimum_to_decode({0, 1}, available, &minimum), 0);
    EXPECT_EQ(minimum.size(), 2u);
    EXPECT_FALSE(minimum.count(expected.front()));
    return;
  }
  FAIL() << "the read set kept changing";
}

TEST(Plugin, MinimumToDecodeOfNothingIsNothing) {
  auto ec = make({{"k", "2"}, {"m", "1"}});
  std::map<int, std::vector<std::pair<int, int>>> minimum = {{0, {}}};
  EXPECT_EQ(ec->minimum_to_decode({}, range(0, 3), &minimum), 0);
  EXPECT_TRUE(minimum.empty());
}

}  // namespace
