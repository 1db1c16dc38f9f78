// Joint trees solved directly (solver.joint_trees): the equality rows of the joints that join
// rigid bodies into a tree (a chain, a rag-doll) solved exactly, as one block of the
// Gauss-Seidel sweep, in time linear in the tree's size (Baraff 1996, "Linear-time dynamics
// using Lagrange multipliers"). Environment: kernels/world_bodies.inl; the rows are the joints'
// own (kernels/joints.inl, joint_targets), with their SPOOK eps.
//
// Why: Gauss-Seidel passes a load along a chain one link per sweep, and a heavy link at the end
// of light ones (mass ratio 100) needs hundreds of sweeps to be carried; the peers' heavy chain
// opened by 0.100 m at 8 sweeps a step with the ball's rows as one 3x3 block, where the issue
// asks for 1 cm. Solved exactly, the chain's rows leave only what the other rows (contacts,
// limits) and the linearisation within a substep leave.
//
// The system: each tree node is a body (6 unknowns: its velocity change dv, dw) or a joint (m of
// its rows' impulse changes dlambda: a ball's 3 point rows and the limit rows of its locked
// axes, a hinge's 3 + 2 angular rows, a distance joint's 1; joint_tree_row_mask). With the rows'
// Jacobian G and regulariser E = diag(eps),
//     [ M   -G^T ] [dv     ]   [ 0 ]        M dv = G^T dlambda (the impulses move the bodies),
//     [ -G  -E   ] [dlambda] = [-r ]        G dv + E dlambda = r,
// r = T - G v - eps lambda per row: seed 001's SPOOK row update for all rows at once (a single
// row gives dlambda = r / (K + eps), row_update). The matrix is symmetric and its graph (bodies
// and joints as nodes, a joint's bodies as its neighbours) is a tree when the joints form no
// loop; static bodies are no node (they have no unknowns), so joints to the world close no loop.
// Eliminating the nodes children first gives the block LDL^T factor with no fill-in:
//     D_i = H_ii - sum over children c of H_ci^T D_c^-1 H_ci,   L_i = D_i^-1 H_ip  (p: parent)
// and a solve is one pass up and one pass down:
//     y_i = b_i - sum over children c of L_c^T y_c;   x_i = D_i^-1 y_i - L_i x_p.
// Body blocks D stay positive definite (M plus positive terms) and joint blocks negative
// definite (-E minus positive terms), so the 6x6 inverses need no pivoting: each is two 3x3
// inverses through the Schur complement. Every block is 6x6, row r of a joint's block its row r;
// a joint of m < 6 rows pads the others with -1 on the diagonal and zero couplings, which leaves
// the padding's unknowns zero.
//
// Stages: joint_tree_factor after each phase's targets (the rows and the world inertia change with
// the poses, so once per substep), joint_tree_solve in every sweep after the units (the tree's rows
// are skipped by the joint sweep, joint_rows_sweep, except in the warm start, which applies
// their impulses as any row's). One invocation per tree; trees share no dynamic body.
//
// Layout (kernels/world_layout.h): tree_ranges[t] (first node, end); tree_nodes[n] (body index,
// or joint index | VKPHYS_TREE_JOINT; parent node or VKPHYS_TREE_ROOT; which end of the joint on
// the edge to the parent the body is: 0 a, 1 b; a joint's row mask, joint_tree_row_mask);
// tree_blocks[26n ..] D^-1 and L as 4 mat3 each (3 vec4 per mat3), then the solve's y, later x, in
// 2 vec4.

// A 6x6 matrix as 3x3 blocks [[a, b], [c, d]] (upper rows: linear, lower: angular for a body;
// rows 0-2 and 3-5 for a joint).
struct Mat6 {
  mat3 a;
  mat3 b;
  mat3 c;
  mat3 d;
};

Mat6 make_mat6(mat3 a, mat3 b, mat3 c, mat3 d) {
  Mat6 m;
  m.a = a;
  m.b = b;
  m.c = c;
  m.d = d;
  return m;
}

Mat6 mat6_mul(Mat6 x, Mat6 y) {
  return make_mat6(x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c,
                   x.c * y.b + x.d * y.d);
}

Mat6 mat6_transpose(Mat6 x) {
  return make_mat6(transpose(x.a), transpose(x.c), transpose(x.b), transpose(x.d));
}

Mat6 mat6_sub(Mat6 x, Mat6 y) {
  return make_mat6(x.a - y.a, x.b - y.b, x.c - y.c, x.d - y.d);
}

// The inverse of a definite matrix through the Schur complement S = d - c a^-1 b.
Mat6 mat6_inverse(Mat6 x) {
  mat3 ai = inverse(x.a);
  mat3 si = inverse(x.d - x.c * ai * x.b);
  mat3 aib = ai * x.b;
  mat3 cai = x.c * ai;
  return make_mat6(ai + aib * si * cai, -(aib * si), -(si * cai), si);
}

uint tree_factor_slot(uint n, uint which) {  // which: 0 D^-1, 1 L
  return VKPHYS_TREE_NODE_STRIDE * n + 12u * which;
}

