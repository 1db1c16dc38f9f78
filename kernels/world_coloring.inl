// Graph colouring of the solver's units (joints, contact manifolds, particle contacts) so that no
// two units of one colour share a dynamic body: each colour can then be solved in parallel, in
// place, and the colours in sequence give projected Gauss-Seidel (Box2D v3's constraint graph does
// this on the CPU; here it runs on the GPU). Stage functions (environment:
// kernels/world_bodies.inl).
//
// The colouring is a Jones-Plassmann / Luby independent-set construction with no float work and
// no order dependence, so the GPU result is deterministic and the CPU reference replays it
// exactly. For colour c, each of `sub-passes` passes:
//   propose: every uncoloured unit whose dynamic bodies are still free in colour c writes
//            atomicMax(claim[body], (pass << 24) | (0xFFFFFF - priority(u))) on each of them;
//            the pass number makes this pass's values beat older ones, so claims never need
//            clearing;
//   assign:  a unit that holds the claim on all its dynamic bodies takes colour c and marks it
//            taken on them (bit c of the body's mask of taken colours).
// Particle contacts that persist from the last step keep their colour and take no part in the
// passes (see "Colours kept from step to step" below).
// At most one unit wins each body per pass, and the unit of lowest priority among the
// proposers always wins, so every pass makes progress. Priorities are a fixed 24-bit
// permutation of the unit index (ordered by index, a chain of units would colour one per pass);
// unit capacities stay below 2^24 (host/sim/world_capacities.cpp) so that no two units tie.
// Units left after max_colours colours go to the overflow colour, which is solved in parallel by
// mass-split Jacobi (see "The overflow colour" below); static bodies are shared freely (they are
// never written).

// Units: joints, then the stored SAP pairs, then the stored particle contacts.
uint unit_count() {
  return params.counts.y + stored_pairs() + stored_pcontacts();
}

// First unit of the particle contacts.
uint pcontact_unit_base() {
  return params.counts.y + stored_pairs();
}

uvec2 unit_bodies(uint u) {
  uint j = params.counts.y;
  if (u < j) return uvec2(joint_info[u].x, joint_info[u].y);
  uint c = pcontact_unit_base();
  if (u < c) return uvec2(pair_info[u - j].x, pair_info[u - j].y);
  return pcontact_bodies[u - c];
}

bool unit_active(uint u) {
  uint j = params.counts.y;
  if (u < j) return true;
  if (u >= unit_count()) return false;
  return u >= pcontact_unit_base() || pair_info[u - j].z > 0u;
}

// A bijection of [0, 2^24): multiply by odd constants and xor-shift, all mod 2^24.
uint color_priority(uint u) {
  uint x = u & 0xFFFFFFu;
  x = (x * 0x9E3B5u) & 0xFFFFFFu;
  x ^= x >> 11u;
  x = (x * 0x2C1B3u) & 0xFFFFFFu;
  x ^= x >> 13u;
  return x;
}

uint claim_value(uint u, uint pass_id) {
  return (pass_id << 24u) | (0xFFFFFFu - color_priority(u));
}

// ---- Colours kept from step to step ----------------------------------------------------------
// A particle contact that persists keeps its colour (Box2D v3's constraint graph does the same
// for its contacts: a contact enters a colour when it begins and leaves it when it ends). Last
// step's colouring was valid, and this step's particle contacts that existed then are a subset
// of last step's units on the same bodies (a contact is its (owner, other); which bodies are
// dynamic never changes in a run), so their old colours are still valid together, and with the
// joints'. The passes then colour only the new contacts (and the pairs), around them. Without
// this the propose and assign passes of every colour ran over every live unit each step: a
// million-particle pile's units, 12 colours x 4 passes, each reading every unit's colour.
// The rigid pairs are coloured afresh every step: kept, they made the coloured scheme's
// 210-box pyramid at 1 x 25 rock harder (its fastest box in the 10th second 0.44 m/s against
// 0.32 on the CPU; 0.126 against 0.054 m/s in the 4th second on lavapipe), and their colouring
// costs little (a few thousand units where particles have millions).
// The carried code: colour + 1 of unit u, 0 if it has none (the overflow colour, or not the
// coloured scheme). The commit stores it with the contact (the top six bits of
// prev_pcontact_other); the grid hands it back to the contact's new unit as unit_color
// (kept_color).
uint kept_color_code(uint u) {
  if (params.modes.x != VKPHYS_SCHEME_COLORED) return 0u;
  uint c = unit_color[u];
  return c < params.coloring.x ? c + 1u : 0u;
}

uint kept_color(uint code) {
  return code > 0u ? code - 1u : VKPHYS_UNCOLORED;
}

