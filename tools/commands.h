#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vkphys::tools {

struct Options {
  std::string device;
  bool validation = false;
  std::string scene;
  std::string backend = "gpu";
  std::uint32_t steps = 300;
  std::string out = "out/run";
  std::uint32_t every = 10;
  double pos_tol = 1e-3;
  double vel_tol = 1e-2;
  std::string workload = "particles";
  std::vector<std::uint32_t> sizes{1000, 10000, 100000};
};

int cmd_info(const Options& opt);
int cmd_run(const Options& opt);
int cmd_compare(const Options& opt);
int cmd_bench(const Options& opt);

}  // namespace vkphys::tools
