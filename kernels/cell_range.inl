// Stage functions included *inside* an environment that provides the buffers by name: the
// shaders declare them as std430 buffer blocks, the CPU backend (host/cpu/particle_env.h) as
// member pointers of a struct that includes this file in its body, so the code below compiles
// unchanged as GLSL and as C++ member functions. The pure maths it calls is in kernels/*.h.
// Buffers used: params, sort_keys, cell_start, cell_end
// (layouts in kernels/layout.h).

// ---- cell ranges: sorted key k opens and/or closes its cell's run in sort_keys -------------
void find_cell_range(uint k) {
  uint n = params.counts.x;
  uint key = sort_keys[k];
  if (k == 0u || sort_keys[k - 1u] != key) cell_start[key] = k;
  if (k + 1u == n || sort_keys[k + 1u] != key) cell_end[key] = k + 1u;
}