// A unit left uncoloured is listed for the passes: sort_values[0, counters.uncolored), free
// until color_key. The CPU lists it at once (list_uncolored); the GPU's color_init returns true
// and shaders/world_color.comp reserves the subgroup's entries with one atomic (a ballot and its
// prefix count), not one per unit on one counter, so the list is in subgroup order. That changes
// nothing: a pass's result does not depend on the order its units run in.
void list_uncolored(uint u) {
  sort_values[atomicAdd(counters.uncolored, 1u)] = u;
}

// Joints keep the colours they were given at load (host/sim/joint_coloring.h): they are fixed
// for the run, so colouring them again every step only repeated work (a cloth's springs and
// tethers are nearly all of its units). The passes below fit the contacts around them: a body's
// mask of its joints' colours blocks those colours as this step's marks do. A particle contact
// arrives with its kept colour or VKPHYS_UNCOLORED in unit_color (the grid wrote it) and marks
// its colour on its dynamic bodies (atomicOr: the marks do not depend on the order).
// Returns whether unit u is left for the passes (VKPHYS_UNCOLORED, to be listed).
bool color_init(uint u) {
  if (u < params.counts.y) {
    uint load = body_color[3u * params.counts.x + u];  // the joint's colour from load
    unit_color[u] = load;
    return load == VKPHYS_UNCOLORED;
  }
  if (!unit_active(u)) {
    unit_color[u] = VKPHYS_INACTIVE_COLOR;
    return false;
  }
  uint kept = u >= pcontact_unit_base() ? unit_color[u] : VKPHYS_UNCOLORED;
  if (kept >= params.coloring.x) {
    unit_color[u] = VKPHYS_UNCOLORED;
    return true;
  }
  uvec2 ab = unit_bodies(u);
  uint n = params.counts.x;
  if (body_dynamic(ab.x)) atomicOr(body_color[n + ab.x], 1u << kept);
  if (body_dynamic(ab.y)) atomicOr(body_color[n + ab.y], 1u << kept);
  return false;
}

// One invocation after color_init: the passes' indirect dispatch over its list.
void uncolored_groups() {
  counters.uncolored_groups = (counters.uncolored + VKPHYS_GROUP_SIZE - 1u) / VKPHYS_GROUP_SIZE;
  counters.uncolored_groups_y = 1u;
  counters.uncolored_groups_z = 1u;
}

// Colour `color` is taken on dynamic body i: by this step's contacts (kept or coloured in the
// passes so far) or by one of its joints.
bool color_taken(uint i, uint color) {
  uint n = params.counts.x;
  return body_dynamic(i) && ((body_color[n + i] | body_color[2u * n + i]) & (1u << color)) != 0u;
}

bool color_blocked(uvec2 ab, uint color) {
  return color_taken(ab.x, color) || color_taken(ab.y, color);
}

void color_propose(uint u, uint color, uint pass_id) {
  if (unit_color[u] != VKPHYS_UNCOLORED) return;
  uvec2 ab = unit_bodies(u);
  if (color_blocked(ab, color)) return;
  uint value = claim_value(u, pass_id);
  if (body_dynamic(ab.x)) atomicMax(body_color[ab.x], value);
  if (body_dynamic(ab.y)) atomicMax(body_color[ab.y], value);
}

void color_assign(uint u, uint color, uint pass_id) {
  if (unit_color[u] != VKPHYS_UNCOLORED) return;
  uvec2 ab = unit_bodies(u);
  uint value = claim_value(u, pass_id);
  bool a_ok = !body_dynamic(ab.x) || body_color[ab.x] == value;
  bool b_ok = !body_dynamic(ab.y) || body_color[ab.y] == value;
  if (!a_ok || !b_ok) return;
  unit_color[u] = color;
  // The unit holds the claim on both: no other invocation writes these words in this pass.
  uint n = params.counts.x;
  if (body_dynamic(ab.x)) body_color[n + ab.x] |= 1u << color;
  if (body_dynamic(ab.y)) body_color[n + ab.y] |= 1u << color;
}

// Sort key: the colour list, 2 slot + (particle contact ? 1 : 0), with slot the colour, the
// overflow colour (= max colours) if none, inactive units last. A colour's particle contacts
// then sit apart from its joints and pairs, so each runs in a kernel of its own kind.
void color_key(uint u) {
  uint c = unit_color[u];
  uint slot = c == VKPHYS_UNCOLORED ? params.coloring.x : c;
  sort_keys[u] = 2u * slot + (u >= pcontact_unit_base() ? 1u : 0u);
  sort_values[u] = u;
}

// After the sort by colour: each colour's range [start, end) of the live units' sorted positions
// (the passes run over the live units alone; past them the key and unit arrays are stale).
void color_range(uint s) {
  uint total = unit_count();
  uint k = sort_keys[s];
  if (s == 0u || sort_keys[s - 1u] != k) counters.color_start[k] = s;
  if (s + 1u == total || sort_keys[s + 1u] != k) counters.color_end[k] = s + 1u;
}

