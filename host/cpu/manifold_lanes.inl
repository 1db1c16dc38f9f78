// The CPU backend's contact manifolds in lanes: up to kManifoldLanes manifolds that share no
// dynamic body, swept together, point by point, in SIMD lanes (host/cpu/wide_lanes.h) with the
// kernels' own point functions (kernels/contact_point_rows.inl). Included into WorldEnv
// (host/cpu/world_env.h); C++ only: the GPU runs one manifold an invocation and needs none of
// this.
//
// Why: a manifold's rows are a chain. Each row reads the velocities the previous row wrote, and
// the row's arithmetic (three dot products, the update, the clamp, the apply) is about 50 cycles
// of latency for some 40 instructions, so one manifold at a time leaves the core mostly idle.
// Manifolds that share no dynamic body are independent chains: in lanes, one instruction does a
// row of four. Static bodies may be shared: a sweep reads their velocities (zero) and store_body
// never writes them.
//
// Same bits: each lane does exactly the arithmetic contact_rows does, in the same order on its
// own bodies and slots (the same source, host/cpu/wide_lanes.h), and lanes touch disjoint data.
// In a colour no two units share a dynamic body, so any grouping of a colour's manifolds is
// exact; in a mass-split pass (Jacobi, the overflow colour) every unit reads the bodies and
// writes only its own copies' changes, so any grouping is exact there too. The sequential scheme
// groups a manifold with up to three others at most kLaneLookahead places later that commute
// with it, with each other and with every unit in between (no dynamic body in common), so the
// result is its order's. The grouping is planned once a step (the units and their order are
// fixed within it).
//
// Measured (the 210-box pyramid, 60 Hz, CPU, one thread): docs/benchmarks.md, stop 33 (two
// scalar lanes) and stop 38 (four SIMD lanes).

// Four lanes, one SSE register of floats (host/cpu/wide_lanes.h).
static constexpr uint kManifoldLanes = wide::kLanes;

// Unit u is a contact manifold with points, swept in place by a solve or warm-start pass (an
// impact pass reads the inverse inertia and goes through unit_in_place).
bool lane_manifold(uint u, uint kind) {
  uint j = params.counts.y;
  return kind != KIND_IMPACT && u >= j && u < pcontact_unit_base() && pair_info[u - j].z > 0u;
}

// The lanes of the `count` (2 .. kManifoldLanes) manifolds in `lanes`: each lane's pair and
// point count (a lane past `count` has lane 0's pair and no points).
wide::ManifoldLanes manifold_lanes_of(const uint* lanes, uint count) {
  wide::ManifoldLanes m{point_prep, point_lambda, {}, {}, {}};
  uint j = params.counts.y;
  for (uint l = 0u; l < kManifoldLanes; ++l) {
    m.pair[l] = (l < count ? lanes[l] : lanes[0]) - j;
    m.points[l] = l < count ? pair_info[m.pair[l]].z : 0u;
  }
  return m;
}

// The row parts of a group's points, gathered into out[3 k + r] (point k, row r) once a step for
// its sweeps: a point's rows are prepared once a step (prepare_contact) and the substeps' targets
// do not touch them, so these are the values each row update would gather (wide::PointLanes::
// row_parts_at), and the sweeps compute the same bits. Returns the points gathered: the most of
// any lane's manifold. Measured (the 210-box pyramid at 5 x 2, sequential): docs/benchmarks.md,
// stop 47.
uint gather_lane_row_parts(const uint* lanes, uint count, wide::RowParts* out) {
  wide::ManifoldLanes m = manifold_lanes_of(lanes, count);
  uint most = 0u;
  for (uint l = 0u; l < kManifoldLanes; ++l) most = max(most, m.points[l]);
  wide::PointLanes rows{m};
  for (uint k = 0u; k < most; ++k) {
    m.seek(k);
    for (uint r = 0u; r < 3u; ++r) out[3u * k + r] = rows.gather_row_parts(k, r);
  }
  return most;
}

