// Run outputs: per-frame particle states (CSV) and one metrics table per run.
//
//   DIR/frames/frame_NNNNNN.csv   id,x,y,z,vx,vy,vz,radius,inv_mass
//   DIR/metrics.csv               step,time,kinetic,potential,energy,px,py,pz,
//                                 max_penetration,max_speed,contacts,regrows,step_ms
#pragma once

#include <filesystem>
#include <fstream>

#include "host/sim/metrics.h"
#include "host/sim/scene.h"
#include "host/sim/stages.h"

namespace vkphys::io {

// Creates DIR and DIR/frames and opens DIR/metrics.csv with its header line; throws
// std::runtime_error naming the path if it cannot. Shared by the particle and rigid writers.
std::ofstream open_run_folder(const std::filesystem::path& dir, const char* metrics_header);

class RunWriter {
 public:
  // Creates DIR and DIR/frames; throws std::runtime_error naming the path if it cannot.
  explicit RunWriter(const std::filesystem::path& dir);
  void frame(std::uint64_t step, const Particles& state);
  void metrics(std::uint64_t step, double time, const Metrics& m, const StepStats& stats,
               double step_ms);

 private:
  std::filesystem::path dir_;
  std::ofstream metrics_;
};

}  // namespace vkphys::io
