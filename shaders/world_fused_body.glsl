// The one-workgroup kernel's body, shared by its two variants (world_fused.comp: `coherent`
// buffers on any device; world_fused_workgroup.comp: `workgroupcoherent` under the Vulkan memory
// model), each of which defines VKPHYS_BUFFER_QUALIFIER and workgroup_sync() and includes this
// after world_common.glsl. world_fused.comp says what the kernel does.

// The passes over the units color_init left uncoloured (listed in sort_values).
void fused_coloring(uint recorded) {
  uint units = counters.uncolored;
  uint sub = params.coloring.y;
  for (uint c = 0u; c < recorded; ++c) {
    for (uint k = 0u; k < sub; ++k) {
      uint pass_id = c * sub + k + 1u;
      for (uint t = gl_LocalInvocationID.x; t < units; t += VKPHYS_LOCAL_SIZE) {
        color_propose(sort_values[t], c, pass_id);
      }
      workgroup_sync();
      for (uint t = gl_LocalInvocationID.x; t < units; t += VKPHYS_LOCAL_SIZE) {
        color_assign(sort_values[t], c, pass_id);
      }
      workgroup_sync();
    }
  }
}

// Colour c's two lists (joints and pairs, particle contacts) as one: they share no dynamic body.
void colored_units(uint c, uint kind) {
  uint first = color_list_size(2u * c);
  uint count = first + color_list_size(2u * c + 1u);
  for (uint t = gl_LocalInvocationID.x; t < count; t += VKPHYS_LOCAL_SIZE) {
    uint u = t < first ? colored_unit(2u * c, t) : colored_unit(2u * c + 1u, t - first);
    if (!fault_skips_unit(u, kind)) unit_in_place(u, kind);
  }
}

// The joint trees' block of a sweep (kernels/joint_trees.inl), after the units.
void fused_trees(uint kind) {
  if (params.trees.x == 0u || (kind != KIND_SOLVE && kind != KIND_VELOCITY)) return;
  for (uint t = gl_LocalInvocationID.x; t < params.trees.x; t += VKPHYS_LOCAL_SIZE) {
    joint_tree_solve(t, kind);
  }
  workgroup_sync();
}

// Units on split copies, then each body's average (kernels/world_units.inl): Jacobi's every
// unit, or the overflow colour's two lists (joints and pairs, particle contacts) as one.
void split_units(bool overflow_color, uint kind) {
  uint list = 2u * params.coloring.x;
  uint first = overflow_color ? color_list_size(list) : unit_count();
  uint count = overflow_color ? first + color_list_size(list + 1u) : first;
  for (uint t = gl_LocalInvocationID.x; t < count; t += VKPHYS_LOCAL_SIZE) {
    uint u = !overflow_color ? t
             : t < first     ? colored_unit(list, t)
                             : colored_unit(list + 1u, t - first);
    if (!fault_skips_unit(u, kind)) jacobi_unit(u, kind);
  }
  workgroup_sync();
  for (uint b = gl_LocalInvocationID.x; b < params.counts.x; b += VKPHYS_LOCAL_SIZE) {
    jacobi_body(b, kind);
  }
  workgroup_sync();
}

// One sweep: the recorded colours in order, then the overflow colour (only when every colour is
// recorded, as the GPU backend records it); or Jacobi's units, then the averages; then the
// joint trees.
void fused_sweep(uint kind, uint recorded) {
  if (recorded == 0u) {  // Jacobi
    split_units(false, kind);
    fused_trees(kind);
    return;
  }
  for (uint c = 0u; c < recorded; ++c) {
    colored_units(c, kind);
    workgroup_sync();
  }
  if (recorded == params.coloring.x) {
    for (uint pass = 0u; pass < overflow_passes(kind); ++pass) split_units(true, kind);
  }
  fused_trees(kind);
}

// Every body's velocity before the last sweep (reference), or the residual after it.
void residual_pass(bool reference) {
  for (uint b = gl_LocalInvocationID.x; b < params.counts.x; b += VKPHYS_LOCAL_SIZE) {
    if (reference) {
      body_keep_reference(b);
    } else {
      body_residual(b);
    }
  }
  workgroup_sync();
}

void main() {
  if (push.x == FUSED_COLORING) {
    fused_coloring(push.y);
    return;
  }
  uint first = push.y & 0xFFu;
  uint kind = (push.y >> 8u) & 0xFFu;
  bool measure = (push.y & FUSED_MEASURE_LAST) != 0u;
  uint sweeps = push.z + (first != KIND_NONE ? 1u : 0u);
  for (uint s = 0u; s < sweeps; ++s) {
    if (measure && s + 1u == sweeps) residual_pass(true);
    fused_sweep(s == 0u && first != KIND_NONE ? first : kind, push.w);
  }
  if (measure && sweeps > 0u) residual_pass(false);
}
