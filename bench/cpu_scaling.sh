#!/usr/bin/env bash
# Where the CPU threads' time goes (issue 18 item 3): ours (--backend cpu)
# and upstream libvmaf at each thread count, vmaf_v0.6.1 on a raw 8-bit 4:2:0
# pair, interleaved. Per run: wall and CPU seconds (user + sys), the threads
# busy on average (CPU / wall), CPU milliseconds per frame and the CPUs'
# clock (cpu MHz of /proc/cpuinfo, sampled every 0.3 s: min / median / max).
# CPU ms per frame that grows with the thread count means slower threads
# (shared cores, clocks, memory); busy threads well below the count mean
# waiting (the pipeline, the readers). Where the host has SMT, the largest
# count runs again on one logical CPU per core (taskset).
#
#   [ROUNDS=2] [THREADS="16 8"] [FRAMES=N] bench/cpu_scaling.sh REF DIST WIDTH HEIGHT OURS UPSTREAM
#
# Uses bash's `time`, so it runs where /usr/bin/time is missing (the GPU
# machine).
set -uo pipefail
[ $# -eq 6 ] || { sed -n '2,15p' "$0"; exit 2; }
ref=$1 dist=$2 w=$3 h=$4 ours=$5 upstream=$6
frames=${FRAMES:-$(($(stat -c %s "$ref") / (w * h * 3 / 2)))}
args=(-r "$ref" -d "$dist" -w "$w" -h "$h" -p 420 -b 8 -q -m version=vmaf_v0.6.1 -o /dev/null --frame_cnt "$frames")
siblings=/sys/devices/system/cpu/cpu0/topology/thread_siblings_list
echo "$(nproc) logical CPUs; cpu0's siblings: $(cat $siblings 2>/dev/null || echo unknown);" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-); $frames frames ${w}x${h}"
per_core=$(for c in /sys/devices/system/cpu/cpu[0-9]*; do cut -d, -f1 "$c/topology/thread_siblings_list" | cut -d- -f1; done |
  sort -un | paste -sd,)
cores=$(echo "$per_core" | tr ',' '\n' | grep -c .)
mhz_sampler() { while :; do awk '/cpu MHz/ { s += $4; n++ } END { if (n) printf "%.0f\n", s / n }' /proc/cpuinfo; sleep 0.3; done; }
one_run() {  # label threads [taskset list] -> one line
  local label=$1 t=$2 pin=${3:-} cmd tm
  if [ "$label" = ours ]; then cmd=("$ours" --backend cpu); else cmd=("$upstream"); fi
  [ -n "$pin" ] && cmd=(taskset -c "$pin" "${cmd[@]}")
  mhz_sampler > /tmp/cpu_scaling_mhz.$$ &
  local sampler=$!
  TIMEFORMAT='%R %U %S'
  tm=$({ time "${cmd[@]}" "${args[@]}" --threads "$t" > /dev/null 2>&1; } 2>&1)
  kill $sampler 2> /dev/null
  wait $sampler 2> /dev/null
  local mhz
  mhz=$(sort -n /tmp/cpu_scaling_mhz.$$ | awk '{ a[NR] = $1 } END { if (NR) print a[1] "/" a[int(NR / 2) + 1] "/" a[NR]; else print "-" }')
  echo "$tm" | awk -v l="$label" -v t="$t" -v f="$frames" -v m="$mhz" -v p="${pin:+ (one per core)}" \
    '{ cpu = $2 + $3; printf "%-8s threads %2d%s: wall %6.2f s, cpu %7.2f s, busy %5.2f, cpu %6.2f ms/frame, %6.1f fps, MHz %s\n", l, t, p, $1, cpu, cpu / $1, 1000 * cpu / f, f / $1, m }'
}
for _ in $(seq "${ROUNDS:-2}"); do
  for t in ${THREADS:-16 8}; do
    one_run ours "$t"
    one_run upstream "$t"
  done
  if [ "$cores" -lt "$(nproc)" ]; then
    one_run ours "$cores" "$per_core"
    one_run upstream "$cores" "$per_core"
  fi
done
rm -f /tmp/cpu_scaling_mhz.$$
