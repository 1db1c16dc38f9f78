#!/usr/bin/env bash
# vkphys on a lent NVIDIA GPU, adapted from shared/tools/device-check.sh: that machine has no
# package registry, so the binaries are built on the development VM (ci preset, Release -O3) and
# carried with the Debian 12 libraries they need (.devrun/lib) and the validation layer.
# Usage, after scripts/gpu-device-prepare.sh here: on the lent machine, carrying .devrun,
# build/ci/tools/vkphys and build/ci/tests/vkphys_tests,
#   bash scripts/gpu-device-run.sh [BUDGET_S] [MODE]
# MODE:
#   full    bench all, 1M particles, Jacobi rigid, then every gtest case
#   final   particles up to 1M, the rigid workloads, cloth_hang with and without tethers, the
#           drape at 64² to 256² by every method and at 512² compliant, then every case (those
#           named in $first first)
#   speed   100k and 1M particles and the rigid workloads (the floors), each also timed with
#           pipelined steps (--batch 10)
#   check   speed's benches, then every case
#   jacobi  particles and the rigid workloads under the Jacobi scheme, cloth_hang and the
#           compliant drape at 64² to 256², then the cases
#   soak    the 100,000-box bench, the cases (name a few with ONLY: every case would leave the
#           soak no time), then issue 13's GPU soak (below)
#   bench   the benches only
# ONLY (an extended regular expression) runs only the cases it matches; KEEP keeps the logs of
# the passing cases it matches too. Every case runs in its own process with the validation layer
# on in the tests' shared contexts. Results under $OUT: summary.txt, the bench logs, results.tsv
# and logs.tar.gz (the logs of the cases that did not pass, and of those KEEP matches).
set -u -o pipefail
START=$(date +%s)
BUDGET=${1:-400}
MODE=${2:-full}
ROOT=$PWD
O=/tmp/o
mkdir -p "$O/tests"
left() { echo $((START + BUDGET - $(date +%s))); }
note() { echo "[$(($(date +%s) - START))s] $*" | tee -a "$O/progress.log"; }

# The tests find the scenes through VKPHYS_SOURCE_DIR, baked in as /work/main.
if [ "$ROOT" != /work/main ] && [ ! -e /work/main ]; then mkdir -p /work && ln -s "$ROOT" /work/main; fi

