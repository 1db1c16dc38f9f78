// The particles renumbered (solver.particle_reorder; why and in what order: host/sim/
// particle_order.h): what a particle contact's warm-start entry becomes. One rule for both
// backends: the CPU's relabelling of a checkpoint (host/sim/particle_order.cpp) and the GPU's on
// the device (shaders/particle_renumber.comp).
//
// Last step's particle contacts are listed under an owner (kernels/world_layout.h,
// prev_pcontact_*): a contact with a plane under its particle, a pair of particles under the
// lower one, with the normal from it to the other. An entry holds the other body (its low
// VKPHYS_PCONTACT_OTHER_BITS bits; above them its kept colour) and (lambda_n, the world friction
// impulse on the other body). After the renumbering a pair whose lower particle is now the other
// one is listed under it: the normal turns round, so the friction impulse changes sign and
// lambda_n does not. The kept colour stays with the contact: a colour is a property of the bodies
// it touches, not of their numbers.
#ifndef VKPHYS_KERNELS_PARTICLE_RENUMBER_H
#define VKPHYS_KERNELS_PARTICLE_RENUMBER_H
#include "kernels/common.h"
#include "kernels/world_layout.h"

KERNELS_BEGIN

struct RenumberedPcontact {
  uint holder;  // the particle (new number) whose list the entry joins
  uint other;   // the entry's word: the other body's new world index, its kept colour above
  vec4 lambda;  // (lambda_n, world friction impulse on the other body)
};

// The entry (word, lambda) of old particle p, now numbered `holder`, among `rigid` rigid bodies
// (the world's bodies below the particles); other_slot: the other body's new particle number when
// it is a particle (ignored otherwise).
KFN RenumberedPcontact renumber_pcontact(uint holder, uint word, vec4 lambda, uint rigid,
                                         uint other_slot) {
  RenumberedPcontact r;
  uint body = word & VKPHYS_PCONTACT_OTHER_MASK;
  r.holder = holder;
  r.lambda = lambda;
  if (body >= rigid) {
    body = rigid + other_slot;
    if (other_slot < holder) {
      body = rigid + holder;
      r.holder = other_slot;
      r.lambda = vec4(lambda.x, -lambda.y, -lambda.z, -lambda.w);
    }
  }
  r.other = body | (word & ~VKPHYS_PCONTACT_OTHER_MASK);
  return r;
}

KERNELS_END
#endif
