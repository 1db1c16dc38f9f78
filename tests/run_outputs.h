// Shared by the tests that compare `vkphys run` folders (test_cli_resume.cpp,
// test_gpu_faults.cpp): every output file of a run, to compare two runs bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace vkphys::test {

inline std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// metrics.csv with its step_ms column (the host's wall-clock time per step) emptied.
inline std::string metrics_without_times(const std::string& csv) {
  std::istringstream in(csv);
  std::string out, line;
  std::size_t column = 0;
  for (bool header = true; std::getline(in, line); header = false) {
    std::vector<std::string> cells;
    std::stringstream cs(line);
    for (std::string c; std::getline(cs, c, ',');) cells.push_back(c);
    if (header) {
      column = static_cast<std::size_t>(std::find(cells.begin(), cells.end(), "step_ms") -
                                        cells.begin());
    } else if (column < cells.size()) {
      cells[column].clear();
    }
    for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
    out += "\n";
  }
  return out;
}

// Every output of a run folder (frames, VTK frames, the .pvd series, metrics without step_ms) by
// its path in the folder; the checkpoint and the plan are not outputs.
inline std::map<std::string, std::string> outputs(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  for (const std::filesystem::directory_entry& e :
       std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string name = std::filesystem::relative(e.path(), dir).string();
    if (name == "checkpoint.snapshot" || name == "run.json") continue;
    const std::string bytes = read_file(e.path());
    files[name] = name == "metrics.csv" ? metrics_without_times(bytes) : bytes;
  }
  return files;
}

// The names present in one map and not the other, or the first file whose bytes differ.
inline ::testing::AssertionResult same_outputs(const std::map<std::string, std::string>& a,
                                               const std::map<std::string, std::string>& b) {
  for (const auto& [name, bytes] : a) {
    const auto it = b.find(name);
    if (it == b.end()) return ::testing::AssertionFailure() << name << " only in the first run";
    if (it->second != bytes) return ::testing::AssertionFailure() << name << " differs";
  }
  for (const auto& [name, bytes] : b) {
    if (!a.count(name)) return ::testing::AssertionFailure() << name << " only in the second run";
  }
  return ::testing::AssertionSuccess() << a.size() << " files equal";
}

}  // namespace vkphys::test