# The NVIDIA Vulkan driver (libGLX_nvidia) needs libglvnd's dispatch libraries, which that
# machine's image lacks: Debian 12's, unpacked into / as the device README says.
{
  uname -r; ls -l /dev/nvidia* 2>&1 | head; echo "NVIDIA_DRIVER_CAPABILITIES=${NVIDIA_DRIVER_CAPABILITIES-unset}"
  echo "--- ldd before"; ldd /usr/local/nvidia/lib64/libGLX_nvidia.so.0 2>&1 | grep -i "not found"
} >"$O/pre.log" 2>&1
for f in "$ROOT"/.devrun/gl/*.deb; do dpkg -x "$f" /; done
ldconfig
echo "--- ldd after" >>"$O/pre.log"; ldd /usr/local/nvidia/lib64/libGLX_nvidia.so.0 2>&1 | grep -i "not found" >>"$O/pre.log"
export LD_LIBRARY_PATH=$ROOT/.devrun/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VK_LAYER_PATH=$ROOT/.devrun/layers
export __GL_SHADER_DISK_CACHE=1 __GL_SHADER_DISK_CACHE_PATH=/tmp/nvcache __GL_SHADER_DISK_CACHE_SKIP_CLEANUP=1
mkdir -p /tmp/nvcache

{
  date -u; nproc; free -g | head -2
  nvidia-smi --query-gpu=name,driver_version,memory.total,mig.mode.current,clocks.max.sm --format=csv
  for d in /etc/vulkan/icd.d /usr/share/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d; do ls -l "$d" 2>/dev/null; done
} >"$O/env.log" 2>&1
cat "$O/pre.log" >>"$O/env.log"
VK=$ROOT/build/ci/tools/vkphys
# Find a driver manifest the loader accepts: each one on the machine, then one written for each
# libGLX_nvidia.so.0 found, with that library's folder on the library path.
{
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  for f in /etc/vulkan/icd.d/*.json /usr/share/vulkan/icd.d/*.json /usr/local/nvidia/share/vulkan/icd.d/*.json; do echo "== $f"; cat "$f"; done
  find /usr /lib /lib64 \( -name 'libGLX_nvidia.so*' -o -name 'libnvidia-glvkspirv*' \) 2>/dev/null | head
} >>"$O/env.log" 2>&1
cands=()
for f in /etc/vulkan/icd.d/*.json /usr/share/vulkan/icd.d/*.json /usr/local/nvidia/share/vulkan/icd.d/*.json; do
  [ -f "$f" ] && grep -qi nvidia "$f" && cands+=("$f")
done
i=0
for lib in $(find /usr /lib /lib64 -name 'libGLX_nvidia.so.0' 2>/dev/null | head -n 3); do
  i=$((i + 1))
  printf '{"file_format_version":"1.0.1","ICD":{"library_path":"%s","api_version":"1.3.0"}}\n' "$lib" >/tmp/nv_icd$i.json
  cands+=("/tmp/nv_icd$i.json:$(dirname "$lib")")
done
GPU_OK=0
for c in "${cands[@]}"; do
  f=${c%%:*}
  d=""; [ "$f" != "$c" ] && d=${c#*:}
  export VK_DRIVER_FILES=$f VK_ICD_FILENAMES=$f
  [ -n "$d" ] && export LD_LIBRARY_PATH=$ROOT/.devrun/lib:$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  timeout 60 "$VK" info >"$O/info.log" 2>&1
  echo "try $c: $(grep -ci nvidia "$O/info.log") nvidia lines" >>"$O/env.log"
  if grep -qi nvidia "$O/info.log"; then GPU_OK=1; break; fi
done
cat "$O/info.log" >>"$O/env.log"
if [ "$GPU_OK" != 1 ]; then
  VK_LOADER_DEBUG=error,warn,driver timeout 60 "$VK" info >>"$O/env.log" 2>&1
  note "NO NVIDIA VULKAN DEVICE"
  cp "$O/env.log" "$OUT/summary.txt"
  tail -n 60 "$O/env.log"
  exit 1
fi
note "info: $(grep -i -m1 nvidia "$O/env.log" | cut -c1-120)"

bench() { # name cap args...
  local name=$1 cap=$2
  shift 2
  local l
  l=$(left)
  ((l - 20 < cap)) && cap=$((l - 20))
  ((cap < 15)) && { note "$name: skipped"; return; }
  note "$name: start (cap ${cap}s)"
  timeout -k 5 "$cap" "$VK" --device nvidia bench "$@" >"$O/bench-$name.log" 2>&1
  note "$name: status $?"
}
nvidia-smi --query-gpu=timestamp,clocks.sm,utilization.gpu,power.draw --format=csv -lms 500 >"$O/smi.csv" 2>&1 &
SMI=$!
if [ "$MODE" = final ]; then
  bench particles 45 particles --sizes 1000,10000,100000,1000000 --backend gpu
  bench rigid 60 rigid --backend gpu
  bench cloth-hang 40 cloth_hang --backend gpu
  bench cloth-hang-tethers 40 cloth_hang --backend gpu --tethers euclidean
  bench cloth 60 cloth --sizes 64,128,256 --method all --backend gpu
  bench cloth512 40 cloth --sizes 512 --method compliant --backend gpu
elif [ "$MODE" = soak ]; then
  bench boxes 30 boxes --sizes 100000 --backend gpu
elif [ "$MODE" = jacobi ]; then
  bench particles-jacobi 40 particles --sizes 100000,1000000 --scheme jacobi --backend gpu
  bench rigid-jacobi 45 rigid --scheme jacobi --backend gpu
  bench cloth-hang 30 cloth_hang --backend gpu
  bench cloth 40 cloth --sizes 64,128,256 --backend gpu
elif [ "$MODE" = speed ] || [ "$MODE" = check ]; then
  bench particles 45 particles --sizes 100000,1000000 --backend gpu
  bench rigid 60 rigid --backend gpu
  # Pipelined steps (stop 49): the same workloads timed in calls of 10 steps.
  bench particles-batched 45 particles --sizes 1000,100000,1000000 --backend gpu --batch 10
  bench rigid-batched 60 rigid --backend gpu --batch 10
else
  bench all 150 all --backend gpu
  bench particles1m 60 particles --sizes 1000000 --backend gpu
  bench jacobi 45 rigid --scheme jacobi --backend gpu
fi
kill $SMI 2>/dev/null

if [ "$MODE" != bench ] && [ "$MODE" != speed ]; then
  T=$ROOT/build/ci/tests/vkphys_tests
  "$T" --gtest_list_tests >"$O/tests/all.txt" 2>&1
  # The tests this session changed or that failed on the card come first, then the rest.
  first='GpuVsCpu|GpuSyncValidation|FusedSolve|OverflowColor|StepTraffic|RecordCounts|DeviceSpeed|ShippedScene|Tether|PipelineCache|ImplicitOnGpu|ApiShared|Particle|Api|Compare'
  awk '/^[^ ]/ {s=$1; next} /^  / {print s $1}' "$O/tests/all.txt" >"$O/tests/list.txt"
  { grep -E "$first" "$O/tests/list.txt"; grep -vE "$first" "$O/tests/list.txt"; } |
    grep -E "${ONLY:-.}" >"$O/tests/names.txt"
  run_one() {
    local n=$1 log t0 rc st
    log="$O/tests/$(printf '%s' "$n" | tr '/:' '__').log"
    t0=$(date +%s)
    (cd "$(dirname "$T")" && timeout -k 5 120 "$T" --gtest_filter="$n" --gtest_color=no) >"$log" 2>&1
    rc=$?
    st=PASS
    if ((rc == 124 || rc == 137)); then st=TIMEOUT; elif ((rc != 0)); then st=FAIL; elif grep -q '^\[  SKIPPED \]' "$log"; then st=SKIP; fi
    printf '%s\t%s\t%s\t%s\n' "$st" $(($(date +%s) - t0)) "$(grep -c 'VALIDATION' "$log")" "$n" >>"$O/tests/results.tsv"
    [ "$st" = PASS ] && ! printf '%s' "$n" | grep -qE "${KEEP:-^$}" && rm -f "$log"
    return 0
  }
  export -f run_one
  export O T KEEP VKPHYS_REQUIRE_GPU=1 VKPHYS_TEST_DEVICE=nvidia
  cap=$(($(left) - 15))
  note "tests: $(wc -l <"$O/tests/names.txt") cases, cap ${cap}s"
  : >"$O/tests/results.tsv"
  # shellcheck disable=SC2016 # $1 is the inner shell's
  timeout -k 5 "$cap" xargs -P 15 -I{} bash -c 'run_one "$1"' _ {} <"$O/tests/names.txt"
  note "tests: $(awk -F'\t' '{n[$1]++} END {for (s in n) printf "%s %d  ", s, n[s]}' "$O/tests/results.tsv") of $(wc -l <"$O/tests/names.txt") (the rest not run: time)"
fi

# Issue 13's GPU soak (docs/soak.md): the 10,000-box pile for SOAK_STEPS (100,000) steps and
# the 100,000-particle box for SOAK_PARTICLE_STEPS (100,000), in the order SOAK_ORDER names them
# ("pile particles"), each in what the budget leaves, a sample every 1,000 steps; each soak's
# csv and output come back as soak-NAME.csv and soak-NAME.log.
soak() { # name steps
  local name=$1 steps=$2 l
  l=$(($(left) - 10))
  ((l < 20)) && { note "soak $name: skipped"; return; }
  note "soak $name: $steps steps (cap ${l}s)"
  timeout -k 5 "$l" "$VK" soak "/tmp/$name.json" --backend gpu --steps "$steps" \
    --sample-every 1000 --out "/tmp/soak-$name" >"$OUT/soak-$name.log" 2>&1
  note "soak $name: status $?"
  cp "/tmp/soak-$name/soak.csv" "$OUT/soak-$name.csv" 2>/dev/null
}
if [ "$MODE" = soak ]; then
  "$VK" export-scene box-rain --size 10000 --out /tmp/pile.json >/dev/null
  "$VK" export-scene particle-box --size 100000 --out /tmp/particles.json >/dev/null
  for which in ${SOAK_ORDER:-pile particles}; do
    case $which in
      pile) soak pile "${SOAK_STEPS:-100000}" ;;
      particles) soak particles "${SOAK_PARTICLE_STEPS:-100000}" ;;
      *) note "SOAK_ORDER: no soak named $which (pile, particles)" ;;
    esac
  done
fi

{
  cat "$O/env.log"
  echo "--- progress"; cat "$O/progress.log"
  for f in "$O"/bench-*.log; do echo "--- $f"; grep -E '^device|^\||rror|redos' "$f" | cut -c1-400; done
  for f in "$OUT"/soak-*.log; do
    [ -f "$f" ] || continue
    # The soak's progress line is rewritten in place (carriage returns): its other lines only.
    echo "--- $f"; tr '\r' '\n' <"$f" | grep -v '^step ' | tail -n 6
    echo "last sample: $(tail -n 1 "${f%.log}.csv" 2>/dev/null)"
  done
  if [ -s "$O/tests/results.tsv" ]; then
    echo "--- tests not passing"
    grep -v '^PASS' "$O/tests/results.tsv" | sort
    echo "--- validation messages in passing tests: $(awk -F'\t' '$1=="PASS" && $3>0' "$O/tests/results.tsv" | wc -l)"
    echo "--- slowest"; sort -t$'\t' -k2,2nr "$O/tests/results.tsv" | head -n 15
  fi
  echo "--- max SM MHz / power"
  awk -F', ' '!/^timestamp/ {gsub(/ MHz/,"",$2); gsub(/ W/,"",$4); if ($2+0>s) s=$2+0; if ($4+0>p) p=$4+0} END {print s, p}' "$O/smi.csv"
} >"$OUT/summary.txt" 2>&1
cp "$O"/bench-*.log "$OUT/" 2>/dev/null
[ -s "$O/tests/results.tsv" ] && cp "$O/tests/results.tsv" "$OUT/"
(cd "$O/tests" && ls ./*.log >/dev/null 2>&1 && tar czf "$OUT/logs.tar.gz" ./*.log)
tail -n 80 "$OUT/summary.txt"