// Units in colour list k (valid after color_range).
uint color_list_size(uint k) {
  return counters.color_end[k] - counters.color_start[k];
}

// One invocation: the indirect dispatch size of every colour list, and where each colour's
// particle contacts start in colour order (the odd lists before it). `recorded` is how many
// colours the GPU backend recorded passes for; units left over with fewer than max colours
// recorded set the redo flag (the host records them all and redoes the step, see the GPU
// backend).
void color_groups(uint recorded) {
  uint overflow = params.coloring.x;
  uint left = color_list_size(2u * overflow) + color_list_size(2u * overflow + 1u);
  if (recorded < overflow && left > 0u) counters.redo = 1u;
  // Joints coloured at load may hold colours past the recorded ones, whose lists no sweep reads.
  for (uint c = recorded; c < overflow; ++c) {
    if (color_list_size(2u * c) > 0u) counters.redo = 1u;
  }
  uint pcontacts_before = 0u;
  for (uint c = 0u; c < 2u * uint(VKPHYS_MAX_COLORS); ++c) {
    uint count = counters.color_end[c] - counters.color_start[c];
    counters.color_groups[3u * c] = (count + VKPHYS_GROUP_SIZE - 1u) / VKPHYS_GROUP_SIZE;
    counters.color_groups[3u * c + 1u] = 1u;
    counters.color_groups[3u * c + 2u] = 1u;
    if ((c & 1u) == 1u) {
      counters.pcontact_first[c >> 1u] = pcontacts_before;
      pcontacts_before += count;
    }
  }
}

// The unit at position t of colour list k, or VKPHYS_UNCOLORED past its end.
uint colored_unit(uint k, uint t) {
  uint s = counters.color_start[k] + t;
  return s < counters.color_end[k] ? sort_values[s] : VKPHYS_UNCOLORED;
}

// ---- Jacobi: who touches each body --------------------------------------------------------------
// Entry 2u + side for each unit side on a dynamic body, keyed by the body (N: none), sorted by
// key, then each body's range of entries.
void incidence_key(uint e) {
  uint u = e >> 1u;
  uint n = params.counts.x;
  uint key = n;
  if (unit_active(u)) {
    uvec2 ab = unit_bodies(u);
    uint b = (e & 1u) == 0u ? ab.x : ab.y;
    if (body_dynamic(b)) key = b;
  }
  sort_keys[e] = key;
  sort_values[e] = e;
}

void incidence_range(uint s) {
  uint total = 2u * unit_count();
  uint k = sort_keys[s];
  if (k >= params.counts.x) return;
  if (s == 0u || sort_keys[s - 1u] != k) body_range[k].x = s;
  if (s + 1u == total || sort_keys[s + 1u] != k) body_range[k].y = s + 1u;
}

// ---- The overflow colour: mass-split Jacobi -----------------------------------------------------
// The overflow colour's units may share bodies, so they cannot run in place in parallel; one
// invocation used to sweep them in list order, at 2-5 us a unit (1,000 overflow units: 2-5 ms a
// sweep on one GPU thread). They are solved instead as the Jacobi scheme solves every unit
// (kernels/world_units.inl): each on split copies of its bodies, a body's share n being the
// number of OVERFLOW units on it (not all its units: the coloured ones run in place, on the full
// masses, before), and each touched body then adds the average of their velocity changes. That
// is the overflow's part of M^-1 sum(G^T dlambda) (Tonge et al. 2012), as PhysX averages across
// slabs; the rows of an overflow unit see the split masses from their preparation on
// (unit_split, body_share in kernels/world_bodies.inl), so no update overshoots. Jacobi
// converges more slowly than Gauss-Seidel: each sweep runs overflow_passes (kernels/stages.h)
// such passes.
//
// Each body's list of overflow entries (2u + side, dynamic bodies only) is built once per step,
// after the colour sort and the particle contacts' gather, without a sort: count the entries per
// body (integer atomics: exact), scan the counts, fill through the scanned cursors, and then
// order each body's short run by entry, so the average adds in a fixed order whatever order the
// atomics took (no float atomics; the CPU backend runs the same functions in order and gets the
// same bits). sort_values hold the colour lists through the solve, so the entries live in
// sort_keys (free after the gather) and body_color[0, N] (free after the colouring) holds the
// counts, then the cursors. The GPU backend records all this, and the overflow sweeps, only
// when it records every colour: with fewer, a left-over unit redoes the step (color_groups).

// Unit u's side entries, counted per dynamic body.
void count_unit_sides(uint u) {
  uvec2 ab = unit_bodies(u);
  if (body_dynamic(ab.x)) atomicAdd(body_color[ab.x], 1u);
  if (body_dynamic(ab.y)) atomicAdd(body_color[ab.y], 1u);
}

