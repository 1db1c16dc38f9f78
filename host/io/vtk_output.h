// VTK XML output for ParaView and other VTK readers: one PolyData file (.vtp, ASCII) per saved
// frame and a .pvd collection that makes them a time series (`vkphys run --vtk`).
//
// A frame holds, in one piece, host/io/surface_mesh.h's mesh with particles as points: a vertex
// cell per particle, the surfaces of rigid bodies and planes as polygons, joints as lines.
// Point data on every point: "id" (particle, scene body, plane or joint index), "kind" (0
// particle, 1 rigid-body surface, 2 joint anchor, 3 plane), "radius" (particles; 0 elsewhere),
// "velocity" (the particle's or body's linear velocity), "angular_velocity" (bodies; 0 elsewhere).
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "host/sim/backend.h"
#include "vkphys/scene.h"

namespace vkphys::io {

// The frame as .vtp text.
std::string vtp_frame(const Scene& scene, const WorldState& state);

// The .pvd collection: each (time [s], file name relative to the .pvd) as one time step.
std::string pvd_collection(const std::vector<std::pair<double, std::string>>& frames);

}  // namespace vkphys::io
