#include <gtest/gtest.h>

#include <string>

#include "qbox/client_spec.h"
#include "qbox/stream_generator.h"

namespace erails::qbox {
namespace {

TEST(ClientSpec, ParsesAllKeys) {
  const auto spec = parse_client_spec(
      "name=A-1,pattern=semi,op=write,size=8192,util=0.5:0,loop=open,rate=200,semi=7/693,"
      "region=1048576,start=4096");
  ASSERT_TRUE(spec) << spec.error().to_string();
  EXPECT_EQ(spec.value().name, "A-1");
  EXPECT_EQ(spec.value().pattern, Pattern::semi);
  EXPECT_EQ(spec.value().operation, Operation::write);
  EXPECT_EQ(spec.value().size, 8192u);
  EXPECT_DOUBLE_EQ(spec.value().util_start, 0.5);
  EXPECT_DOUBLE_EQ(spec.value().util_end, 0.0);
  EXPECT_FALSE(spec.value().closed_loop);
  EXPECT_DOUBLE_EQ(spec.value().rate, 200);
  EXPECT_EQ(spec.value().semi_random, 7u);
  EXPECT_EQ(spec.value().semi_sequential, 693u);
  EXPECT_EQ(spec.value().region_bytes, 1048576u);
  EXPECT_EQ(spec.value().start, 4096u);
}

TEST(ClientSpec, RejectsBadInputNamingTheKey) {
  const std::pair<const char*, const char*> cases[] = {
      {"pattern=random,util=0.5", "name"},
      {"name=A,util=0.5", "pattern"},
      {"name=A,pattern=random", "util"},
      {"name=A b,pattern=random,util=0.5", "name"},
      {"name=A,pattern=zigzag,util=0.5", "pattern"},
      {"name=A,pattern=random,util=0", "util"},
      {"name=A,pattern=random,util=1.5", "util"},
      {"name=A,pattern=random,util=0:0", "util"},
      {"name=A,pattern=random,util=x", "util"},
      {"name=A,pattern=random,util=0.5,size=1000", "size"},
      {"name=A,pattern=random,util=0.5,size=2097152", "size"},
      {"name=A,pattern=random,util=0.5,op=erase", "op"},
      {"name=A,pattern=random,util=0.5,loop=half", "loop"},
      {"name=A,pattern=random,util=0.5,depth=0", "depth"},
      {"name=A,pattern=random,util=0.5,loop=open", "rate"},
      {"name=A,pattern=random,util=0.5,rate=5", "rate"},
      {"name=A,pattern=random,util=0.5,loop=open,rate=5,depth=3", "depth"},
      {"name=A,pattern=random,util=0.5,semi=3", "semi"},
      {"name=A,pattern=trace,util=0.5", "trace"},
      {"name=A,pattern=random,util=0.5,trace=x.csv", "trace"},
      {"name=A,pattern=random,util=0.5,region=5", "region"},
      {"name=A,pattern=random,util=0.5,start=-4096", "start"},
      {"name=A,pattern=random,util=0.5,color=red", "color"},
      {"name=A,name=B,pattern=random,util=0.5", "name"},
      {"name=A,pattern=random,util=0.5,", "client"},
      // Numbers follow common/number.h: no spaces, hex or leading '+' (strtod took all three).
      {"name=A,pattern=random,util= 0.5", "util"},
      {"name=A,pattern=random,util=0x0.8", "util"},
      {"name=A,pattern=random,util=+0.5", "util"},
      {"name=A,pattern=random,util=0.5: 0", "util"},
      {"name=A,pattern=random,util=0.5,loop=open,rate=0x10", "rate"},
      {"name=A,pattern=random,util=0.5,loop=open,rate= 5", "rate"},
      {"name=A,pattern=random,util=0.5,size=+4096", "size"},
      {"name=A,pattern=random,util=0.5,depth= 8", "depth"},
      {"name=A,pattern=semi,util=0.5,semi=+1/2", "semi"},
  };
  for (const auto& [text, field] : cases) {
    const auto spec = parse_client_spec(text);
    ASSERT_FALSE(spec) << text;
    EXPECT_EQ(spec.error().key, field) << text << " -> " << spec.error().to_string();
  }
}

TEST(StreamGenerator, SemiSequentialFollowsItsGroupPattern) {
  ClientSpec spec = parse_client_spec("name=A,pattern=semi,util=0.5,semi=2/3").value();
  StreamGenerator generator(spec, 1 << 20, 64 << 20, nullptr, 1);
  std::uint64_t previous_end = 0;
  int sequential = 0;
  for (int k = 0; k < 50; ++k) {
    const StreamRequest r = generator.next();
    EXPECT_GE(r.offset, 1u << 20);
    EXPECT_LE(r.offset + r.length, (1u << 20) + (64u << 20));
    EXPECT_EQ(r.offset % 4096, 0u);
    if (k > 0 && r.offset == previous_end) ++sequential;
    previous_end = r.offset + r.length;
  }
  EXPECT_EQ(sequential, 30);  // 3 of every 5 requests continue the previous one
}

TEST(StreamGenerator, TraceRequestsStayInTheRegionAndKeepTheirTiming) {
  const std::vector<TraceRecord> trace{{0.0, Operation::read, 1ull << 40, 32768},
                                       {0.5, Operation::write, 12288, 100}};
  ClientSpec spec = parse_client_spec("name=T,pattern=trace,trace=x,util=0.5,loop=open").value();
  StreamGenerator generator(spec, 0, 8 << 20, &trace, 1);
  EXPECT_DOUBLE_EQ(generator.next_arrival(), 0.0);
  const StreamRequest first = generator.next();
  EXPECT_LE(first.offset + first.length, 8u << 20);
  EXPECT_DOUBLE_EQ(generator.next_arrival(), 0.5);
  const StreamRequest second = generator.next();
  EXPECT_EQ(second.operation, Operation::write);
  EXPECT_EQ(second.offset, 12288u);
  EXPECT_EQ(second.length, 4096u);  // rounded up to whole blocks for O_DIRECT
  EXPECT_DOUBLE_EQ(generator.next_arrival(), 1.0);  // second pass starts one mean gap later
}

TEST(StreamGenerator, TraceRunsOfMixedSizesStayContiguous) {
  constexpr std::uint64_t base = (1ull << 40) + 5 * 4096;
  const std::vector<TraceRecord> trace{{0.0, Operation::read, base, 32768},
                                       {0.1, Operation::read, base + 32768, 65536},
                                       {0.2, Operation::read, base + 98304, 32768}};
  ClientSpec spec = parse_client_spec("name=T,pattern=trace,trace=x,util=0.5").value();
  StreamGenerator generator(spec, 1 << 20, 8 << 20, &trace, 1);
  StreamRequest previous = generator.next();
  for (int k = 1; k < 3; ++k) {
    const StreamRequest r = generator.next();
    EXPECT_EQ(r.offset, previous.offset + previous.length) << "request " << k;
    previous = r;
  }
}

}  // namespace
}  // namespace erails::qbox