// Node n's solve vector: y, then x (2 vec4 after its factor blocks).
uint tree_vec_slot(uint n) {
  return VKPHYS_TREE_NODE_STRIDE * n + 24u;
}

Mat6 load_mat6(uint slot) {
  Mat6 m;
  m.a = mat3(vec3(tree_blocks[slot]), vec3(tree_blocks[slot + 1u]), vec3(tree_blocks[slot + 2u]));
  m.b = mat3(vec3(tree_blocks[slot + 3u]), vec3(tree_blocks[slot + 4u]),
             vec3(tree_blocks[slot + 5u]));
  m.c = mat3(vec3(tree_blocks[slot + 6u]), vec3(tree_blocks[slot + 7u]),
             vec3(tree_blocks[slot + 8u]));
  m.d = mat3(vec3(tree_blocks[slot + 9u]), vec3(tree_blocks[slot + 10u]),
             vec3(tree_blocks[slot + 11u]));
  return m;
}

void store_mat6(uint slot, Mat6 m) {
  for (int k = 0; k < 3; ++k) {
    tree_blocks[slot + uint(k)] = vec4(m.a[k], 0.0f);
    tree_blocks[slot + 3u + uint(k)] = vec4(m.b[k], 0.0f);
    tree_blocks[slot + 6u + uint(k)] = vec4(m.c[k], 0.0f);
    tree_blocks[slot + 9u + uint(k)] = vec4(m.d[k], 0.0f);
  }
}

bool tree_node_is_joint(uvec4 node) {
  return (node.x & VKPHYS_TREE_JOINT) != 0u;
}

// Row r (< 6) of joint j's Jacobian on one end (0: a, 1: b) as (linear, angular) parts.
void tree_row_parts(uint j, uint r, uint side, KOUT(vec3) l, KOUT(vec3) w) {
  uint base = joint_row_base(j, r);
  l = vec3(joint_rows[base + 2u * side]);
  w = vec3(joint_rows[base + 1u + 2u * side]);
}

// The joint's rows on one end as a block acting on that body's (dv, dw): G_side (row r of the
// block is row r of the joint where bit r of `rows` is set, zero elsewhere).
Mat6 tree_jacobian(uint j, uint rows, uint side) {
  Mat6 g = make_mat6(mat3(0.0f), mat3(0.0f), mat3(0.0f), mat3(0.0f));
  for (uint r = 0u; r < 6u; ++r) {
    if (((rows >> r) & 1u) == 0u) continue;
    vec3 l;
    vec3 w;
    tree_row_parts(j, r, side, l, w);
    int i = int(r % 3u);
    for (int k = 0; k < 3; ++k) {  // column k of each block, row i
      if (r < 3u) {
        g.a[k][i] = l[k];
        g.b[k][i] = w[k];
      } else {
        g.c[k][i] = l[k];
        g.d[k][i] = w[k];
      }
    }
  }
  return g;
}

// H between node n and its parent: -G (joint n, body parent) or -G^T (body n, joint parent).
Mat6 tree_coupling(uvec4 node) {
  uvec4 parent = tree_nodes[node.y];
  bool joint = tree_node_is_joint(node);
  uvec4 j = joint ? node : parent;
  Mat6 g = tree_jacobian(j.x & ~VKPHYS_TREE_JOINT, j.w, node.z);
  Mat6 zero = make_mat6(mat3(0.0f), mat3(0.0f), mat3(0.0f), mat3(0.0f));
  return mat6_sub(zero, joint ? g : mat6_transpose(g));
}

// A node's own block: M for a body, -E (padded with -1) for a joint.
Mat6 tree_diagonal(uvec4 node) {
  if (!tree_node_is_joint(node)) {
    BodyState s = load_body(node.x);
    return make_mat6(mat3(1.0f / s.im), mat3(0.0f), mat3(0.0f), inverse(s.ii));
  }
  uint j = node.x & ~VKPHYS_TREE_JOINT;
  vec3 upper = vec3(-1.0f);
  vec3 lower = vec3(-1.0f);
  for (uint r = 0u; r < 6u; ++r) {
    if (((node.w >> r) & 1u) == 0u) continue;
    float eps = joint_rows[joint_row_base(j, r) + 1u].w;
    if (r < 3u) {
      upper[int(r)] = -eps;
    } else {
      lower[int(r - 3u)] = -eps;
    }
  }
  Mat6 m = make_mat6(mat3(0.0f), mat3(0.0f), mat3(0.0f), mat3(0.0f));
  for (int k = 0; k < 3; ++k) {
    m.a[k][k] = upper[k];
    m.d[k][k] = lower[k];
  }
  return m;
}

// After the phase's targets: the factor of tree t.
void joint_tree_factor(uint t) {
  uvec2 range = tree_ranges[t];
  for (uint n = range.x; n < range.y; ++n) {
    store_mat6(tree_factor_slot(n, 0u), tree_diagonal(tree_nodes[n]));
  }
  for (uint n = range.x; n < range.y; ++n) {  // children before parents
    uvec4 node = tree_nodes[n];
    Mat6 dinv = mat6_inverse(load_mat6(tree_factor_slot(n, 0u)));
    store_mat6(tree_factor_slot(n, 0u), dinv);
    if (node.y == VKPHYS_TREE_ROOT) continue;
    Mat6 h = tree_coupling(node);
    Mat6 l = mat6_mul(dinv, h);
    store_mat6(tree_factor_slot(n, 1u), l);
    uint parent = tree_factor_slot(node.y, 0u);
    store_mat6(parent, mat6_sub(load_mat6(parent), mat6_mul(mat6_transpose(h), l)));
  }
}

