// VTK XML output for ParaView and other VTK readers: one PolyData file (.vtp, ASCII) per saved
// frame and a .pvd collection that makes them a time series (`vkphys run --vtk`).
//
// A frame holds, in one piece, host/io/surface_mesh.h's mesh with particles as points: a vertex
// cell per particle, the scene's triangles (a cloth, a soft body's outside) as polygons over
// those particles' points (so a cloth's polygons carry its vertices' velocities), the surfaces of
// rigid bodies and planes as polygons, joints as lines. The triangles are the first polygons.
// Point data on every point: "id" (particle, scene body, plane or joint index), "kind" (0
// particle, 1 rigid-body surface, 2 joint anchor, 3 plane), "radius" (particles; 0 elsewhere),
// "velocity" (the particle's or body's linear velocity), "angular_velocity" (bodies; 0 elsewhere).
//
// The contacts of a step (`vkphys run --vtk-contacts`), one PolyData file per saved frame: a
// vertex per contact point, rigid manifold points first (in the step's pair order), then particle
// contacts (particle-particle and particle-plane, in the step's stored order). Point data:
// "normal" (unit, from body_a to body_b), "normal_impulse" (lambda_n [N s], the solver's
// accumulated normal impulse of the step, >= 0), "gap" [m] (< 0: penetrating), "body_a" and
// "body_b" (world indices: the scene's bodies 0..B-1, then its planes B..B+P-1, then its particles
// from B+P on). A manifold point is where the narrowphase put it; a particle contact's point is
// the middle of the gap along the normal from the particle at body_b, at the frame's position
// (the end of the step, not where the contact was found at its start).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "host/sim/backend.h"
#include "vkphys/scene.h"

namespace vkphys::io {

// The frame as .vtp text.
std::string vtp_frame(const Scene& scene, const WorldState& state);

// The contacts `trace` holds (a step traced by Backend::step) as .vtp text; `state`: the state
// after that step, for the particle contacts' points.
std::string vtp_contacts(const WorldState& state, const StepTrace& trace);

// One dataset of a .pvd collection: a file name relative to the .pvd, its time [s] and its part
// (datasets of one time with different parts are shown together: the frame is part 0, its
// contacts part 1).
struct PvdDataSet {
  double time = 0.0;
  std::string file;
  unsigned part = 0;
};
std::string pvd_collection(const std::vector<PvdDataSet>& datasets);

}  // namespace vkphys::io
