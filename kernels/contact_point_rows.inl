// A contact point's rows in a sweep: its friction pair, its normal row, its warm start (kernels/
// contact_manifold.inl, "contact sweeps"). No include guard: kernels/contact_manifold.inl
// includes it into the stage functions' environment (a shader, WorldEnv), and host/cpu/
// wide_lanes.h into the CPU's four-lane sweep, whose `slot` is a point index k standing for the
// k-th point of each lane's manifold, and whose row_parts_at, point_prep_at and point_lambda
// gather those points' data into lanes and scatter it back. Values that vary per point are
// lane_float (kernels/common.h).

// Point `slot`'s two friction rows, bounded by its current normal impulse (Coulomb's disc, or
// the box of VKPHYS_FRICTION_BOX).
KINLINE void contact_friction_point(uint slot, vec3 t1, vec3 t2, bool box, float relax,
                                    KINOUT(BodyState) a, KINOUT(BodyState) b) {
  RowParts f1 = row_parts_at(slot, 1u);
  RowParts f2 = row_parts_at(slot, 2u);
  vec4 p2 = point_prep_at(slot, 2u);
  vec4 p3 = point_prep_at(slot, 3u);
  vec4 lam = point_lambda[slot];
  vec2 lt = vec2(row_update(lam.y, p3.x, row_parts_velocity(f1, t1, a, b), p2.w, p2.y, relax),
                 row_update(lam.z, p3.y, row_parts_velocity(f2, t2, a, b), p2.w, p2.z, relax));
  lt = box ? clamp(lt, vec2(-p3.z), vec2(p3.z)) : coulomb_disc(lt, p3.w * lam.x);
  row_parts_apply(f1, t1, lt.x - lam.y, a, b);
  row_parts_apply(f2, t2, lt.y - lam.z, a, b);
  point_lambda[slot] = vec4(lam.x, lt.x, lt.y, lam.w);
}

// Point `slot`'s normal row: no pull (lambda >= 0).
KINLINE void contact_normal_point(uint slot, vec3 n, float relax, KINOUT(BodyState) a,
                                  KINOUT(BodyState) b) {
  RowParts rn = row_parts_at(slot, 0u);
  vec4 lam = point_lambda[slot];
  vec4 p0 = point_prep_at(slot, 0u);
  vec4 p2 = point_prep_at(slot, 2u);
  lane_float un = row_parts_velocity(rn, n, a, b);
  lane_float ln = max(row_update(lam.x, p0.w, un, p2.w, p2.x, relax), 0.0f);
  row_parts_apply(rn, n, ln - lam.x, a, b);
  point_lambda[slot] = vec4(ln, lam.y, lam.z, lam.w);
}

// Point `slot`'s warm start: its last impulses applied again.
KINLINE void contact_warm_point(uint slot, vec3 n, vec3 t1, vec3 t2, KINOUT(BodyState) a,
                                KINOUT(BodyState) b) {
  vec4 lam = point_lambda[slot];
  row_parts_apply(row_parts_at(slot, 0u), n, lam.x, a, b);
  row_parts_apply(row_parts_at(slot, 1u), t1, lam.y, a, b);
  row_parts_apply(row_parts_at(slot, 2u), t2, lam.z, a, b);
}
