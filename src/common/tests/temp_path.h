// Files a test writes: ctest runs every gtest case as a process of its own, side by side with the
// others and with other checkouts' runs, so a fixed name under the temp directory is shared by
// whichever cases run at once. A name of the running case and the process is shared by none.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace erails::test {

// <temp dir>/erails-<suite>.<case>.<pid>-<name>, with '/' of parameterized names made '_'.
inline std::string unique_temp_path(const std::string& name) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string path = std::string("erails-") + test->test_suite_name() + "." + test->name() + "." +
                     std::to_string(::getpid()) + "-" + name;
  for (char& c : path) {
    if (c == '/') c = '_';
  }
  return ::testing::TempDir() + path;
}

}  // namespace erails::test