// Sweeps the `count` (2 .. kManifoldLanes) manifolds in `lanes` in SIMD lanes: in place, or
// (`split`) on mass-split copies of their bodies whose velocity changes go to unit_dv, as
// jacobi_unit does (the Jacobi scheme and the coloured scheme's overflow colour: the units of a
// pass read the bodies and write only their own copies, so any grouping is exact). A point index
// that some lane's manifold lacks is swept masked (host/cpu/wide_lanes.h). `parts`: the group's
// row parts from gather_lane_row_parts, or null to gather them at each use.
template <bool split>
void manifold_lanes(const uint* lanes, uint count, uint kind,
                    const wide::RowParts* parts = nullptr) {
  float relax = params.solver.x;
  bool friction = params.solver.z != 0.0f && kind != KIND_WARM;
  bool box = params.modes.z == VKPHYS_FRICTION_BOX;
  wide::ManifoldLanes m = manifold_lanes_of(lanes, count);
  m.parts = parts;
  uvec2 body[kManifoldLanes];
  vec3 n[kManifoldLanes];
  vec3 t1[kManifoldLanes];
  vec3 t2[kManifoldLanes];
  BodyState a[kManifoldLanes];
  BodyState b[kManifoldLanes];
  uint most = 0u;
  uint fewest = ~0u;
  for (uint l = 0u; l < kManifoldLanes; ++l) {
    if (l >= count) {  // no manifold: lane 0's data, computed and never stored
      n[l] = n[0];
      t1[l] = t1[0];
      t2[l] = t2[0];
      a[l] = a[0];
      b[l] = b[0];
      continue;
    }
    uvec4 info = pair_info[m.pair[l]];  // a manifold's bodies and points (unit_bodies)
    most = max(most, info.z);
    fewest = min(fewest, info.z);
    body[l] = uvec2(info);
    n[l] = vec3(pair_normal[m.pair[l]]);
    tangent_basis(n[l], t1[l], t2[l]);
    a[l] = split ? solver_velocities(body[l].x, true) : load_velocities(body[l].x);
    b[l] = split ? solver_velocities(body[l].y, true) : load_velocities(body[l].y);
  }
  wide::PointLanes rows{m};
  wide::vec3 wn = wide::pack(n);
  wide::vec3 wt1 = wide::pack(t1);
  wide::vec3 wt2 = wide::pack(t2);
  wide::BodyState wa = wide::pack(a);
  wide::BodyState wb = wide::pack(b);
  for (uint k = 0u; friction && k < most; ++k) {
    m.seek(k);
    wide::BodyState ka = wa;
    wide::BodyState kb = wb;
    rows.contact_friction_point(k, wt1, wt2, box, relax, wa, wb);
    if (k >= fewest) {
      wa = wide::lane_select(m.live(k), wa, ka);
      wb = wide::lane_select(m.live(k), wb, kb);
    }
  }
  for (uint k = 0u; k < most; ++k) {
    m.seek(k);
    wide::BodyState ka = wa;
    wide::BodyState kb = wb;
    if (kind == KIND_WARM) {
      rows.contact_warm_point(k, wn, wt1, wt2, wa, wb);
    } else {
      rows.contact_normal_point(k, wn, relax, wa, wb);
    }
    if (k >= fewest) {
      wa = wide::lane_select(m.live(k), wa, ka);
      wb = wide::lane_select(m.live(k), wb, kb);
    }
  }
  for (uint l = 0u; l < count; ++l) {
    BodyState a1 = a[l];
    BodyState b1 = b[l];
    wide::unpack(wa, l, a1);
    wide::unpack(wb, l, b1);
    if constexpr (split) {
      store_unit_dv(lanes[l], a[l], b[l], a1, b1);
    } else {
      store_body(body[l].x, a1);
      store_body(body[l].y, b1);
    }
  }
}

