// A particle contact's rows in a sweep, on the values its caller loaded: the friction pair,
// bounded by the current normal impulse, then the normal row (kernels/contact_particle.inl has
// the layout and the derivation). No include guard: kernels/contact_particle.inl includes it
// into the stage functions' environment (a shader, WorldEnv), and host/cpu/wide_lanes.h into the
// CPU's four-lane sweep, where each value is four contacts of one colour (or of one mass-split
// pass) in SIMD lanes. One text, so each lane does the scalar sweep's arithmetic operation for
// operation and the CPU backend keeps its bits (host/cpu/manifold_lanes.inl, pcontact_lanes).

// Adds the impulse p on body b and -p on body a, each carried as its velocity and 1/m.
KINLINE KFN void pcontact_push(vec3 p, KINOUT(vec3) va, lane_float ima, KINOUT(vec3) vb,
                               lane_float imb) {
  va = va - ima * p;
  vb = vb + imb * p;
}

// `lam`: (lambda_n, lambda_t1, lambda_t2, mu); `target`: pcontact_target's (T, T_t1, T_t2, eps);
// `box_mass`: the pair's reduced mass where the scaled-box friction model is on (its bound is
// mu m_red |g| h, `g_abs` and `h` the world's), else unused.
KINLINE KFN void pcontact_point_rows(vec3 n, vec3 t1, vec3 t2, vec4 target, bool friction, bool box,
                                     lane_float box_mass, float g_abs, float h, float relax,
                                     KINOUT(vec4) lam, KINOUT(vec3) va, lane_float ima,
                                     KINOUT(vec3) vb, lane_float imb) {
  lane_float inv_k = 1.0f / (ima + imb + target.w);
  if (friction) {
    vec3 rel = vb - va;
    vec2 lt = vec2(row_update(lam.y, target.y, dot(rel, t1), target.w, inv_k, relax),
                   row_update(lam.z, target.z, dot(rel, t2), target.w, inv_k, relax));
    if (box) {
      lane_float bound = lam.w * box_mass * g_abs * h;
      lt = clamp(lt, vec2(-bound), vec2(bound));
    } else {
      lt = coulomb_disc(lt, lam.w * lam.x);
    }
    pcontact_push((lt.x - lam.y) * t1 + (lt.y - lam.z) * t2, va, ima, vb, imb);
    lam.y = lt.x;
    lam.z = lt.y;
  }
  lane_float ln = max(row_update(lam.x, target.x, dot(vb - va, n), target.w, inv_k, relax), 0.0f);
  pcontact_push((ln - lam.x) * n, va, ima, vb, imb);
  lam.x = ln;
}
