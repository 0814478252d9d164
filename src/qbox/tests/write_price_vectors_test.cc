// WritePrice::of against testdata/write_price_vectors.txt, the file the qbox mgr module's tests
// also read, so a write SLA is converted at the price an OSD charges a write of its length.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "common/tests/vector_file.h"
#include "qbox/write_pricer.h"

namespace erails::qbox {
namespace {

double number(const std::string& field) { return std::strtod(field.c_str(), nullptr); }

TEST(WritePriceVectors, EveryVectorMatches) {
  const auto vectors = test::read_vector_file(ERAILS_WRITE_PRICE_VECTORS);
  ASSERT_TRUE(vectors) << "cannot open " << ERAILS_WRITE_PRICE_VECTORS;
  for (const auto& [line_number, f] : *vectors) {
    ASSERT_EQ(f.size(), 5u) << "line " << line_number;
    WritePrice price;
    price.per_op = number(f[0]);
    price.per_byte = number(f[1]) / 1048576.0;
    price.method = "residual";
    price.shortest = std::strtoull(f[2].c_str(), nullptr, 10);
    const auto length = std::strtoull(f[3].c_str(), nullptr, 10);
    EXPECT_NEAR(price.of(length), number(f[4]), 1e-15) << "line " << line_number;
  }
  EXPECT_GE(vectors->size(), 10u);
}

}  // namespace
}  // namespace erails::qbox
