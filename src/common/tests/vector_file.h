// The test-vector files that a C++ and a Python implementation both check (src/rails/testdata,
// src/qbox/testdata): one vector per line, its fields separated by blanks; empty lines and lines
// starting with '#' are not vectors.
#pragma once

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace erails::test {

struct VectorLine {
  int number = 0;  // in the file, from 1, for failure messages
  std::vector<std::string> fields;
};

// Every vector of the file at `path`, or nothing if it cannot be opened.
inline std::optional<std::vector<VectorLine>> read_vector_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::vector<VectorLine> vectors;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    VectorLine vector{number, {}};
    std::istringstream fields(line);
    for (std::string field; fields >> field;) vector.fields.push_back(field);
    vectors.push_back(std::move(vector));
  }
  return vectors;
}

}  // namespace erails::test
