// Run outputs: per-frame states (CSV) and one metrics table per run, for every body kind.
//
// Every file is written whole under a temporary name (NAME.partial) and then renamed, so a run
// killed mid-write leaves no truncated CSV or VTK file under its final name (write_text_file).
//
//   DIR/frames/frame_NNNNNN.csv   id,kind,shape,x,y,z,qx,qy,qz,qw,vx,vy,vz,wx,wy,wz,radius,inv_mass
//       one row per scene body (kind "body"; the scene's planes are not rows; radius 0), then
//       one per particle (kind "particle", shape "sphere", q = identity, w = 0); q body to world
//       (x, y, z, w), w the world angular velocity; id counts within its kind
//   DIR/metrics.csv               step,time,kinetic,kinetic_linear,kinetic_rotational,potential,
//                                 energy,px,py,pz,lx,ly,lz,max_speed,max_angular_speed,
//                                 max_penetration,pairs,manifolds,reused_manifolds,points,
//                                 particle_contacts,rows,colors,overflow_units,regrows,step_ms,
//                                 max_rigid_penetration,mean_rigid_penetration,max_joint_error,
//                                 mean_joint_error,max_spring_strain,mean_spring_strain,
//                                 cg_iterations,cg_residual,cg_unmet,ode_steps,ode_redos,
//                                 ode_error,solver_residual,solver_residual_angular
//   DIR/vtk/frame_NNNNNN.vtp, DIR/run.pvd   with `vtk`: each frame also as VTK XML PolyData and
//       the frames as a ParaView time series (host/io/vtk_output.h)
//   DIR/vtk/contacts_NNNNNN.vtp   with `vtk_contacts` too: the contacts of each frame's step
//       (part 1 of the series at the frame's time), for each frame the step's trace came with
//   DIR/checkpoint.snapshot, DIR/run.json   with `vkphys run --checkpoint-every N`: the last
//       checkpoint (vkphys/snapshot.h) and the run's plan, which `vkphys resume DIR` continues
//       (tools/run_plan.h)
//
// Energies in J, momentum in kg m/s, angular momentum about the origin in kg m^2/s
// (host/sim/metrics.h); pairs .. regrows as in StepStats (host/sim/backend.h); step_ms is the
// host-measured time of the step (backend step only, not the read-back); the rigid penetration,
// joint errors [m] and spring strains are ConstraintErrors (host/sim/metrics.h; 0 at step 0);
// cg_iterations .. ode_error as in StepStats (0 where the integrator has none).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "host/io/vtk_output.h"
#include "host/sim/backend.h"
#include "host/sim/metrics.h"
#include "vkphys/files.h"     // Durability
#include "vkphys/recorder.h"  // kCheckpointFile, kRunPlanFile, kPictureFile
#include "vkphys/scene.h"

namespace vkphys::io {

// Writes `text` to `path` (through `path`.partial and a rename, so a reader never sees a torn
// file under `path`); throws std::runtime_error naming the path if it cannot. The public
// write_file_atomic (vkphys/files.h) is this behind the API's error boundary.
void write_text_file(const std::filesystem::path& path, std::string_view text,
                     Durability durability = Durability::buffered);

// metrics.csv's first line.
extern const char* const kMetricsHeader;

class RunWriter {
 public:
  // Creates DIR and DIR/frames (and DIR/vtk with `vtk`); throws std::runtime_error naming the
  // path if it cannot, or if DIR exists and is not empty, unless `force`: then it first removes
  // the frames, VTK files and metrics an earlier run left there (nothing else). Throws
  // std::invalid_argument for an empty path. `time_step`: the scene's h, the .pvd's clock
  // (frame k is at k h). `vtk_contacts` (with `vtk`): frames with a trace also write its
  // contacts.
  RunWriter(const std::filesystem::path& dir, bool force, bool vtk = false, double time_step = 0.0,
            bool vtk_contacts = false);
  // Writes the first scene.bodies.size() bodies of `state`, then its particles; with
  // vtk_contacts and a `trace` of the step that led to `state` (an empty one at step 0: no step
  // has touched anything yet), its contacts too. A frame without a trace (one written as a run
  // stops on a failed step) has no contacts file.
  void frame(std::uint64_t step, const Scene& scene, const WorldState& state,
             const StepTrace* trace = nullptr);
  void metrics(std::uint64_t step, double time, const Metrics& m, const StepStats& stats,
               double step_ms, const ConstraintErrors& errors);

  // Takes up the run in DIR again at `step` (its last checkpoint's; host/io/run_resume.cpp):
  // metrics.csv keeps its header and the rows of steps 0..step, and loses what a killed run
  // wrote after them (later rows, a partial last line); frames and VTK frames of later steps and
  // any *.partial file are removed (the resumed run writes them again), and the .pvd series
  // takes up the VTK frames up to `step`. Throws std::runtime_error naming the file when
  // metrics.csv is missing, has another header or lacks a row up to `step`.
  static RunWriter resume(const std::filesystem::path& dir, std::uint64_t step, bool vtk,
                          double time_step, bool vtk_contacts);

 private:
  RunWriter() = default;

  std::filesystem::path dir_;
  std::ofstream metrics_;
  bool vtk_ = false, vtk_contacts_ = false;
  double time_step_ = 0.0;
  std::vector<PvdDataSet> vtk_frames_;  // run.pvd's datasets
};

}  // namespace vkphys::io
