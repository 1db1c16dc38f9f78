#!/usr/bin/env bash
# Builds the libFuzzer targets (preset fuzz, or VKPHYS_FUZZ_PRESET: asan, whose build has them
# too, as CI does; clang, ASan + UBSan) and runs each for SECONDS
# seconds: fuzz_scene_load (the scene loader and its write-back) and fuzz_scene_step (load and
# 3 CPU steps). Seeds: scenes/*.json; dictionary: fuzz/scene.dict. The corpus grows in
# build/fuzz/corpus/TARGET (kept between runs); a crash, a sanitizer report or a timeout is
# saved under build/fuzz/findings/ and makes the script fail. Turn each finding into a test.
#   scripts/fuzz.sh SECONDS [TARGET...]      e.g. nice scripts/fuzz.sh 600
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/fuzz.sh SECONDS [TARGET...]}
shift
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(fuzz_scene_load fuzz_scene_step)

preset=${VKPHYS_FUZZ_PRESET:-fuzz}
cmake --preset "$preset" > /dev/null
cmake --build build/"$preset" -j"${FUZZ_JOBS:-2}" --target "${targets[@]}"

status=0
for t in "${targets[@]}"; do
  corpus=build/fuzz/corpus/$t
  findings=build/fuzz/findings/$t
  mkdir -p "$corpus" "$findings"
  # Seeds up to -max_len (the large particle scenes list one generator per particle), from
  # scenes/ itself: scenes/large/ and the drape's sizes past 32 (cloth_drape_N.json) repeat
  # cloth_drape.json's fields at 4 to 64 times its load cost (1.5 s an input under ASan at 64²);
  # seeded with them a minute of the load target ran 11,646 inputs against 165,470 without.
  find scenes -maxdepth 1 -name "*.json" ! -name "cloth_drape_*.json" -size -64k \
    -exec cp -n {} "$corpus"/ \;
  echo "fuzz.sh: $t for ${seconds} s"
  # -timeout is wall-clock time: an input that runs in 0.3 s took over 10 s at nice 19 on a
  # loaded shared machine (two such false timeouts), so only a minute counts as a hang.
  build/"$preset"/fuzz/"$t" "$corpus" -dict=fuzz/scene.dict -max_total_time="$seconds" \
    -max_len=65536 -timeout=60 -rss_limit_mb=4096 -artifact_prefix="$findings/" \
    -print_final_stats=1 2>&1 | tail -n 25 || status=1
done
exit "$status"
