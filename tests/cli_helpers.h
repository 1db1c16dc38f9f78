// Shared by the tests that run the `vkphys` command line (test_cli*.cpp): runs it with its
// output captured, and names the shipped scenes.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>

namespace vkphys::test {

struct CliResult {
  int code = -1;
  std::string output;  // stdout and stderr
};

// Runs `vkphys ARGS` (through the shell) and waits for it.
inline CliResult vkphys_cli(const std::string& args) {
  namespace fs = std::filesystem;
  const fs::path log =
      fs::temp_directory_path() / ("vkphys_test_cli_" + std::to_string(::getpid()) + ".log");
  const std::string command =
      std::string(VKPHYS_TOOL) + " " + args + " > " + log.string() + " 2>&1";
  const int status = std::system(command.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(log);
  r.output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  fs::remove(log);
  return r;
}

// Expects `vkphys ARGS` to fail with every one of `parts` in its output.
inline void expect_cli_refused(const std::string& args, std::initializer_list<std::string> parts) {
  SCOPED_TRACE(args);
  const CliResult r = vkphys_cli(args);
  EXPECT_NE(r.code, 0) << r.output;
  for (const std::string& part : parts) {
    EXPECT_NE(r.output.find(part), std::string::npos)
        << "missing \"" << part << "\" in: " << r.output;
  }
}

inline std::string scene_file(const char* name) {
  return std::string(VKPHYS_SOURCE_DIR) + "/scenes/" + name;
}

}  // namespace vkphys::test