// A group of manifolds from a colour or a plan: two or more in lanes, one alone (the scalar
// sweep, as the GPU's: in place, or on split copies).
void manifold_group(const uint* lanes, uint count, uint kind, bool split) {
  if (count >= 2u) {
    if (split) {
      manifold_lanes<true>(lanes, count, kind);
    } else {
      manifold_lanes<false>(lanes, count, kind);
    }
  } else if (split) {
    jacobi_unit(lanes[0], kind);
  } else {
    unit_in_place(lanes[0], kind);
  }
}

// ---- particle contacts in lanes ----------------------------------------------------------------
// A pile of particles is nearly all particle contacts (100k particles: 300k of them, the solve
// 75% of the CPU step), and a contact's three rows are a chain of their own, so four contacts
// that share no dynamic body go through kernels/pcontact_rows.inl together, one per lane, as
// four manifolds do above. Only the solve's sweeps: the warm start (once a phase) and the
// impacts go one by one (unit_in_place, jacobi_unit).

// Unit u is a particle contact swept by a solve pass.
bool lane_pcontact(uint u, uint kind) {
  return kind != KIND_IMPACT && kind != KIND_WARM && u >= pcontact_unit_base() && u < unit_count();
}

// Sweeps the `count` (2 .. wide::kLanes) particle contacts in `lanes` in SIMD lanes, a solve
// pass's (lane_pcontact; its rows do not depend on which): in place,
// as pcontact_in_place does, or (`split`) on mass-split copies, as jacobi_pcontact does. A lane
// past `count` computes on lane 0's contact and is never stored.
template <bool split>
void pcontact_lanes(const uint* lanes, uint count) {
  uint base = pcontact_unit_base();
  bool box = params.modes.z == VKPHYS_FRICTION_BOX;
  uint c[wide::kLanes];
  uvec2 ab[wide::kLanes];
  vec4 va[wide::kLanes];  // as loaded
  vec4 vb[wide::kLanes];
  vec4 sa[wide::kLanes];  // as swept: the split copies under `split`
  vec4 sb[wide::kLanes];
  float box_mass[wide::kLanes];
  for (uint l = 0u; l < wide::kLanes; ++l) {
    c[l] = (l < count ? lanes[l] : lanes[0]) - base;
    ab[l] = pcontact_bodies[c[l]];
    va[l] = body_vel[ab[l].x];
    vb[l] = body_vel[ab[l].y];
    sa[l] = split ? vec4(vec3(va[l]), va[l].w * body_share(ab[l].x, true)) : va[l];
    sb[l] = split ? vec4(vec3(vb[l]), vb[l].w * body_share(ab[l].y, true)) : vb[l];
    box_mass[l] = box ? reduced_mass(sa[l].w, sb[l].w) : 0.0f;
  }
  wide::vec4 lam = wide::transpose(pcontact_lambda[c[0]], pcontact_lambda[c[1]],
                                   pcontact_lambda[c[2]], pcontact_lambda[c[3]]);
  wide::vec4 target = wide::transpose(pcontact_target[c[0]], pcontact_target[c[1]],
                                      pcontact_target[c[2]], pcontact_target[c[3]]);
  // The frame as pcontact_frame builds it, in lanes.
  wide::vec4 geom = wide::transpose(pcontact_geom[c[0]], pcontact_geom[c[1]], pcontact_geom[c[2]],
                                    pcontact_geom[c[3]]);
  wide::vec3 n{geom.x, geom.y, geom.z};
  wide::vec3 t1;
  wide::vec3 t2;
  wide::tangent_basis(n, t1, t2);
  wide::vec4 a = wide::transpose(sa[0], sa[1], sa[2], sa[3]);
  wide::vec4 b = wide::transpose(sb[0], sb[1], sb[2], sb[3]);
  wide::vec3 wva{a.x, a.y, a.z};
  wide::vec3 wvb{b.x, b.y, b.z};
  wide::pcontact_point_rows(n, t1, t2, target, params.solver.z != 0.0f, box,
                            wide::lanes_of(box_mass), params.contact.y, params.gravity_dt.w,
                            params.solver.x, lam, wva, a.w, wvb, b.w);
  vec4 lam_out[wide::kLanes];
  vec4 a1[wide::kLanes];  // (v, the swept 1/m: in place the body's own)
  vec4 b1[wide::kLanes];
  wide::untranspose(lam, lam_out);
  wide::untranspose({wva.x, wva.y, wva.z, a.w}, a1);
  wide::untranspose({wvb.x, wvb.y, wvb.z, b.w}, b1);
  for (uint l = 0u; l < count; ++l) {
    pcontact_lambda[c[l]] = lam_out[l];
    if constexpr (split) {
      index_t slot = 4u * index_t(base) + 2u * c[l];
      unit_dv[slot] = vec4(vec3(a1[l]) - vec3(va[l]), 0.0f);
      unit_dv[slot + 1u] = vec4(vec3(b1[l]) - vec3(vb[l]), 0.0f);
    } else {
      if (va[l].w > 0.0f) body_vel[ab[l].x] = a1[l];
      if (vb[l].w > 0.0f) body_vel[ab[l].y] = b1[l];
    }
  }
}

