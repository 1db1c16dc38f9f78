// An orthonormal tangent basis (t1, t2) with t1 x t2 = n, continuous except across n.z = 0
// (Duff et al. 2017, "Building an orthonormal basis, revisited"). No include guard: kernels/
// narrowphase.h includes it for the kernels (lane_float = float), and host/cpu/wide_lanes.h
// again for the CPU's four-lane sweep of particle contacts, which builds each contact's frame
// from its normal as the scalar sweep does (host/cpu/manifold_lanes.inl, pcontact_lanes).
KFN void tangent_basis(vec3 n, KOUT(vec3) t1, KOUT(vec3) t2) {
  lane_float s = lane_select(n.z >= 0.0f, 1.0f, -1.0f);
  lane_float a = -1.0f / (s + n.z);
  lane_float b = n.x * n.y * a;
  t1 = vec3(1.0f + s * n.x * n.x * a, s * b, -s * n.x);
  t2 = vec3(b, s + n.y * n.y * a, -n.y);
}