vec3 mat6_top(Mat6 m, vec3 x0, vec3 x1) {
  return m.a * x0 + m.b * x1;
}

vec3 mat6_bottom(Mat6 m, vec3 x0, vec3 x1) {
  return m.c * x0 + m.d * x1;
}

// The right-hand side of joint node n: -r, r = T - G v - eps lambda for each of its rows.
void tree_joint_rhs(uvec4 node, uint kind, KOUT(vec3) top, KOUT(vec3) bottom) {
  uint j = node.x & ~VKPHYS_TREE_JOINT;
  uvec4 info = joint_info[j];
  BodyState a = load_body(info.x);
  BodyState b = load_body(info.y);
  vec4 lam0 = joint_lambda[2u * j];
  vec4 lam1 = joint_lambda[2u * j + 1u];
  top = vec3(0.0f);
  bottom = vec3(0.0f);
  for (uint r = 0u; r < 6u; ++r) {
    if (((node.w >> r) & 1u) == 0u) continue;
    float lam = r < 4u ? lam0[int(r)] : lam1[int(r - 4u)];
    float rhs = -joint_row_error(j, r, kind, lam, a, b);
    if (r < 3u) {
      top[int(r)] = rhs;
    } else {
      bottom[int(r - 3u)] = rhs;
    }
  }
}

// One sweep's block: tree t's rows solved together against the bodies' current velocities.
void joint_tree_solve(uint t, uint kind) {
  uvec2 range = tree_ranges[t];
  for (uint n = range.x; n < range.y; ++n) {
    uvec4 node = tree_nodes[n];
    vec3 top = vec3(0.0f);
    vec3 bottom = vec3(0.0f);
    if (tree_node_is_joint(node)) tree_joint_rhs(node, kind, top, bottom);
    tree_blocks[tree_vec_slot(n)] = vec4(top, 0.0f);
    tree_blocks[tree_vec_slot(n) + 1u] = vec4(bottom, 0.0f);
  }
  for (uint n = range.x; n < range.y; ++n) {  // up: y_p -= L_n^T y_n
    uvec4 node = tree_nodes[n];
    if (node.y == VKPHYS_TREE_ROOT) continue;
    Mat6 lt = mat6_transpose(load_mat6(tree_factor_slot(n, 1u)));
    vec3 y0 = vec3(tree_blocks[tree_vec_slot(n)]);
    vec3 y1 = vec3(tree_blocks[tree_vec_slot(n) + 1u]);
    tree_blocks[tree_vec_slot(node.y)] -= vec4(mat6_top(lt, y0, y1), 0.0f);
    tree_blocks[tree_vec_slot(node.y) + 1u] -= vec4(mat6_bottom(lt, y0, y1), 0.0f);
  }
  float relax = params.solver.x;
  for (uint k = range.y; k > range.x; --k) {  // down, root first: x_n = D^-1 y_n - L_n x_p
    uint n = k - 1u;
    uvec4 node = tree_nodes[n];
    Mat6 dinv = load_mat6(tree_factor_slot(n, 0u));
    vec3 y0 = vec3(tree_blocks[tree_vec_slot(n)]);
    vec3 y1 = vec3(tree_blocks[tree_vec_slot(n) + 1u]);
    vec3 x0 = mat6_top(dinv, y0, y1);
    vec3 x1 = mat6_bottom(dinv, y0, y1);
    if (node.y != VKPHYS_TREE_ROOT) {
      Mat6 l = load_mat6(tree_factor_slot(n, 1u));
      vec3 p0 = vec3(tree_blocks[tree_vec_slot(node.y)]);
      vec3 p1 = vec3(tree_blocks[tree_vec_slot(node.y) + 1u]);
      x0 -= mat6_top(l, p0, p1);
      x1 -= mat6_bottom(l, p0, p1);
    }
    tree_blocks[tree_vec_slot(n)] = vec4(x0, 0.0f);
    tree_blocks[tree_vec_slot(n) + 1u] = vec4(x1, 0.0f);
    if (tree_node_is_joint(node)) {
      uint j = node.x & ~VKPHYS_TREE_JOINT;
      // rows 0-2 in lambda slot 0's xyz, rows 3-5 in slot 0's w and slot 1's xy; a row not in
      // the node's mask has x = 0 exactly (its padded block), so its impulse stays as it was
      joint_lambda[2u * j] += relax * vec4(x0, x1.x);
      joint_lambda[2u * j + 1u] += relax * vec4(x1.y, x1.z, 0.0f, 0.0f);
    } else {
      BodyState s = load_body(node.x);
      s.v += relax * x0;
      s.w += relax * x1;
      store_body(node.x, s);
    }
  }
}
