// The row arithmetic of a contact sweep: the SPOOK row update, Coulomb's disc and a prepared
// row's parts, velocity and impulse. No include guard: kernels/rows.h includes it for the kernels
// (GLSL and the C++ backend, lane_float = float), and host/cpu/wide_lanes.h includes it again in
// a namespace whose lane_float, vec2, vec3, RowParts and BodyState hold four manifolds' values
// in SIMD lanes. One text, so a row is the same arithmetic in every lane as in the scalar code,
// operation for operation: the wide sweep keeps the CPU backend's bits.
// Written for both: a lane-varying value is a lane_float, a condition on one is taken with
// lane_select / any_lane (in the scalar code plain ?: and the bool itself).

// ---- the row update every constraint row uses (particles and rigid bodies) ------------------
// The unprojected new accumulated impulse of one row: lambda + (T - u - eps lambda) / (K + eps),
// scaled by the relaxation factor. inv_k = 1 / (K + eps).
KFN lane_float row_update(lane_float lambda, lane_float target, lane_float u, lane_float eps,
                          lane_float inv_k, float relax) {
  return lambda + relax * (target - u - eps * lambda) * inv_k;
}

// Coulomb's disc: the friction impulse pair scaled back radially to length <= bound.
// The squared length screens first, so the square root (on a contact sweep's dependency chain,
// row after row) is taken only for an impulse that may be outside; the test on the length itself
// stays, so the disc projects exactly the impulses it projected with the length alone, except
// where len2 rounds to at most bound^2 while len rounds above bound, a scale of 1 - 1 ulp.
// In lanes the root is taken when any lane may be outside, and a lane is projected only where
// both tests hold, as alone.
KFN vec2 coulomb_disc(vec2 lt, lane_float bound) {
  lane_bool screened = dot(lt, lt) > bound * bound;
  if (any_lane(screened)) {
    lane_float len = length(lt);
    vec2 scaled = lane_select(len > 0.0f, lt * (bound / len), vec2(0.0f));
    lt = lane_select(screened && len > bound, scaled, lt);
  }
  return lt;
}

// A prepared row's parts from the three vec4 point_prep packs them in (store_row_parts,
// kernels/contact_manifold.inl): (c_a, c_b.x), (c_b.yz, i_a.xy), (i_a.z, i_b).
KFN RowParts unpack_row_parts(vec4 x, vec4 y, vec4 z) {
  RowParts r;
  r.ca = vec3(x.x, x.y, x.z);
  r.cb = vec3(x.w, y.x, y.y);
  r.ia = vec3(y.z, y.w, z.x);
  r.ib = vec3(z.y, z.z, z.w);
  return r;
}

// The row's velocity u = G v (d from a to b).
KFN lane_float row_parts_velocity(RowParts p, vec3 d, BodyState a, BodyState b) {
  return dot(d, b.v - a.v) + dot(p.cb, b.w) - dot(p.ca, a.w);
}

// Adds M^-1 G^T dlambda to both bodies. The linear part is dlambda (im d), like the angular
// dlambda i: im d does not wait for dlambda, so the sweep's chain from a row's impulse to the
// bodies' new velocities is a product and a sum, not two products and a sum (for unit masses
// the same bits as (im dlambda) d).
KFN void row_parts_apply(RowParts p, vec3 d, lane_float dlambda, KINOUT(BodyState) a,
                         KINOUT(BodyState) b) {
  a.v -= dlambda * (a.im * d);
  a.w -= dlambda * p.ia;
  b.v += dlambda * (b.im * d);
  b.w += dlambda * p.ib;
}
