// Joint rows between rigid bodies: preparation and one Gauss-Seidel sweep (environment:
// kernels/world_bodies.inl).
//
// World anchors p_a = x_a + R_a anchor_a, p_b likewise; r_a = p_a - x_a, r_b = p_b - x_b.
//   distance (seeds 000 5.2 / 001): g = |p_b - p_a| - L along the unit axis n = (p_b - p_a)/|.|,
//     G = [-n, -(r_a x n), n, r_b x n]. The printed bias sign of seed 000 (5.2.2) is wrong and
//     the axis must be normalised (digest A5); SPOOK's -a g target has the right sign.
//   ball (seed 004's pin, digest B.5 with its sign fixes): three rows along the world axes,
//     g_i = (p_b - p_a) . e_i, swept as one 3x3 block (point_block_update).
//   hinge: the ball rows plus two angular rows keeping body b's axis perpendicular to the two
//     directions p, q normal to body a's axis: g = b_axis . p, d/dt g = (w_b - w_a) . (b_axis x p).
//   limits (unilateral): the hinge angle theta = atan2((ref_a x ref_b) . axis, ref_a . ref_b)
//     kept in [lo, hi]; a ball's relative rotation conj(q_a) q_b (w >= 0) kept per body-a axis:
//     theta_i = 2 asin(v_i), seed 004 section 8 with the digest's corrections (|v|^2 in the
//     square root, the conjugate in the correction), applied as velocity rows instead of the
//     paper's position projection. Each limited axis gets one row, toward whichever limit is
//     nearer, with d theta/dt = (w_b - w_a) . axis (the exact axis for the ball's components is
//     derived below).
// Every row has its joint's own SPOOK k and d; limit rows have the limit k and d.
// joint_rows[joint_row_base(j, r) + ...] = (l_a, T) (a_a, eps) (l_b, 1/(K + eps), 0 = row
// unused) (a_b, T without position correction); a spring's row is laid out as described at
// spring_prepare.

vec4 joint_frame(uint j, uint k) {
  return joint_frames[joint_frame_slot(j, k, params.counts.y, params.joint_use.y)];
}

// Limit rows are one-sided, except for a locked axis (lo = hi): with one side only, a row
// chosen for the side the angle is on lets it run freely past the other in a single step (seed
// 004's shoulder axes are locked; the arms hitting the floor turned them 0.7 rad).
bool limit_locked(uint j, uint axis) {
  return limit_axis_locked(joint_frame(j, 6u), joint_frame(j, 7u), axis);
}

// Row r of joint j: rows are stored row-major over the joints (row 0 of every joint, then
// row 1, ...), so springs (distance joints, one row each) lie 64 B apart and a sweep over a
// cloth streams through them. Stored joint-major (6 slots of 64 B per joint), a 64 x 64 cloth's
// sweep touched a new 4 KB page every other spring and spent half its time waiting on that load.
// Rows past row 0 have slots only for the first J1 joints (params.joint_use.x: up to the last
// joint with more than one row, host/sim/world_setup.cpp): a cloth of 390k springs kept 150 MB of
// rows, 128 of them never written, past lavapipe's 128 MiB binding range; it keeps 25 MB.
uint joint_row_base(uint j, uint r) {
  uint J = params.counts.y;
  return 4u * (r == 0u ? j : J + (r - 1u) * params.joint_use.x + j);
}

// The rows joint j brings to its tree's direct solve (joint_tree_row_mask, kernels/world_layout.h);
// 0 when it is in no tree.
uint joint_tree_rows_of(uint j, uvec4 info) {
  if ((info.w & VKPHYS_JOINT_IN_TREE) == 0u) return 0u;
  return joint_tree_row_mask(info, joint_frame(j, 6u), joint_frame(j, 7u));
}

bool joint_row_unilateral(uint j, uint type, uint r) {
  if (type == VKPHYS_JOINT_BALL && r >= 3u) return !limit_locked(j, r - 3u);
  return type == VKPHYS_JOINT_HINGE && r == 5u && !limit_locked(j, 0u);
}

