// The C++ schedule against testdata/schedule_vectors.txt, the file the Python schedule also reads.
#include <gtest/gtest.h>

#include <cstdlib>

#include "common/tests/vector_file.h"
#include "rails/schedule.h"

namespace erails::rails {
namespace {

TEST(ScheduleVectors, EveryVectorMatches) {
  const auto vectors = test::read_vector_file(ERAILS_SCHEDULE_VECTORS);
  ASSERT_TRUE(vectors) << "cannot open " << ERAILS_SCHEDULE_VECTORS;
  for (const auto& vector : *vectors) {
    // Not structured bindings: a lambda below captures them, which C++17 does not allow.
    const int line_number = vector.number;
    const auto& f = vector.fields;
    ASSERT_GE(f.size(), 11u) << "line " << line_number;
    const int n = std::stoi(f[0]);
    ASSERT_EQ(f.size(), 11u + n) << "line " << line_number;
    auto d = [&](int i) { return std::strtod(f[i].c_str(), nullptr); };
    auto s = Schedule::create({n, d(1), std::stoi(f[2]), d(3), d(4)});
    ASSERT_TRUE(s.ok()) << "line " << line_number << ": " << s.error().message;
    const Schedule& sch = s.value();
    const double t = d(5);
    EXPECT_EQ(sch.frame(t), std::stoll(f[6])) << "line " << line_number;
    EXPECT_EQ(sch.window_start(t), std::stoi(f[7])) << "line " << line_number;
    EXPECT_EQ(sch.read_set(t).mask(), std::stoull(f[8])) << "line " << line_number;
    EXPECT_EQ(sch.apply_set(t).mask(), std::stoull(f[9])) << "line " << line_number;
    EXPECT_EQ(sch.next_switch(t), d(10)) << "line " << line_number;
    for (int c = 0; c < n; ++c)
      EXPECT_EQ(sch.next_phase_change(c, t), d(11 + c)) << "line " << line_number << " color " << c;
  }
  EXPECT_GT(vectors->size(), 1000u);
}

}  // namespace
}  // namespace erails::rails