// A group of particle contacts from a colour or a mass-split pass: two or more in lanes, one
// alone (the scalar sweep, as the GPU's).
void pcontact_group(const uint* lanes, uint count, uint kind, bool split) {
  if (count >= 2u) {
    if (split) {
      pcontact_lanes<true>(lanes, count);
    } else {
      pcontact_lanes<false>(lanes, count);
    }
  } else if (split) {
    jacobi_unit(lanes[0], kind);
  } else {
    unit_in_place(lanes[0], kind);
  }
}

// One colour's units (no two share a dynamic body, so any grouping is exact): its manifolds and
// its particle contacts four at a time, the other units one by one. `split`: a pass on
// mass-split copies (the Jacobi scheme's units, the overflow colour's; units null: units first ..
// first + count), whose units all read the bodies as the pass found them, so any grouping is
// exact as well.
void colour_in_lanes(const uint* units, uint first, uint count, uint kind, bool split) {
  uint lanes[kManifoldLanes];
  uint filled = 0u;
  uint particle_lanes[wide::kLanes];
  uint particles = 0u;
  for (uint s = 0u; s < count; ++s) {
    uint u = units != nullptr ? units[s] : first + s;
    if (lane_pcontact(u, kind)) {
      particle_lanes[particles++] = u;
      if (particles == wide::kLanes) {
        pcontact_group(particle_lanes, particles, kind, split);
        particles = 0u;
      }
      continue;
    }
    if (!lane_manifold(u, kind)) {  // both also pass over inactive units
      if (split) {
        jacobi_unit(u, kind);
      } else {
        unit_in_place(u, kind);
      }
      continue;
    }
    lanes[filled++] = u;
    if (filled == kManifoldLanes) {
      manifold_group(lanes, filled, kind, split);
      filled = 0u;
    }
  }
  if (filled > 0u) manifold_group(lanes, filled, kind, split);
  if (particles > 0u) pcontact_group(particle_lanes, particles, kind, split);
}

// How far ahead the sequential plan looks for partners (positions in the order). 48 fills more
// groups than 24 (the 210-box pyramid's sweeps 541M -> 478M instructions in a 60-step
// callgrind run at 5 x 2), 96 measured slower.
static constexpr uint kLaneLookahead = 48u;