// Row r of joint j with its start-of-phase velocity uk and its effective mass k (without eps).
void write_joint_row(uint j, uint r, vec3 la, vec3 aa, vec3 lb, vec3 ab, float g, vec3 spook,
                     float uk, float k, bool unilateral) {
  float h = params.gravity_dt.w;
  float inv_k = k + spook.z > 0.0f ? 1.0f / (k + spook.z) : 0.0f;
  uint base = joint_row_base(j, r);
  joint_rows[base] = vec4(la, row_target(g, uk, spook, h, unilateral));
  joint_rows[base + 1u] = vec4(aa, spook.z);
  joint_rows[base + 2u] = vec4(lb, inv_k);
  joint_rows[base + 3u] =
      vec4(ab, row_target(unilateral ? max(g, 0.0f) : 0.0f, uk, spook, h, unilateral));
}

void store_joint_row(uint j, uint r, vec3 la, vec3 aa, vec3 lb, vec3 ab, float g, vec3 spook,
                     BodyState a0, BodyState b0, BodyState a, BodyState b, bool unilateral) {
  write_joint_row(j, r, la, aa, lb, ab, g, spook, row_velocity(la, aa, lb, ab, a0, b0),
                  row_mass(la, aa, lb, ab, a, b), unilateral);
}

// One limit row: toward `lo` when theta is below the middle of [lo, hi], else toward `hi`; a
// two-sided row holding theta = lo when the axis is locked.
void store_limit_row(uint j, uint r, vec3 axis, float theta, float lo, float hi, vec3 spook,
                     BodyState a0, BodyState b0, BodyState a, BodyState b) {
  if (hi <= lo) {
    store_joint_row(j, r, vec3(0.0f), -axis, vec3(0.0f), axis, theta - lo, spook, a0, b0, a, b,
                    false);
    return;
  }
  bool lower = theta < 0.5f * (lo + hi);
  float g = lower ? theta - lo : hi - theta;
  vec3 dir = lower ? axis : -axis;
  store_joint_row(j, r, vec3(0.0f), -dir, vec3(0.0f), dir, g, spook, a0, b0, a, b, true);
}

// ---- Springs: distance joints between two particles --------------------------------------
// A compliant spring is a distance joint whose ends are particles, anchored at their centres.
// Its one row has no angular parts (G = [-n, 0, n, 0]), so it is prepared and swept on the
// particles' (v, 1/m) alone, with the general row's arithmetic less the terms that are exactly
// zero (the anchors' rotation, the inertia products): the same numbers for a fraction of the
// work. Measured on a 64 x 64 cloth (4 x 2, CPU, sequential), the general path spent 36% of
// the step preparing its rows and 45% sweeping them.
bool joint_is_spring(uvec4 info) {
  return info.z == VKPHYS_JOINT_DISTANCE && is_particle(info.x) && is_particle(info.y);
}

// A spring's row (row 0, one 64 B slot) is laid out for the sweep, not as the general row:
//   (n, T) (rest, a, b, eps) (tether, 0, 0, 1/(K + eps)) (0, 0, 0, T without position correction)
// with n the unit axis from a to b (G = [-n, 0, n, 0]; a tether's is reversed, below) and
// tether 1 for a tether (VKPHYS_JOINT_TETHER), else 0. K = w_a + w_b does not depend on n, so
// 1/(K + eps) and SPOOK's (a, b, eps) hold for every substep of the step: spring_prepare writes
// them once per step, and the per-substep spring_targets only the axis and the two targets.
// The sweep then reads one 64 B slot and no joint frame. Measured on the hanging 64 x 64 cloth
// (`vkphys bench cloth_hang`, 8 x 1, CPU, sequential): 9.4 -> 8.5 ms/step, with the same
// strain; the per-substep preparation had read two joint frames per spring (two cache lines of
// a 2.3 MB array) and recomputed SPOOK's three quotients. spring_sweep and spring_targets are
// KINLINE (kernels/common.h): 8.5 -> 5.4 ms/step, bit for bit the same cloth.

// Once per step, after the colouring (the mass shares of split units are known): the step's
// constants.
void spring_prepare(uint j, uvec4 info) {
  vec4 sk = joint_frame(j, 8u);
  vec3 spook = spook_coefficients(sk.x, sk.y * params.contact.w, params.gravity_dt.w);
  bool split = unit_split(j);
  float k = body_vel[info.x].w * body_share(info.x, split) +
            body_vel[info.y].w * body_share(info.y, split);
  uint base = joint_row_base(j, 0u);
  joint_rows[base + 1u] = vec4(joint_frame(j, 0u).w, spook);
  float tether = (info.w & VKPHYS_JOINT_TETHER) != 0u ? 1.0f : 0.0f;
  joint_rows[base + 2u] =
      vec4(tether, 0.0f, 0.0f, k + spook.z > 0.0f ? 1.0f / (k + spook.z) : 0.0f);
}

