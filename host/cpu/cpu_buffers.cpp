// The CPU backend's working arrays (host/cpu/cpu_buffers.h).
#include "host/cpu/cpu_buffers.h"

#include <algorithm>

namespace vkphys {

void CpuBuffers::load(const WorldArrays& world, const kern::WorldParams& params, bool implicit) {
  const std::size_t n = world.bodies(), r = world.rigid, p = world.particles();
  start.assign(n, glm::vec4(0.0f));
  // Claims and marks, then the joints' colours from load (kernels/world_layout.h).
  color.assign(2 * n, 0u);
  color.insert(color.end(), world.joint_colors.begin(), world.joint_colors.end());
  range.assign(n, glm::uvec2(0u));
  omega_start.assign(r, glm::vec4(0.0f));
  iinv.assign(3 * r, glm::vec4(0.0f));
  aabb.assign(2 * r, glm::vec4(0.0f));
  vel_pos.assign(2 * r, glm::vec4(0.0f));
  sweep_ref.assign(n + r, glm::vec4(0.0f));
  tree_blocks.assign(VKPHYS_TREE_NODE_STRIDE * world.tree_nodes.size(), glm::vec4(0.0f));
  joint_frames = laid_out_joint_frames(world);
  joint_rows.assign(4 * kern::joint_row_slots(world.joints(), world.multi_row_joints),
                    glm::vec4(0.0f));
  joint_lambda.assign(2 * world.joints(), glm::vec4(0.0f));
  ode_state.assign(VKPHYS_ODE_STRIDE * p, glm::vec4(0.0f));
  ode_deriv.assign(p, glm::vec4(0.0f));
  ode_touched.assign(p, 0u);
  cg_vec.assign(implicit ? VKPHYS_CG_STRIDE * p : 0u, glm::vec4(0.0f));
  cg_dv.assign(implicit ? p : 0u, glm::vec4(0.0f));
  cg_blocks.assign(implicit ? 3u * world.fspring_params.size() : 0u, glm::vec4(0.0f));
  cg_partial.assign(
      implicit ? kern::cg_partials(world.particles(), params.lines.y + params.lines.z) : 0u,
      glm::vec4(0.0f));
  cg_scalar.assign(implicit ? 4u : 0u, glm::vec4(0.0f));
  cg_factor.assign(world.cg_lines.empty() ? 0u : VKPHYS_LINE_STRIDE * p, glm::vec4(0.0f));
  grid_keys.assign(p, 0u);
  grid_values.assign(p, 0u);
  cell_start.assign(params.kinds.w, VKPHYS_EMPTY_CELL);
  cell_end.assign(params.kinds.w, 0u);
  pc_offsets.assign(p + 1, 0u);
  prev_pc_offsets.assign(p + 1, 0u);
  prev_info.clear();
  prev_lambda.clear();
  prev_frame.clear();
  prev_pc_other.clear();
  prev_pc_lambda.clear();
}

void CpuBuffers::size_lists(const WorldArrays& world, const kern::WorldParams& params,
                            const Capacities& cap, bool ordered) {
  const std::size_t pairs = cap.pairs, contacts = cap.contacts;
  const std::size_t units = params.coloring.w;
  pair_info.assign(pairs, glm::uvec4(0u));
  pair_normal.assign(pairs, glm::vec4(0.0f));
  point_geom.assign(4 * pairs, glm::vec4(0.0f));
  point_lambda.assign(4 * pairs, glm::vec4(0.0f));
  point_prep.assign(4 * VKPHYS_POINT_PREP * pairs, glm::vec4(0.0f));
  pair_frame.assign(2 * pairs, glm::vec4(0.0f));
  point_ref.assign(8 * pairs, glm::vec4(0.0f));
  prev_info.resize(pairs, glm::uvec4(0u));
  prev_lambda.resize(12 * pairs, glm::vec4(0.0f));
  prev_frame.resize(2 * pairs, glm::vec4(0.0f));
  hash.assign(params.counts.w, VKPHYS_EMPTY_SLOT);
  pc_bodies.assign(contacts, glm::uvec2(0u));
  pc_geom.assign(contacts, glm::vec4(0.0f));
  pc_target.assign(contacts, glm::vec4(0.0f));
  pc_lambda.assign(contacts, glm::vec4(0.0f));
  pc_origin.assign(contacts, 0u);
  // The gather into colour order (kernels/world_coloring.inl): the coloured scheme only.
  pc_copy_bodies.assign(ordered ? contacts : 0, glm::uvec2(0u));
  pc_copy_lambda.assign(ordered ? contacts : 0, glm::vec4(0.0f));
  prev_pc_other.resize(contacts, 0u);
  prev_pc_lambda.resize(contacts, glm::vec4(0.0f));
  unit_color.assign(units, 0u);
  unit_dv.assign(4 * (world.joints() + pairs) + 2 * contacts, glm::vec4(0.0f));
  const std::size_t sort = std::max<std::size_t>(world.bodies(), 2 * units);
  keys.assign(sort, 0u);
  values.assign(sort, 0u);
  offsets.assign(world.bodies() + 1, 0u);
  walk.assign(world.bodies() + 1, 0u);
  walk_ranges.assign(world.bodies(), glm::uvec4(0u));
  sweep_yz.assign(world.bodies(), glm::vec4(0.0f));
}

kern::WorldEnv CpuBuffers::env(const kern::WorldParams& params, WorldArrays& world) {
  kern::WorldEnv e;
  e.params = params;
  e.body_pos = world.pos.data();
  e.body_vel = world.vel.data();
  e.body_start = start.data();
  e.body_info = world.info.data();
  e.body_color = color.data();
  e.body_range = range.data();
  e.rigid_rot = world.rot.data();
  e.rigid_omega = world.omega.data();
  e.rigid_omega_start = omega_start.data();
  e.rigid_iinv = iinv.data();
  e.rigid_inertia = world.inertia.data();
  e.rigid_dims = world.dims.data();
  e.rigid_aabb = aabb.data();
  e.rigid_vel_pos = vel_pos.data();
  e.sweep_ref = sweep_ref.data();
  e.tree_ranges = world.tree_ranges.data();
  e.tree_nodes = world.tree_nodes.data();
  e.tree_blocks = tree_blocks.data();
  e.sort_keys = keys.data();
  e.sort_values = values.data();
  e.pair_offsets = offsets.data();
  e.sweep_walk = walk.data();
  e.sweep_ranges = walk_ranges.data();
  e.sweep_yz = sweep_yz.data();
  e.pair_info = pair_info.data();
  e.pair_normal = pair_normal.data();
  e.point_geom = point_geom.data();
  e.point_lambda = point_lambda.data();
  e.point_prep = point_prep.data();
  e.prev_pair_info = prev_info.data();
  e.prev_point_lambda = prev_lambda.data();
  e.pair_frame = pair_frame.data();
  e.point_ref = point_ref.data();
  e.prev_pair_frame = prev_frame.data();
  e.prev_hash = hash.data();
  e.joint_info = world.joint_info.data();
  e.joint_frames = joint_frames.data();
  e.joint_rows = joint_rows.data();
  e.joint_lambda = joint_lambda.data();
  e.unit_color = unit_color.data();
  e.unit_dv = unit_dv.data();
  e.grid_keys = grid_keys.data();
  e.grid_values = grid_values.data();
  e.cell_start = cell_start.data();
  e.cell_end = cell_end.data();
  e.pcontact_offsets = pc_offsets.data();
  e.pcontact_bodies = pc_bodies.data();
  e.pcontact_geom = pc_geom.data();
  e.pcontact_target = pc_target.data();
  e.pcontact_lambda = pc_lambda.data();
  e.pcontact_origin = pc_origin.data();
  e.pcontact_copy_bodies = pc_copy_bodies.data();
  e.pcontact_copy_lambda = pc_copy_lambda.data();
  e.prev_pcontact_offsets = prev_pc_offsets.data();
  e.prev_pcontact_other = prev_pc_other.data();
  e.prev_pcontact_lambda = prev_pc_lambda.data();
  e.rigid_force = world.force.data();
  e.rigid_torque = world.torque.data();
  e.drive_paths = drive_paths.data();
  e.drive_impulses = drive_impulses.data();
  e.fspring_ends = world.fspring_ends.data();
  e.fspring_params = world.fspring_params.data();
  e.fspring_offsets = world.fspring_offsets.data();
  e.fspring_incident = world.fspring_incident.data();
  e.wind_tris = world.wind_tris.data();
  e.wind_offsets = world.wind_offsets.data();
  e.wind_incident = world.wind_incident.data();
  e.partner_offsets = world.partner_offsets.data();
  e.partner_list = world.partner_list.data();
  e.ode_state = ode_state.data();
  e.ode_deriv = ode_deriv.data();
  e.ode_touched = ode_touched.data();
  e.cg_vec = cg_vec.data();
  e.cg_dv = cg_dv.data();
  e.cg_blocks = cg_blocks.data();
  e.cg_partial = cg_partial.data();
  e.cg_scalar = cg_scalar.data();
  e.cg_lines = world.cg_lines.data();
  e.cg_factor = cg_factor.data();
  e.params.drive.z = static_cast<std::uint32_t>(drive_impulses.size() / 2);
  return e;
}

}  // namespace vkphys