// The sequential scheme's plan for a step (its units and their order do not change within the
// step): the active units of order [first, first + count) as entries of up to kManifoldLanes
// manifolds swept together, (u, v, ...) padded with VKPHYS_UNCOLORED, or (u, VKPHYS_UNCOLORED,
// ...), u alone. Sweeping the plan is sweeping the order: a partner v is taken from at most
// kLaneLookahead positions ahead only if it shares no dynamic body with u, with the partners
// taken before it, nor with any unit still waiting between them, so moving it forward swaps it
// only with units it commutes with. Scratch: `taken`, count flags; `held`, a word per body:
// while u's entry is planned, held[i] == s + 1 marks body i as taken by u, a partner or a unit
// passed over (store_body writes only dynamic bodies, so units that share only static bodies
// commute and static bodies are never marked).
uint plan_sequential_lanes(uint first, uint count, uvec4* plan, unsigned char* taken, uint* held) {
  for (uint s = 0u; s < count; ++s) taken[s] = 0u;
  for (uint i = 0u; i < params.counts.x; ++i) held[i] = 0u;
  uint entries = 0u;
  for (uint s = 0u; s < count; ++s) {
    if (taken[s] != 0u) continue;
    uint u = first + s;
    if (!unit_active(u)) continue;
    uint entry[kManifoldLanes] = {u, VKPHYS_UNCOLORED, VKPHYS_UNCOLORED, VKPHYS_UNCOLORED};
    if (lane_manifold(u, KIND_SOLVE)) {
      uint mark = s + 1u;
      uvec2 ab = unit_bodies(u);
      held[ab.x] = mark;
      held[ab.y] = mark;
      uint partners = 0u;
      for (uint t = s + 1u; t < min(count, s + 1u + kLaneLookahead); ++t) {
        uint v = first + t;
        if (taken[t] != 0u || !unit_active(v)) continue;
        uvec2 cd = unit_bodies(v);
        bool commutes = (held[cd.x] != mark || !body_dynamic(cd.x)) &&
                        (held[cd.y] != mark || !body_dynamic(cd.y));
        if (commutes && lane_manifold(v, KIND_SOLVE)) {
          entry[++partners] = v;
          taken[t] = 1u;
          if (partners + 1u == kManifoldLanes) break;
        }
        // v waits between u and what follows, or is a partner the later ones must not touch
        held[cd.x] = mark;
        held[cd.y] = mark;
      }
    }
    plan[entries++] = uvec4(entry[0], entry[1], entry[2], entry[3]);
  }
  return entries;
}

// An entry of plan_sequential_lanes: its units and how many (1 .. kManifoldLanes).
uint plan_entry(uvec4 entry, uint (&lanes)[kManifoldLanes]) {
  lanes[0] = entry.x;
  lanes[1] = entry.y;
  lanes[2] = entry.z;
  lanes[3] = entry.w;
  uint count = 1u;
  while (count < kManifoldLanes && lanes[count] != VKPHYS_UNCOLORED) ++count;
  return count;
}

// The row parts of a plan's groups for the step's sweeps (gather_lane_row_parts): entry e's at
// parts + at[e] (`parts` holds 3 kManifoldLanes a group).
void gather_plan_row_parts(const uvec4* plan, uint entries, wide::RowParts* parts, uint* at) {
  uint used = 0u;
  for (uint e = 0u; e < entries; ++e) {
    uint lanes[kManifoldLanes];
    uint count = plan_entry(plan[e], lanes);
    at[e] = used;
    if (count >= 2u) used += 3u * gather_lane_row_parts(lanes, count, parts + used);
  }
}

// Sweeps a plan of plan_sequential_lanes (not for impacts, whose pass reads the inverse inertia:
// unit_in_place in order), with its groups' row parts from gather_plan_row_parts.
void sweep_planned_lanes(const uvec4* plan, uint entries, uint kind, const wide::RowParts* parts,
                         const uint* at) {
  for (uint e = 0u; e < entries; ++e) {
    uint lanes[kManifoldLanes];
    uint count = plan_entry(plan[e], lanes);
    if (count >= 2u) {
      manifold_lanes<false>(lanes, count, kind, parts + at[e]);
    } else {
      unit_in_place(lanes[0], kind);  // a manifold alone, or a joint
    }
  }
}