// A tether (a long-range attachment, Kim, Tang & Cohen 2012; ARCHITECTURE.md, "Tethers") keeps
// a free particle a within `rest` of the pin b it hangs from: C = |x_b - x_a| - rest <= 0. As a
// unilateral row g >= 0, lambda >= 0 it is the spring's row negated: g = rest - |x_b - x_a|,
// axis n = (x_a - x_b) / |.| (from b to a), G = [-n, 0, n, 0] with that n, so
// G v = -d|x_b - x_a|/dt and a positive impulse moves a toward b: it pulls and never pushes.
// Open (g > 0, slack) its target lets the gap close within one step (row_target's speculative
// -g/h), so a slack tether costs nothing; the pin's current position and velocity are read like
// any particle's, so a kinematic pin drags its tethers along.

// Before each solve phase: the axis from the current positions and the targets from the
// velocities at the phase's start.
KINLINE void spring_targets(uint j, uvec4 info) {
  vec3 d = vec3(body_pos[info.y]) - vec3(body_pos[info.x]);
  float len = length(d);
  vec3 n = len > 0.0f ? d / len : vec3(0.0f, 1.0f, 0.0f);
  uint base = joint_row_base(j, 0u);
  vec4 c = joint_rows[base + 1u];
  vec3 spook = vec3(c.y, c.z, c.w);
  float h = params.gravity_dt.w;
  bool tether = (info.w & VKPHYS_JOINT_TETHER) != 0u;
  float g = len - c.x;
  if (tether) {
    n = -n;
    g = -g;
  }
  float uk = dot(n, vec3(body_start[info.y]) - vec3(body_start[info.x]));
  joint_rows[base] = vec4(n, row_target(g, uk, spook, h, tether));
  joint_rows[base + 3u] =
      vec4(vec3(0.0f), row_target(tether ? max(g, 0.0f) : 0.0f, uk, spook, h, tether));
}

// One sweep of spring j on its particles' velocities (v, 1/m): joint_rows_sweep's scalar row.
// Joints take no part in an impact pass.
KINLINE void spring_sweep(uint j, uint kind, KINOUT(vec4) va, KINOUT(vec4) vb) {
  uint base = joint_row_base(j, 0u);
  vec4 r2 = joint_rows[base + 2u];
  float inv_k = r2.w;
  if (kind == KIND_IMPACT || inv_k == 0.0f) return;
  vec4 r0 = joint_rows[base];
  vec3 n = vec3(r0);
  float lam = joint_lambda[2u * j].x;
  float dlambda = lam;  // the warm start applies the impulse kept from the last step
  if (kind != KIND_WARM) {
    float target = kind == KIND_VELOCITY ? joint_rows[base + 3u].w : r0.w;
    float u = dot(n, vec3(vb) - vec3(va));
    float next = row_update(lam, target, u, joint_rows[base + 1u].w, inv_k, params.solver.x);
    if (r2.x != 0.0f) next = max(next, 0.0f);  // a tether only pulls
    dlambda = next - lam;
    joint_lambda[2u * j].x = next;
  }
  va = vec4(vec3(va) - (va.w * dlambda) * n, va.w);
  vb = vec4(vec3(vb) + (vb.w * dlambda) * n, vb.w);
}

// How far an anchor of a body turning at w moves over the substep toward the turn's axis, which
// the rows' tangent h (w x r) does not see (quat_arc_drift). Its part along the path (the chord
// is shorter than h |w x r|) is left out: asked for, it made the rows spin the body up (a link
// pinned at its end, turning 0.49 rad a step: 15 -> 15.66 rad/s in one step) instead of closing
// the pin. anchor: in the body's frame.
vec3 anchor_arc_drift(uint body, vec3 anchor, vec3 w, float h) {
  return quat_arc_drift(quat_rotate(body_rotation(body), anchor), w, h);
}

