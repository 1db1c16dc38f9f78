#include "host/gpu/world_buffers.h"

#include <algorithm>
#include <cstddef>
#include <span>

#include "kernels/implicit.h"
#include "kernels/stages.h"

namespace vkphys {
namespace {

vk::Buffer storage(vk::Context& ctx, VkDeviceSize bytes, const char* what) {
  return vk::storage_buffer(ctx, bytes, what, "use fewer bodies or particles, or the CPU backend");
}

}  // namespace

void copy_region(VkCommandBuffer cb, const vk::Buffer& src, const vk::Buffer& dst,
                 VkDeviceSize src_offset, VkDeviceSize dst_offset, VkDeviceSize bytes) {
  if (!bytes) return;
  VkBufferCopy region{src_offset, dst_offset, bytes};
  vkCmdCopyBuffer(cb, src.handle(), dst.handle(), 1, &region);
}

void WorldBuffers::size_world(vk::Context& ctx, const Scene& scene, const WorldArrays& world,
                              const kern::WorldParams& params) {
  const VkDeviceSize v4 = sizeof(glm::vec4), u4 = sizeof(glm::uvec4), u1 = sizeof(std::uint32_t);
  const VkDeviceSize n = world.bodies(), r = world.rigid, p = world.particles(), j = world.joints();
  buf[b_params] =
      vk::Buffer(ctx, sizeof(kern::WorldParams), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, false);
  buf[b_counters] = vk::Buffer(ctx, sizeof(kern::WorldCounters), 0, false);
  for (std::uint32_t k = 0; k < kSlots; ++k) {
    params_host[k] = vk::Buffer(ctx, sizeof(kern::WorldParams), 0, true);
    counters_host[k] = vk::Buffer(ctx, sizeof(kern::WorldCounters), 0, true);
    stamps_host[k] = vk::Buffer(ctx, (kStageCount + 1) * sizeof(std::uint64_t), 0, true);
  }
  dispatch_args =
      vk::Buffer(ctx, sizeof(kern::WorldCounters), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, false);
  buf[b_body_pos] = storage(ctx, n * v4, "body positions");
  buf[b_body_vel] = storage(ctx, n * v4, "body velocities");
  buf[b_body_start] = storage(ctx, n * v4, "step-start velocities");
  buf[b_body_info] = storage(ctx, n * u4, "body shapes and materials");
  buf[b_body_color] = storage(ctx, (3 * n + j) * u1, "colouring claims and joint colours");
  buf[b_body_range] = storage(ctx, n * sizeof(glm::uvec2), "body unit ranges");
  buf[b_rigid_rot] = storage(ctx, r * v4, "rigid-body orientations");
  buf[b_rigid_omega] = storage(ctx, r * v4, "rigid-body angular velocities");
  buf[b_rigid_omega_start] = storage(ctx, r * v4, "step-start angular velocities");
  buf[b_rigid_iinv] = storage(ctx, 3 * r * v4, "world inverse inertia");
  buf[b_rigid_inertia] = storage(ctx, r * v4, "rigid-body inertia");
  buf[b_rigid_dims] = storage(ctx, r * v4, "rigid-body sizes");
  buf[b_rigid_aabb] = storage(ctx, 2 * r * v4, "bounding boxes");
  buf[b_rigid_vel_pos] = storage(ctx, 2 * r * v4, "split-impulse velocities");
  buf[b_sweep_ref] = storage(ctx, (n + r) * v4, "solver residual velocities");
  const bool gather = jacobi_gathers(scene.settings.solver, world);
  buf[b_body_vel_next] = storage(ctx, gather ? n * v4 : 0u, "Jacobi gather velocities");
  const VkDeviceSize nt = world.tree_nodes.size();
  buf[b_tree_ranges] = storage(ctx, world.trees() * sizeof(glm::uvec2), "joint trees");
  buf[b_tree_nodes] = storage(ctx, nt * u4, "joint tree nodes");
  buf[b_tree_blocks] = storage(ctx, VKPHYS_TREE_NODE_STRIDE * nt * v4, "joint tree factors");
  buf[b_pair_offsets] = storage(ctx, (n + 1) * u1, "pair offsets");
  buf[b_sweep_walk] = storage(ctx, (n + 1) * u1, "sweep walk offsets");
  buf[b_sweep_ranges] = storage(ctx, n * u4, "sweep walks' parts");
  buf[b_sweep_yz] = storage(ctx, n * v4, "sweep y and z extents in sweep order");
  buf[b_joint_info] = storage(ctx, j * u4, "joint bodies");
  buf[b_joint_frames] =
      storage(ctx, VkDeviceSize{kern::joint_frame_slots(world.joints(), world.framed_joints)} * v4,
              "joint frames");
  buf[b_joint_rows] = storage(
      ctx, VkDeviceSize{kern::joint_row_slots(world.joints(), world.multi_row_joints)} * 4 * v4,
      "joint rows");
  buf[b_joint_lambda] = storage(ctx, j * 2 * v4, "joint impulses");
  buf[b_grid_keys] = storage(ctx, p * u1, "particle cell keys");
  buf[b_grid_values] = storage(ctx, p * u1, "particle cell values");
  buf[b_cell_start] = storage(ctx, VkDeviceSize{params.kinds.w} * u1, "grid cell starts");
  buf[b_cell_end] = storage(ctx, VkDeviceSize{params.kinds.w} * u1, "grid cell ends");
  buf[b_pcontact_offsets] = storage(ctx, (p + 1) * u1, "particle contact offsets");
  buf[b_prev_pcontact_offsets] = storage(ctx, (p + 1) * u1, "previous particle contact offsets");
  buf[b_rigid_force] = storage(ctx, r * v4, "applied forces");
  buf[b_rigid_torque] = storage(ctx, r * v4, "applied torques");
  const VkDeviceSize f = world.force_springs();
  buf[b_fspring_ends] = storage(ctx, f * sizeof(glm::uvec2), "force springs");
  buf[b_fspring_params] = storage(ctx, f * v4, "force spring constants");
  buf[b_fspring_offsets] = storage(ctx, (p + 1) * u1, "force spring offsets");
  buf[b_fspring_incident] = storage(ctx, 2 * f * u1, "force spring lists");
  const VkDeviceSize t = world.wind_triangles();
  buf[b_wind_tris] = storage(ctx, t * sizeof(glm::uvec4), "wind triangles");
  buf[b_wind_offsets] = storage(ctx, (p + 1) * u1, "wind triangle offsets");
  buf[b_wind_incident] = storage(ctx, 3 * t * u1, "wind triangle lists");
  buf[b_partner_offsets] =
      storage(ctx, world.partner_offsets.size() * u1, "spring partner offsets");
  buf[b_partner_list] = storage(ctx, world.partner_list.size() * u1, "spring partner lists");
  buf[b_ode_state] = storage(ctx, VKPHYS_ODE_STRIDE * p * v4, "integrator states");
  buf[b_ode_deriv] = storage(ctx, p * v4, "integrator accelerations");
  buf[b_ode_touched] = storage(ctx, p * u1, "integrator marks");
  const VkDeviceSize cg = scene.settings.solver.integrator == Integrator::implicit ? p : 0u;
  buf[b_cg_vec] = storage(ctx, VKPHYS_CG_STRIDE * cg * v4, "conjugate-gradient vectors");
  buf[b_cg_dv] = storage(ctx, cg * v4, "conjugate-gradient solutions");
  buf[b_cg_blocks] =
      storage(ctx, (cg > 0 ? 3 * f : VkDeviceSize{0}) * v4, "conjugate-gradient spring blocks");
  buf[b_cg_partial] = storage(
      ctx, kern::cg_partials(static_cast<std::uint32_t>(cg), params.lines.y + params.lines.z) * v4,
      "conjugate-gradient partial sums");
  buf[b_cg_scalar] = storage(ctx, cg > 0 ? 4 * v4 : 0u, "conjugate-gradient scalars");
  const VkDeviceSize lines = world.cg_lines.empty() ? 0u : p;
  buf[b_cg_lines] = storage(ctx, world.cg_lines.size() * u1, "conjugate-gradient lines");
  buf[b_cg_factor] =
      storage(ctx, VKPHYS_LINE_STRIDE * lines * v4, "conjugate-gradient line factors");
  // Copied in from drive_host as each step begins (host/sim/drive.h).
  const VkDeviceSize paths = VkDeviceSize{world.drive.paths()} * 4 * v4;
  const VkDeviceSize impulses = VkDeviceSize{world.drive.max_impulses_per_step()} * 2 * v4;
  buf[b_drive_paths] = storage(ctx, paths, "kinematic paths");
  buf[b_drive_impulses] = storage(ctx, impulses, "scheduled impulses");
  backup_cg = cg * v4;
  for (std::uint32_t k = 0; k < kSlots; ++k) {
    drive_host[k] = vk::Buffer(ctx, paths + impulses, 0, true);
    backup[k] = storage(ctx, (2 * n + 2 * r) * v4 + j * 2 * v4 + backup_cg, "step-start backup");
  }
  predicted = storage(ctx, (n + r) * v4, "predicted-velocity trace");
  buf[b_body_pos].upload(std::span<const glm::vec4>(world.pos));
  buf[b_body_vel].upload(std::span<const glm::vec4>(world.vel));
  buf[b_body_info].upload(std::span<const glm::uvec4>(world.info));
  buf[b_rigid_rot].upload(std::span<const glm::vec4>(world.rot));
  buf[b_rigid_omega].upload(std::span<const glm::vec4>(world.omega));
  buf[b_rigid_inertia].upload(std::span<const glm::vec4>(world.inertia));
  buf[b_rigid_dims].upload(std::span<const glm::vec4>(world.dims));
  buf[b_joint_info].upload(std::span<const glm::uvec4>(world.joint_info));
  buf[b_body_color].upload(std::span<const std::uint32_t>(world.joint_colors), 2 * n * u1);
  buf[b_joint_frames].upload(std::span<const glm::vec4>(laid_out_joint_frames(world)));
  buf[b_tree_ranges].upload(std::span<const glm::uvec2>(world.tree_ranges));
  buf[b_tree_nodes].upload(std::span<const glm::uvec4>(world.tree_nodes));
  buf[b_rigid_force].upload(std::span<const glm::vec4>(world.force));
  buf[b_rigid_torque].upload(std::span<const glm::vec4>(world.torque));
  buf[b_fspring_ends].upload(std::span<const glm::uvec2>(world.fspring_ends));
  buf[b_fspring_params].upload(std::span<const glm::vec4>(world.fspring_params));
  buf[b_fspring_offsets].upload(std::span<const std::uint32_t>(world.fspring_offsets));
  buf[b_fspring_incident].upload(std::span<const std::uint32_t>(world.fspring_incident));
  buf[b_wind_tris].upload(std::span<const glm::uvec4>(world.wind_tris));
  buf[b_wind_offsets].upload(std::span<const std::uint32_t>(world.wind_offsets));
  buf[b_wind_incident].upload(std::span<const std::uint32_t>(world.wind_incident));
  buf[b_partner_offsets].upload(std::span<const std::uint32_t>(world.partner_offsets));
  buf[b_partner_list].upload(std::span<const std::uint32_t>(world.partner_list));
  buf[b_cg_lines].upload(std::span<const std::uint32_t>(world.cg_lines));
  ctx.run_once([&](VkCommandBuffer cb) {
    buf[b_joint_lambda].fill(cb, 0u);
    buf[b_body_start].fill(cb, 0u);
    buf[b_rigid_omega_start].fill(cb, 0u);
    buf[b_rigid_vel_pos].fill(cb, 0u);
    buf[b_prev_pcontact_offsets].fill(cb, 0u);
    buf[b_ode_deriv].fill(cb, 0u);
    buf[b_ode_touched].fill(cb, 0u);
    if (scene.settings.solver.integrator == Integrator::implicit) {
      buf[b_cg_scalar].fill(cb, 0u);
      buf[b_cg_dv].fill(cb, 0u);  // no last solve: the first warm start is d = 0
    }
  });
  scan = std::make_unique<gpu::Scan>(ctx, std::max(world.bodies(), world.particles()) + 1);
  buf[b_prev_pair_info] = vk::Buffer();
  buf[b_prev_point_lambda] = vk::Buffer();
  buf[b_prev_pair_frame] = vk::Buffer();
  buf[b_prev_pcontact_other] = vk::Buffer();
  buf[b_prev_pcontact_lambda] = vk::Buffer();
}

WorldBuffers::KeptLists WorldBuffers::size_lists(vk::Context& ctx, const Scene& scene,
                                                 const WorldArrays& world, const Capacities& cap,
                                                 const kern::WorldParams& params) {
  const VkDeviceSize pairs = cap.pairs, contacts = cap.contacts;
  const VkDeviceSize v4 = sizeof(glm::vec4), u4 = sizeof(glm::uvec4), u1 = sizeof(std::uint32_t);
  const VkDeviceSize units = params.coloring.w;
  buf[b_pair_info] = storage(ctx, pairs * u4, "pairs");
  buf[b_pair_normal] = storage(ctx, pairs * v4, "pair normals");
  buf[b_point_geom] = storage(ctx, 4 * pairs * v4, "contact points");
  buf[b_point_lambda] = storage(ctx, 4 * pairs * v4, "contact impulses");
  buf[b_point_prep] = storage(ctx, 4 * VKPHYS_POINT_PREP * pairs * v4, "contact rows");
  buf[b_pair_frame] = storage(ctx, 2 * pairs * v4, "manifold references");
  buf[b_point_ref] = storage(ctx, 8 * pairs * v4, "contact point references");
  buf[b_prev_hash] = storage(ctx, VkDeviceSize{params.counts.w} * u1, "warm-start table");
  buf[b_pcontact_bodies] = storage(ctx, contacts * sizeof(glm::uvec2), "particle contacts");
  buf[b_pcontact_geom] = storage(ctx, contacts * v4, "particle contact normals");
  buf[b_pcontact_target] = storage(ctx, contacts * v4, "particle contact targets");
  buf[b_pcontact_lambda] = storage(ctx, contacts * v4, "particle contact impulses");
  buf[b_pcontact_origin] = storage(ctx, contacts * u1, "particle contact origins");
  // The gather into colour order (kernels/world_coloring.inl): the coloured scheme only; the
  // impulses' copy is also the Jacobi gather's second buffer (shaders/world_jacobi_gather.glsl).
  const VkDeviceSize ordered = scene.settings.solver.scheme == SolverScheme::colored ? contacts : 0;
  const VkDeviceSize impulse_copies =
      jacobi_gathers(scene.settings.solver, world) ? contacts : ordered;
  buf[b_pcontact_copy_bodies] = storage(ctx, ordered * sizeof(glm::uvec2), "colour-order contacts");
  buf[b_pcontact_copy_lambda] = storage(ctx, impulse_copies * v4, "copies of contact impulses");
  buf[b_unit_color] = storage(ctx, units * u1, "unit colours");
  buf[b_unit_dv] =
      storage(ctx, (4 * (world.joints() + pairs) + 2 * contacts) * v4, "Jacobi velocity changes");
  const VkDeviceSize sorted =
      std::max<VkDeviceSize>({world.bodies(), world.particles(), 2 * units});
  buf[b_sort_keys] = storage(ctx, sorted * u1, "sort keys");
  buf[b_sort_values] = storage(ctx, sorted * u1, "sort values");
  sort = std::make_unique<gpu::RadixSort>(ctx, static_cast<std::uint32_t>(sorted));
  // Last step's lists survive a regrow: copied into the grown buffers.
  const std::pair<Binding, VkDeviceSize> kept[] = {{b_prev_pair_info, pairs * u4},
                                                   {b_prev_point_lambda, 12 * pairs * v4},
                                                   {b_prev_pair_frame, 2 * pairs * v4},
                                                   {b_prev_pcontact_other, contacts * u1},
                                                   {b_prev_pcontact_lambda, contacts * v4}};
  static_assert(std::size(kept) == std::tuple_size_v<KeptLists>);
  KeptLists old;
  for (std::size_t k = 0; k < old.size(); ++k) {
    old[k] = {kept[k].first, std::move(buf[kept[k].first])};
    buf[kept[k].first] = storage(ctx, kept[k].second, "previous contacts");
  }
  return old;
}

VkDescriptorSet WorldBuffers::set(vk::Kernel& k) {
  auto it = sets.find(&k);
  if (it != sets.end()) return it->second;
  std::array<const vk::Buffer*, VKPHYS_WORLD_BINDINGS> table{};
  for (std::size_t b = 0; b < table.size(); ++b) table[b] = &buf[b];
  VkDescriptorSet s = k.bind(std::span<const vk::Buffer* const>(table));
  sets.emplace(&k, s);
  return s;
}

void WorldBuffers::copy_params_in(VkCommandBuffer cb, std::uint32_t slot) const {
  vk::copy(cb, params_host[slot], buf[b_params], sizeof(kern::WorldParams));
}

void WorldBuffers::copy_drive_in(VkCommandBuffer cb, std::uint32_t slot) const {
  const VkDeviceSize paths = buf[b_drive_paths].size();
  copy_region(cb, drive_host[slot], buf[b_drive_paths], 0, 0, paths);
  copy_region(cb, drive_host[slot], buf[b_drive_impulses], paths, 0, buf[b_drive_impulses].size());
}

void WorldBuffers::backup_copies(VkCommandBuffer cb, bool restore, const WorldArrays& world,
                                 std::uint32_t slot) {
  const VkDeviceSize v4 = sizeof(glm::vec4);
  const std::pair<const vk::Buffer*, VkDeviceSize> parts[] = {
      {&buf[b_body_pos], world.bodies() * v4},
      {&buf[b_body_vel], world.bodies() * v4},
      {&buf[b_rigid_rot], world.rigid * v4},
      {&buf[b_rigid_omega], world.rigid * v4},
      {&buf[b_joint_lambda], VkDeviceSize{world.joints()} * 2 * v4},
      {&buf[b_cg_dv], backup_cg}};  // the first solve's warm start (world_implicit.inl)
  VkDeviceSize at = 0;
  for (const auto& [buffer, bytes] : parts) {
    const vk::Buffer& aside = backup[slot];
    copy_region(cb, restore ? aside : *buffer, restore ? *buffer : aside, restore ? at : 0,
                restore ? 0 : at, bytes);
    at += bytes;
  }
}

}  // namespace vkphys
