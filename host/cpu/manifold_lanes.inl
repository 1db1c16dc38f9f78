// The CPU backend's contact manifolds in lanes: up to kManifoldLanes manifolds that share no
// dynamic body, swept in lockstep, point by point, with the kernels' own point functions
// (kernels/contact_manifold.inl). Included into WorldEnv (host/cpu/world_env.h); C++ only: the
// GPU runs one manifold an invocation and needs none of this.
//
// Why: a manifold's rows are a chain. Each row reads the velocities the previous row wrote, and
// the row's arithmetic (three dot products, the update, the clamp, the apply) is about 50 cycles
// of latency for some 40 instructions, so one manifold at a time leaves the core mostly idle.
// Manifolds that share no dynamic body are independent chains: interleaved, the core overlaps
// them. Static bodies may be shared: a sweep reads their velocities (zero) and store_body never
// writes them.
//
// Same bits: each lane does exactly the arithmetic contact_rows does, in the same order on its
// own bodies and slots, and lanes touch disjoint data. In a colour no two units share a dynamic
// body, so any grouping of a colour's manifolds is exact; in a mass-split pass (Jacobi, the
// overflow colour) every unit reads the bodies and writes only its own copies' changes, so any
// grouping is exact there too (measured: the Jacobi pyramid at 5 x 2, user CPU 0.64-0.67 s ->
// 0.56-0.59 s a 300-step bench run, instructions within 1%). The sequential scheme pairs a manifold
// with one at most kLaneLookahead places later that commutes with it and with every unit in
// between (no dynamic body in common), so the result is its order's. The pairing is planned
// once a step (the units and their order are fixed within it): in the 210-box pyramid 89% of
// the manifolds found a partner within 8 places, against 58% when only neighbours in the order
// were paired; within 24 about 98% do (helper-53: the single-lane sweeps' instructions fell
// from 87M to 17M in a 60-step callgrind run at 5 x 2, the plan's rose by 13M).
//
// Measured (the 210-box pyramid, 60 Hz, CPU, one thread): docs/benchmarks.md, "manifolds in
// lanes".

// Two lanes: three and four measured the same (0.88-0.94 ms against 0.90-0.96 for the coloured
// pyramid's solve) and were slower in sequence; glm's vec3 maths is scalar, and two lanes' 24
// velocity floats already exceed the 16 SSE registers.
static constexpr uint kManifoldLanes = 2u;

// Unit u is a contact manifold with points, swept in place by a solve or warm-start pass (an
// impact pass reads the inverse inertia and goes through unit_in_place).
bool lane_manifold(uint u, uint kind) {
  uint j = params.counts.y;
  return kind != KIND_IMPACT && u >= j && u < pcontact_unit_base() && pair_info[u - j].z > 0u;
}

// Appends the dynamic ones of bodies ab to held[0 .. n) (store_body writes no other, so units
// that share only static bodies commute); returns the new count.
uint hold_dynamic(uvec2 ab, uint* held, uint n) {
  if (body_dynamic(ab.x)) held[n++] = ab.x;
  if (body_dynamic(ab.y)) held[n++] = ab.y;
  return n;
}

// Sweeps the N (1 .. kManifoldLanes) manifolds in `lanes` in lockstep: in place, or (`split`)
// on mass-split copies of their bodies whose velocity changes go to unit_dv, as jacobi_unit
// does (the Jacobi scheme and the coloured scheme's overflow colour: the units of a pass read
// the bodies and write only their own copies, so any grouping is exact). `split` is a template
// parameter: as an argument it cost the in-place sweeps 10% more instructions (755M -> 835M).
template <uint N, bool split = false>
void manifold_lanes_fixed(const uint* lanes, uint kind) {
  uint j = params.counts.y;
  float relax = params.solver.x;
  bool friction = params.solver.z != 0.0f && kind != KIND_WARM;
  bool box = params.modes.z == VKPHYS_FRICTION_BOX;
  uint pair[N];
  uint points[N];
  uvec2 body[N];
  vec3 n[N];
  vec3 t1[N];
  vec3 t2[N];
  BodyState a[N];
  BodyState b[N];
  BodyState a0[N];
  BodyState b0[N];
  uint most = 0u;
  // The lane loops below are unrolled (the pragmas): rolled, GCC kept a[] and b[] in memory and
  // every row stored the bodies' velocities and the next row loaded them back (measured: the
  // two-lane sweep 776M -> 696M instructions, same bits).
  for (uint l = 0u; l < N; ++l) {
    pair[l] = lanes[l] - j;
    points[l] = pair_info[pair[l]].z;
    most = max(most, points[l]);
    body[l] = unit_bodies(lanes[l]);
    n[l] = vec3(pair_normal[pair[l]]);
    tangent_basis(n[l], t1[l], t2[l]);
    a[l] = split ? solver_velocities(body[l].x, true) : load_velocities(body[l].x);
    b[l] = split ? solver_velocities(body[l].y, true) : load_velocities(body[l].y);
    a0[l] = a[l];
    b0[l] = b[l];
  }
  for (uint k = 0u; friction && k < most; ++k) {
#pragma GCC unroll 4
    for (uint l = 0u; l < N; ++l) {
      if (k < points[l])
        contact_friction_point(4u * pair[l] + k, t1[l], t2[l], box, relax, a[l], b[l]);
    }
  }
  for (uint k = 0u; k < most; ++k) {
#pragma GCC unroll 4
    for (uint l = 0u; l < N; ++l) {
      if (k >= points[l]) continue;
      if (kind == KIND_WARM) {
        contact_warm_point(4u * pair[l] + k, n[l], t1[l], t2[l], a[l], b[l]);
      } else {
        contact_normal_point(4u * pair[l] + k, n[l], relax, a[l], b[l]);
      }
    }
  }
  for (uint l = 0u; l < N; ++l) {
    if constexpr (split) {
      store_unit_dv(lanes[l], a0[l], b0[l], a[l], b[l]);
    } else {
      store_body(body[l].x, a[l]);
      store_body(body[l].y, b[l]);
    }
  }
}

