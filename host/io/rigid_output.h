// Run outputs for rigid-body scenes: per-frame body states (CSV) and one metrics table per run.
// The particle outputs (host/io/output.h) are separate and unchanged.
//
//   DIR/frames/frame_NNNNNN.csv   id,shape,x,y,z,qx,qy,qz,qw,vx,vy,vz,wx,wy,wz
//                                 one row per scene body (the scene's planes are not rows);
//                                 q body to world (x, y, z, w), w the world angular velocity
//   DIR/metrics.csv               step,time,kinetic,kinetic_linear,kinetic_rotational,potential,
//                                 energy,px,py,pz,lx,ly,lz,max_speed,max_angular_speed,pairs,
//                                 manifolds,points,rows,colors,overflow_units,regrows,step_ms
//
// Energies in J, momentum in kg m/s, angular momentum about the origin in kg m^2/s
// (host/sim/rigid_metrics.h); pairs .. regrows as in RigidStats (host/sim/rigid_backend.h);
// step_ms is the host-measured time of the step (backend step only, not the read-back).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "host/sim/rigid_backend.h"
#include "host/sim/rigid_metrics.h"
#include "host/sim/scene.h"

namespace vkphys::io {

class RigidRunWriter {
 public:
  // Creates DIR and DIR/frames; throws std::runtime_error naming the path if it cannot.
  explicit RigidRunWriter(const std::filesystem::path& dir);
  // Writes the first scene.bodies.size() bodies of `state`.
  void frame(std::uint64_t step, const Scene& scene, const RigidState& state);
  void metrics(std::uint64_t step, double time, const RigidMetrics& m, const RigidStats& stats,
               double step_ms);

 private:
  std::filesystem::path dir_;
  std::ofstream metrics_;
};

}  // namespace vkphys::io
