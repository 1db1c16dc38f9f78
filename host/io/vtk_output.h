// VTK XML output for ParaView and other VTK readers: one PolyData file (.vtp, ASCII) per saved
// frame and a .pvd collection that makes them a time series (`vkphys run --vtk`).
//
// A frame holds, in one piece:
//   * particles as points with a vertex cell each;
//   * rigid bodies as surface meshes in world coordinates (boxes 6 quads; spheres and capsules
//     as latitude-longitude meshes of 8 rings x 12 segments, capsules with a cylinder between
//     their hemispheres; scene planes as a 20 m square around the point nearest the origin);
//     static "world" bodies without a shape have no mesh;
//   * joints as line cells from the world anchor on body a to the one on body b.
// Point data on every point: "id" (particle, scene body or joint index), "kind" (0 particle,
// 1 rigid-body surface, 2 joint anchor, 3 plane), "radius" (particles; 0 elsewhere), "velocity"
// (the particle's or body's linear velocity), "angular_velocity" (bodies; 0 elsewhere).
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "host/sim/backend.h"
#include "host/sim/scene.h"

namespace vkphys::io {

// The frame as .vtp text.
std::string vtp_frame(const Scene& scene, const WorldState& state);

// The .pvd collection: each (time [s], file name relative to the .pvd) as one time step.
std::string pvd_collection(const std::vector<std::pair<double, std::string>>& frames);

}  // namespace vkphys::io
