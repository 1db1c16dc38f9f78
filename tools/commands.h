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
  std::uint32_t size = 0;  // export-scene: count/base parameter, 0 = the builder's default
  std::string export_out;  // export-scene: output file, empty = stdout
};

int cmd_info(const Options& opt);
int cmd_run(const Options& opt);
int cmd_compare(const Options& opt);
int cmd_bench(const Options& opt);

// `vkphys export-scene NAME [--size N] [--out FILE]` (tools/export_scene.cpp): writes a
// host/sim/rigid_scenes.h scene as scene JSON. NAME is one of export_scene_names().
int cmd_export_scene(const Options& opt);
std::vector<std::string> export_scene_names();

}  // namespace vkphys::tools
