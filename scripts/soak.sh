#!/usr/bin/env bash
# The long soak of issue 13 (not a CI test): each scene runs STEPS steps under `vkphys soak`,
# which samples energy, momentum, penetration, resident memory, open files and device memory
# every EVERY steps into out/soak/NAME_BACKEND/soak.csv, writes a checkpoint at each sample,
# replays the last stretch from the checkpoint before it (the same bits, or it fails) and
# fails on a NaN, energy above its settled value, or memory or file growth (docs/soak.md).
#   scripts/soak.sh                          the issue's sizes: a 10,000-box pile and a 100k-
#                                            particle box, 1,000,000 CPU and 100,000 GPU steps
#   SOAK_STEPS_CPU=20000 SOAK_STEPS_GPU=2000 SOAK_BOXES=1000 SOAK_PARTICLES=2400 scripts/soak.sh
#   SOAK_BACKENDS=cpu scripts/soak.sh        one backend only
# A soak whose folder holds one already (run.json and its checkpoint) is continued from its last
# checkpoint (`vkphys soak --resume`), so the script run again, on another day, carries a soak
# longer than a session on; SOAK_FRESH=1 starts every soak over.
# The scenes: `export-scene box-rain` (SOAK_BOXES boxes raining into a box, settling into a
# pile) and `export-scene particle-box` (SOAK_PARTICLES particles on the floor of a closed box,
# the kind of scenes/particles_box.json). Exit status: 1 if any soak failed.
set -euo pipefail
cd "$(dirname "$0")/.."
vkphys=${VKPHYS:-build/release/tools/vkphys}
[ -x "$vkphys" ] || { cmake --preset release > /dev/null && cmake --build --preset release -j2; }
steps_cpu=${SOAK_STEPS_CPU:-1000000}
steps_gpu=${SOAK_STEPS_GPU:-100000}
every=${SOAK_EVERY:-1000}
mkdir -p out/soak
"$vkphys" export-scene box-rain --size "${SOAK_BOXES:-10000}" --out out/soak/pile.json > /dev/null
"$vkphys" export-scene particle-box --size "${SOAK_PARTICLES:-100000}" \
  --out out/soak/particles.json > /dev/null
status=0
for backend in ${SOAK_BACKENDS:-cpu gpu}; do
  steps=$steps_cpu
  [ "$backend" = gpu ] && steps=$steps_gpu
  for name in pile particles; do
    echo "soak.sh: $name on $backend, $steps steps"
    dir="out/soak/${name}_$backend"
    if [ -z "${SOAK_FRESH:-}" ] && [ -f "$dir/run.json" ] && [ -f "$dir/checkpoint.snapshot" ]; then
      "$vkphys" soak --resume "$dir" --steps "$steps" || status=1
    else
      "$vkphys" soak "out/soak/$name.json" --backend "$backend" --steps "$steps" \
        --sample-every "$every" --out "$dir" || status=1
    fi
  done
done
exit $status
