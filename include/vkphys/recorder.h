/// \file
/// vkphys::Recorder: a World's run written to a folder as `vkphys run` writes it, frames as CSV
/// (and VTK XML for ParaView) and one metrics table, so that the tools that read a run folder
/// (`vkphys plot`, ParaView, the tests' readers) read a library user's run too.
///
///   DIR/frames/frame_NNNNNN.csv   one row per scene body, then one per particle:
///       id,kind,shape,x,y,z,qx,qy,qz,qw,vx,vy,vz,wx,wy,wz,radius,inv_mass
///   DIR/metrics.csv               one row per metrics() call: the step, its time, Metrics,
///       Contacts, StepStatistics, the step's wall time and ConstraintErrors
///   DIR/vtk/frame_NNNNNN.vtp, DIR/run.pvd   with RecorderOptions::vtk
///   DIR/vtk/contacts_NNNNNN.vtp   with RecorderOptions::vtk_contacts, for a World that records
///       contacts (WorldOptions::record_contacts)
///
/// docs/api.md lists the columns. Every file is written whole under a temporary name and then
/// renamed, so a process killed mid-write leaves no torn file under its final name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include "vkphys/export.h"
#include "vkphys/world.h"

namespace vkphys {

/// What `vkphys run` keeps in a run folder beside a Recorder's files: its last checkpoint
/// (Snapshot::write), the run's plan and the picture of the last state (`--png`). A Recorder
/// made with RecorderOptions::replace removes them with the earlier run's frames.
inline constexpr const char* kCheckpointFile = "checkpoint.snapshot";
inline constexpr const char* kRunPlanFile = "run.json";  ///< see kCheckpointFile
inline constexpr const char* kPictureFile = "last.png";  ///< see kCheckpointFile

struct RecorderOptions {
  /// A folder that is not empty is refused, unless `replace`: then the frames, VTK files,
  /// metrics and the files kCheckpointFile names that an earlier run left there are removed
  /// first (nothing else).
  bool replace = false;
  bool vtk = false;  ///< also each frame as VTK XML PolyData, and the frames as a .pvd series
  /// With `vtk`: each frame's contacts too (the World's last step's; its WorldOptions need
  /// record_contacts).
  bool vtk_contacts = false;
};

class VKPHYS_API Recorder {
 public:
  /// Creates `dir` and its subfolders for a run of `world` (its scene's time step is the .pvd's
  /// clock). Throws Error naming the folder if it cannot, if it holds files (see
  /// RecorderOptions::replace), or for vtk_contacts on a World without record_contacts.
  Recorder(const std::filesystem::path& dir, const World& world,
           const RecorderOptions& options = {});
  /// Takes up the run in `dir` again at world.steps() (a World loaded from the run's
  /// checkpoint): metrics.csv keeps its rows up to that step and loses later ones, frames of
  /// later steps and any torn file are removed. Throws Error naming the file when metrics.csv is
  /// missing, has another header or lacks a row up to that step.
  static Recorder resume(const std::filesystem::path& dir, const World& world,
                         const RecorderOptions& options = {});
  ~Recorder();
  Recorder(Recorder&&) noexcept;
  Recorder& operator=(Recorder&&) noexcept;

  /// Writes the frame of the state `world` holds (World::state, named by the step it is of:
  /// after a NonFiniteError, the last finite step); with vtk_contacts, the contacts of the step
  /// that led to it (none for a state no step of this World made, e.g. after a failed step).
  void frame(const World& world);
  /// Appends metrics.csv's row for the state `world` holds: its metrics, contacts, statistics,
  /// `step_ms` (the step's time, measured by the caller) and constraint errors.
  void metrics(const World& world, double step_ms);

 private:
  struct Impl;
  explicit Recorder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vkphys