// The point rows' drift velocity (Delta_b - Delta_a) / h at the start-of-phase velocities,
// which the point rows' solve targets take off (joint_targets).
//
// Why: a point row's velocity G v = e . (v_b + w_b x r_b - v_a - w_a x r_a) is the gap's rate
// at the start of the substep, but the step also moves each anchor toward its body's turning
// axis (anchor_arc_drift). Solved exactly (a joint tree), G v meets its target and the pin
// opens by that drift in every substep. Seed 004's rag-doll at its own 30 Hz, 1 x 2: after
// landing a shin turns at 13.9 rad/s, 0.46 rad a step, and its two pins opened by
// r (1 - cos 0.46) = 2.2 cm (measured 2.32). Aiming the rows at G v = T - (Delta_b - Delta_a) / h
// gives them the centripetal impulse that holds turning anchors together, which tangent rows
// left to the next steps' position correction (SPOOK's a g, d = 4 steps). It is second order in
// w h, so slow joints barely see it. Taken at the start velocities, not the sweep's current
// ones: the rows stay linear (a joint tree's one solve is still their fixed point); a term that
// followed the sweep's velocities fed back into them (the 240 Hz whipping chain blew up).
vec3 point_arc_drift(uint j, uvec4 info, BodyState a0, BodyState b0) {
  float h = params.gravity_dt.w;
  return (anchor_arc_drift(info.y, vec3(joint_frame(j, 1u)), b0.w, h) -
          anchor_arc_drift(info.x, vec3(joint_frame(j, 0u)), a0.w, h)) /
         h;
}

// Joint j's rows from the bodies' current poses and start-of-phase velocities: run before each
// solve phase (with substeps the bodies move between them, and a joint's rows follow).
// Springs: spring_targets.
void joint_targets(uint j, uvec4 info) {
  uint type = info.z;
  bool limited = (info.w & VKPHYS_JOINT_LIMITED) != 0u;
  BodyState a0 = start_body(info.x);
  BodyState b0 = start_body(info.y);
  BodyState a = solver_body(info.x, unit_split(j));  // masses as the sweeps see them
  BodyState b = solver_body(info.y, unit_split(j));
  vec4 qa = body_rotation(info.x);  // a spring's ends are particles
  vec4 qb = body_rotation(info.y);
  vec3 xa = vec3(body_pos[info.x]);
  vec3 xb = vec3(body_pos[info.y]);
  vec4 anchor_a = joint_frame(j, 0u);
  vec3 ra = quat_rotate(qa, vec3(anchor_a));
  vec3 rb = quat_rotate(qb, vec3(joint_frame(j, 1u)));
  vec3 d = (xb + rb) - (xa + ra);
  float h = params.gravity_dt.w;
  vec4 sk = joint_frame(j, 8u);
  vec3 spook = spook_coefficients(sk.x, sk.y * params.contact.w, h);  // d in substeps
  vec3 limit_spook = spook_coefficients(sk.z, sk.w * params.contact.w, h);
  if (type == VKPHYS_JOINT_DISTANCE) {
    float len = length(d);
    vec3 n = len > 0.0f ? d / len : vec3(0.0f, 1.0f, 0.0f);
    store_joint_row(j, 0u, -n, -cross(ra, n), n, cross(rb, n), len - anchor_a.w, spook, a0, b0, a,
                    b, false);
  } else {
    vec3 drift = point_arc_drift(j, info, a0, b0);
    for (uint r = 0u; r < 3u; ++r) {
      vec3 e = vec3(r == 0u ? 1.0f : 0.0f, r == 1u ? 1.0f : 0.0f, r == 2u ? 1.0f : 0.0f);
      store_joint_row(j, r, -e, -cross(ra, e), e, cross(rb, e), dot(d, e), spook, a0, b0, a, b,
                      false);
      joint_rows[joint_row_base(j, r)].w -= drift[int(r)];  // the solve's target (row 0's w)
    }
  }
  if (type == VKPHYS_JOINT_HINGE) {
    vec3 axis_a = quat_rotate(qa, vec3(joint_frame(j, 2u)));
    vec3 axis_b = quat_rotate(qb, vec3(joint_frame(j, 3u)));
    vec3 p;
    vec3 q;
    tangent_basis(axis_a, p, q);
    vec3 cp = cross(axis_b, p);
    vec3 cq = cross(axis_b, q);
    store_joint_row(j, 3u, vec3(0.0f), -cp, vec3(0.0f), cp, dot(axis_b, p), spook, a0, b0, a, b,
                    false);
    store_joint_row(j, 4u, vec3(0.0f), -cq, vec3(0.0f), cq, dot(axis_b, q), spook, a0, b0, a, b,
                    false);
    if (limited) {
      vec3 ref_a = quat_rotate(qa, vec3(joint_frame(j, 4u)));
      vec3 ref_b = quat_rotate(qb, vec3(joint_frame(j, 5u)));
      float theta = atan(dot(cross(ref_a, ref_b), axis_a), dot(ref_a, ref_b));
      store_limit_row(j, 5u, axis_a, theta, joint_frame(j, 6u).x, joint_frame(j, 7u).x, limit_spook,
                      a0, b0, a, b);
    }
  }
  if (type == VKPHYS_JOINT_BALL && limited) {
    vec4 rel = quat_mul(quat_conj(qa), qb);
    if (rel.w < 0.0f) rel = -rel;
    vec4 lo = joint_frame(j, 6u);
    vec4 hi = joint_frame(j, 7u);
    vec3 v = vec3(rel);
    for (uint r = 0u; r < 3u; ++r) {
      int c = int(r);
      vec3 e = vec3(r == 0u ? 1.0f : 0.0f, r == 1u ? 1.0f : 0.0f, r == 2u ? 1.0f : 0.0f);
      float vc = clamp(rel[c], -0.999f, 0.999f);
      float theta = 2.0f * asin(vc);
      // d theta_i/dt = (w_b - w_a) . R_a (w e_i + v x e_i) / sqrt(1 - v_i^2), from
      // d/dt conj(q_a) q_b = 1/2 [R_a^T (w_b - w_a), 0] conj(q_a) q_b: the row's axis, exact
      // also when the other axes are turned (seed 004's e_i alone is right only near identity).
      vec3 axis = quat_rotate(qa, rel.w * e + cross(v, e)) / sqrt(1.0f - vc * vc);
      store_limit_row(j, 3u + r, axis, theta, lo[c], hi[c], limit_spook, a0, b0, a, b);
    }
  }
}