void manifold_lanes(const uint* lanes, uint count, uint kind, bool split) {
  static_assert(kManifoldLanes == 2u, "one instantiation per lane count");
  if (split) {
    if (count == 1u) {
      manifold_lanes_fixed<1u, true>(lanes, kind);
    } else {
      manifold_lanes_fixed<2u, true>(lanes, kind);
    }
  } else if (count == 1u) {
    manifold_lanes_fixed<1u>(lanes, kind);
  } else {
    manifold_lanes_fixed<2u>(lanes, kind);
  }
}

// One colour's units (no two share a dynamic body, so any grouping is exact): its manifolds two
// at a time, the other units one by one. `split`: a pass on mass-split copies (the Jacobi
// scheme's units, the overflow colour's; units null: units first .. first + count), whose units
// all read the bodies as the pass found them, so any grouping is exact as well.
void colour_in_lanes(const uint* units, uint first, uint count, uint kind, bool split) {
  uint lanes[kManifoldLanes];
  uint filled = 0u;
  for (uint s = 0u; s < count; ++s) {
    uint u = units != nullptr ? units[s] : first + s;
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
      manifold_lanes(lanes, filled, kind, split);
      filled = 0u;
    }
  }
  if (filled > 0u) manifold_lanes(lanes, filled, kind, split);
}

// How far ahead the sequential plan looks for a partner (positions in the order). 24 pairs
// about 98% of the pyramid's manifolds (8: 89%, 16: 95%); the plan's cost grows with it.
static constexpr uint kLaneLookahead = 24u;

// The sequential scheme's plan for a step (its units and their order do not change within the
// step): the active units of order [first, first + count) as entries (u, v), u and v manifolds
// swept together, or (u, VKPHYS_UNCOLORED), u alone. Sweeping the plan is sweeping the order:
// a partner v is taken from at most kLaneLookahead positions ahead only if it shares no dynamic
// body with u nor with any unit still waiting between them, so moving it forward swaps it only
// with units it commutes with. `taken`: count flags of scratch. The dynamic bodies of u and of
// the units passed over so far are kept in one list (`held`), so a candidate is checked against
// it once: rechecking every unit in between for each candidate, pair by pair, was half the
// plan's instructions at a look-ahead of 24.
uint plan_sequential_lanes(uint first, uint count, uvec2* plan, unsigned char* taken) {
  for (uint s = 0u; s < count; ++s) taken[s] = 0u;
  uint entries = 0u;
  for (uint s = 0u; s < count; ++s) {
    if (taken[s] != 0u) continue;
    uint u = first + s;
    if (!unit_active(u)) continue;
    uint partner = VKPHYS_UNCOLORED;
    if (lane_manifold(u, KIND_SOLVE)) {
      uint held[2u * kLaneLookahead + 2u];
      uint holding = hold_dynamic(unit_bodies(u), held, 0u);
      for (uint t = s + 1u; t < min(count, s + 1u + kLaneLookahead); ++t) {
        uint v = first + t;
        if (taken[t] != 0u || !unit_active(v)) continue;
        uvec2 cd = unit_bodies(v);
        bool commutes = true;
        for (uint k = 0u; commutes && k < holding; ++k) {
          commutes = held[k] != cd.x && held[k] != cd.y;
        }
        if (commutes && lane_manifold(v, KIND_SOLVE)) {
          partner = v;
          taken[t] = 1u;
          break;
        }
        holding = hold_dynamic(cd, held, holding);  // v waits between u and what follows
      }
    }
    plan[entries++] = uvec2(u, partner);
  }
  return entries;
}

// Sweeps a plan of plan_sequential_lanes (not for impacts, whose pass reads the inverse inertia:
// unit_in_place in order).
void sweep_planned_lanes(const uvec2* plan, uint entries, uint kind) {
  for (uint e = 0u; e < entries; ++e) {
    uint lanes[2] = {plan[e].x, plan[e].y};
    if (lanes[1] != VKPHYS_UNCOLORED) {
      manifold_lanes_fixed<2u>(lanes, kind);
    } else if (lane_manifold(lanes[0], kind)) {
      manifold_lanes_fixed<1u>(lanes, kind);
    } else {
      unit_in_place(lanes[0], kind);
    }
  }
}