// After the exclusive scan of the counts: unit u's entries into their bodies' runs (in atomic
// order).
void fill_unit_sides(uint u) {
  uvec2 ab = unit_bodies(u);
  if (body_dynamic(ab.x)) sort_keys[atomicAdd(body_color[ab.x], 1u)] = 2u * u;
  if (body_dynamic(ab.y)) sort_keys[atomicAdd(body_color[ab.y], 1u)] = 2u * u + 1u;
}

// Overflow unit t of colour list k.
void overflow_count(uint k, uint t) {
  uint u = colored_unit(k, t);
  if (u != VKPHYS_UNCOLORED) count_unit_sides(u);
}

void overflow_fill(uint k, uint t) {
  uint u = colored_unit(k, t);
  if (u != VKPHYS_UNCOLORED) fill_unit_sides(u);
}

// After the fill, each cursor stands at the end of its body's run: the body's range, its run
// put in entry order (insertion sort: a body's overflow units are few).
void overflow_order(uint b) {
  uint end = body_color[b];
  uint begin = b == 0u ? 0u : body_color[b - 1u];
  body_range[b] = uvec2(begin, end);
  for (uint s = begin + 1u; s < end; ++s) {
    uint e = sort_keys[s];
    uint t = s;
    for (; t > begin && sort_keys[t - 1u] > e; --t) sort_keys[t] = sort_keys[t - 1u];
    sort_keys[t] = e;
  }
}

// The GPU's Jacobi gather (shaders/world_jacobi_gather.glsl, particle contacts the only units)
// builds the same lists without the sort, as the overflow colour builds its own: each contact's
// sides counted per dynamic body, the counts scanned, the entries filled through the cursors
// into sort_keys, each body's run put in entry order by overflow_order. A body's run then holds
// the entries the sort gives it in the order the sort gives them (the radix sort is stable and
// starts from the entries in order), with 6 dispatches instead of the sort's passes (12 at 1M
// particles). A particle's run is short (its neighbours), which the insertion sort needs.
void incidence_count(uint c) {
  if (c < stored_pcontacts()) count_unit_sides(pcontact_unit_base() + c);
}

void incidence_fill(uint c) {
  if (c < stored_pcontacts()) fill_unit_sides(pcontact_unit_base() + c);
}

// Entry s of a body's range: Jacobi's sorted incidence list, or the overflow colour's.
uint incidence_entry(uint s) {
  return params.modes.x == VKPHYS_SCHEME_JACOBI ? sort_values[s] : sort_keys[s];
}

// ---- Particle contacts in colour order ----------------------------------------------------------
// The grid writes the particle contacts in owner order, and a colour takes about one contact in
// (colours) of them: a coloured sweep reached its contacts through the colour list and touched
// one 16-byte entry of each array per 32-byte memory sector, scattered over the whole list, at
// every one of the step's sweeps (1M particles on an H100: 12 colours x 33 sweeps of ~50 us,
// about 7x below the memory bandwidth, docs/benchmarks.md). After the colour sort the contacts
// are moved once per step into colour order, so each colour's contacts are one contiguous run
// that every sweep streams: the colour list k's particle contacts become contacts
// pcontact_list_first(k) .. + size. The gather copies them (the normals into pcontact_target,
// free until the targets), PCONTACT_SETTLE copies them back into place; the colour list, the
// unit colours and pcontact_origin follow, and the commit writes the warm-start lists through
// pcontact_origin in owner order, so the next step's lookup is unchanged. A colour's contacts
// share no dynamic body, so the order within a colour changes no result: the step's bits are
// those of the owner order on both backends.

// Where colour list k's particle contacts start in colour order (valid after color_groups).
uint pcontact_list_first(uint k) {
  return counters.pcontact_first[k >> 1u];
}

// Sorted position s (after color_range): a particle contact of a colour or of the overflow
// colour takes its place in colour order.
void pcontact_gather(uint s) {
  uint k = sort_keys[s];
  if ((k & 1u) == 0u || (k >> 1u) > params.coloring.x) return;
  uint base = pcontact_unit_base();
  uint from = sort_values[s] - base;
  uint to = pcontact_list_first(k) + (s - counters.color_start[k]);
  pcontact_origin[to] = from;
  pcontact_copy_bodies[to] = pcontact_bodies[from];
  pcontact_target[to] = pcontact_geom[from];
  pcontact_copy_lambda[to] = pcontact_lambda[from];
  uint slot = k >> 1u;
  unit_color[base + to] = slot == params.coloring.x ? VKPHYS_UNCOLORED : slot;
  sort_values[s] = base + to;
}

void pcontact_settle(uint c) {
  pcontact_bodies[c] = pcontact_copy_bodies[c];
  pcontact_geom[c] = pcontact_target[c];
  pcontact_lambda[c] = pcontact_copy_lambda[c];
}