// Once per step: last step's impulses, scaled, are the warm start; a spring's constants.
void joint_warm_start(uint j) {
  uvec4 info = joint_info[j];
  if (joint_is_spring(info)) spring_prepare(j, info);
  joint_lambda[2u * j] *= params.solver.w;
  joint_lambda[2u * j + 1u] *= params.solver.w;
}

// Row r of joint j in a sweep of `kind` with accumulated impulse lam: the SPOOK row's error
// T - G v - eps lambda, the numerator of seed 001's row update (row_update), which the 3x3 block
// below and a joint tree's direct solve (kernels/joint_trees.inl) take for all their rows at once.
float joint_row_error(uint j, uint r, uint kind, float lam, BodyState a, BodyState b) {
  uint base = joint_row_base(j, r);
  vec4 r0 = joint_rows[base];
  vec4 r1 = joint_rows[base + 1u];
  vec4 r3 = joint_rows[base + 3u];
  float target = kind == KIND_VELOCITY ? r3.w : r0.w;
  return target - row_velocity(vec3(r0), vec3(r1), vec3(joint_rows[base + 2u]), vec3(r3), a, b) -
         r1.w * lam;
}

// A ball joint's three point rows (rows 0-2) as one 3x3 block: they share the
// anchors and eps, and solved one after the other each row undoes part of the last through the
// bodies' rotation. With A the rows' Jacobian (3 x 12), K = A M^-1 A^T and the update is
//     dlambda = relax (K + eps I)^-1 (T - u - eps lambda),
// seed 001's row update with the 3x3 effective mass in place of the scalar one (Jolt's point
// constraint part). Measured at 8 x 1: the heavy chain's worst gap 0.217 -> 0.100 m, seed 004's
// rag-doll at 30 Hz unchanged within its chaos (pin gaps 3.4-6.1 cm before, 3.6-6.0 cm after).
// K is rebuilt each sweep from the rows (6 matrix-vector products and an inverse per joint): it
// keeps the rows' storage as it is, and joints are few next to contacts.
vec3 point_block_update(uint j, uint kind, vec3 lam, BodyState a, BodyState b) {
  vec3 la[3];
  vec3 aa[3];
  vec3 lb[3];
  vec3 ab[3];
  vec3 rhs;
  float eps = 0.0f;
  for (uint r = 0u; r < 3u; ++r) {
    uint base = joint_row_base(j, r);
    vec4 r0 = joint_rows[base];
    vec4 r1 = joint_rows[base + 1u];
    vec4 r3 = joint_rows[base + 3u];
    la[r] = vec3(r0);
    aa[r] = vec3(r1);
    lb[r] = vec3(joint_rows[base + 2u]);
    ab[r] = vec3(r3);
    eps = r1.w;
    rhs[int(r)] = joint_row_error(j, r, kind, lam[int(r)], a, b);
  }
  mat3 k;
  for (uint c = 0u; c < 3u; ++c) {
    vec3 wa = a.ii * aa[c];
    vec3 wb = b.ii * ab[c];
    for (uint r = 0u; r < 3u; ++r) {
      k[int(c)][int(r)] = a.im * dot(la[r], la[c]) + dot(aa[r], wa) + b.im * dot(lb[r], lb[c]) +
                          dot(ab[r], wb) + (r == c ? eps : 0.0f);
    }
  }
  return lam + params.solver.x * (inverse(k) * rhs);
}

