// The CPU environment for the single-source stage functions in kernels/*.inl.
//
// The shaders see the particle buffers as global std430 arrays; here the same names are member
// pointers and the .inl files are included into the struct body, so `pos_radius[j]` in the
// kernel source means the same thing in both languages. The CPU backend points the members at
// its std::vectors and calls the stage functions in loops.
#pragma once

#include "kernels/contact_row.h"
#include "kernels/grid.h"
#include "kernels/integrate.h"
#include "kernels/layout.h"
#include "kernels/narrowphase.h"
#include "kernels/spook.h"

namespace vkphys::kern {

struct ParticleEnv {
  StepParams params{};
  vec4* pos_radius = nullptr;
  vec4* vel_invmass = nullptr;  // solve: the iteration's input velocities
  vec4* vel_out = nullptr;      // solve: the iteration's output velocities
  const vec4* vel_start = nullptr;
  const uint* material = nullptr;
  const uint* sort_keys = nullptr;
  const uint* sort_values = nullptr;
  uint* cell_start = nullptr;
  uint* cell_end = nullptr;
  const uint* contact_offset = nullptr;
  uvec2* contact_bodies = nullptr;
  vec4* contact_geom = nullptr;
  vec4* contact_target = nullptr;
  vec4* contact_lambda = nullptr;
  const uint* prev_contact_offset = nullptr;
  const uvec2* prev_contact_bodies = nullptr;
  const vec4* prev_contact_lambda = nullptr;

#include "kernels/cell_range.inl"
#include "kernels/contacts_find.inl"
#include "kernels/contacts_prepare.inl"
#include "kernels/contacts_solve.inl"
};

}  // namespace vkphys::kern
