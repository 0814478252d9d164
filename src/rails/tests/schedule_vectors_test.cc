// The C++ schedule against testdata/schedule_vectors.txt, the file the Python schedule also reads.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "rails/schedule.h"

namespace erails::rails {
namespace {

TEST(ScheduleVectors, EveryVectorMatches) {
  std::ifstream in(ERAILS_SCHEDULE_VECTORS);
  ASSERT_TRUE(in) << "cannot open " << ERAILS_SCHEDULE_VECTORS;
  std::string line;
  int line_number = 0;
  int checked = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string x; fields >> x;) f.push_back(x);
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
    ++checked;
  }
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace erails::rails