void joint_rows_sweep(uint j, uint kind, KINOUT(BodyState) a, KINOUT(BodyState) b) {
  uvec4 info = joint_info[j];
  uint type = info.z;
  uint rows = joint_row_count(type, (info.w & VKPHYS_JOINT_LIMITED) != 0u);
  float relax = params.solver.x;
  // A joint of a tree (kernels/joint_trees.inl) leaves its equality rows (and a ball's locked
  // limit rows) to tree_solve, but in the warm start, which applies their impulses here.
  uint tree = kind != KIND_WARM ? joint_tree_rows_of(j, info) : 0u;
  vec4 lam0 = joint_lambda[2u * j];
  vec4 lam1 = joint_lambda[2u * j + 1u];
  // A hinge keeps scalar point rows: its limit row turns the door about its centre of mass
  // while the point rows turn it about the hinge, and Gauss-Seidel between the two leaves the
  // door that hit its limit rebounding. With the point rows as a block it rebounds at 0.09 rad/s
  // after 1.5 s, over the 0.05 that scalar rows keep to
  // (RigidPhysics.HingeTurnsOnlyAboutItsAxisAndStopsAtItsLimit); either order of the rows.
  bool block = kind != KIND_WARM && type == VKPHYS_JOINT_BALL && tree == 0u;
  if (block) {
    vec3 next = point_block_update(j, kind, vec3(lam0), a, b);
    for (uint r = 0u; r < 3u; ++r) {
      uint base = joint_row_base(j, r);
      row_apply(vec3(joint_rows[base]), vec3(joint_rows[base + 1u]), vec3(joint_rows[base + 2u]),
                vec3(joint_rows[base + 3u]), next[int(r)] - lam0[int(r)], a, b);
    }
    lam0 = vec4(next, lam0.w);
  }
  for (uint r = block ? 3u : 0u; r < rows; ++r) {
    uint base = joint_row_base(j, r);
    vec4 r2 = joint_rows[base + 2u];
    if (r2.w == 0.0f || ((tree >> r) & 1u) != 0u) continue;
    vec4 r0 = joint_rows[base];
    vec4 r1 = joint_rows[base + 1u];
    vec4 r3 = joint_rows[base + 3u];
    float lam = r < 4u ? lam0[int(r)] : lam1[int(r - 4u)];
    float next = lam;
    if (kind == KIND_WARM) {
      row_apply(vec3(r0), vec3(r1), vec3(r2), vec3(r3), lam, a, b);
      continue;
    }
    float target = kind == KIND_VELOCITY ? r3.w : r0.w;
    float u = row_velocity(vec3(r0), vec3(r1), vec3(r2), vec3(r3), a, b);
    next = row_update(lam, target, u, r1.w, r2.w, relax);
    if (joint_row_unilateral(j, type, r)) next = max(next, 0.0f);
    row_apply(vec3(r0), vec3(r1), vec3(r2), vec3(r3), next - lam, a, b);
    if (r < 4u) {
      lam0[int(r)] = next;
    } else {
      lam1[int(r - 4u)] = next;
    }
  }
  joint_lambda[2u * j] = lam0;
  joint_lambda[2u * j + 1u] = lam1;
}
