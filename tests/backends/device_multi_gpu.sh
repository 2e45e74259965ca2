#!/usr/bin/env bash
# Several --gpu entries in one device call (issue 18 item 5; issue 19 on a
# machine with several GPUs): the multi-GPU CUDA tests, every parity set on
# GPUS (default "all" where there are several GPUs, "0,0" on one), the
# scaling rows of the benchmark, and --batch against separate processes
# (BATCH_PAIRS pairs of BATCH_FRAMES 1080p frames). Run from the repository
# root on the GPU machine, with .devrun/bundle.tar.xz (scripts/device-bundle.sh
# ... --pack); logs in $OUT (summary.txt).
set -uo pipefail
source tests/backends/device_bundle_env.sh
ngpu=$(nvidia-smi -L | wc -l)
GPUS=${GPUS:-$([ "$ngpu" -gt 1 ] && echo all || echo 0,0)}
echo "gpus: $ngpu on this machine; --gpu $GPUS" | tee -a $S

# 1. the tests of several entries (and the rest of the backend's tests)
t0=$(date +%s)
timeout 600 $U/cuda_backend_test --gtest_filter="${TEST_FILTER:-*}" > $L/cuda_backend_test.log 2>&1; rc=$?
echo "cuda_backend_test: rc=$rc $(( $(date +%s) - t0 ))s $(grep -E '^\[  (PASSED|FAILED) ' $L/cuda_backend_test.log | tr '\n' ' ')" | tee -a $S
grep -E '^\[  FAILED  \] [A-Za-z]' $L/cuda_backend_test.log | sort -u | head -8 | sed 's/^/  /' | tee -a $S

# 2. every parity set and the three models, fp64 on and off, on GPUS
if [ -z "${NO_PARITY:-}" ]; then
  cp $S $L/summary.keep
  PARITY_ONLY=1 PARITY_ALL=1 PARITY_GPU=$GPUS PARITY_SECONDS=${PARITY_SECONDS:-240} \
    bash tests/backends/device_float_checks.sh > /dev/null 2>&1
  cat $S >> $L/summary.keep; mv $L/summary.keep $S
  grep -h "GPU [0-9]*: [0-9]* frames" $L/parity.log | head -3 | sed 's/^/  e.g. /' | tee -a $S
fi

# 3. scaling rows: one entry (threads:4) against GPUS's rows
if [ -x "$U/exactvmaf_bench" ] && [ -z "${NO_BENCH:-}" ]; then
  $U/exactvmaf_bench --benchmark_filter="${BENCH_FILTER:-^(vmaf_v0.6.1|float_adm|ciede)/(cuda/.*/threads:4|cuda-gpu0x2/.*|cuda-allgpus/.*)/memory}" \
    --benchmark_counters_tabular=true > $L/bench.txt 2>&1
  grep -E '^(vmaf|float_adm|ciede)' $L/bench.txt | tee -a $S
fi

# 4. --batch against separate processes: BATCH_PAIRS pairs of one 1080p clip
if [ -z "${NO_BATCH:-}" ]; then
  pairs=${BATCH_PAIRS:-100}; frames=${BATCH_FRAMES:-240}
  d=/tmp/batchbench; mkdir -p $d
  head -c $((1920 * 1080 * 3 / 2 * frames)) /dev/urandom > $d/ref.yuv
  head -c $((1920 * 1080 * 3 / 2 * frames)) /dev/urandom > $d/dist.yuv
  args="-r $d/ref.yuv -d $d/dist.yuv -w 1920 -h 1080 -p 420 -b 8 --backend cuda --json -q"
  : > $d/pairs.txt
  for i in $(seq 1 $pairs); do echo "$args -o $d/b_$i.json" >> $d/pairs.txt; done
  $U/exactvmaf $args -o $d/warm.json  # page cache and driver warm
  t0=$(date +%s.%N); for i in $(seq 1 $pairs); do $U/exactvmaf $args -o $d/s_$i.json; done; t1=$(date +%s.%N)
  $U/exactvmaf --batch $d/pairs.txt 2> $L/batch.log; rc=$?; t2=$(date +%s.%N)
  same=0
  for i in $(seq 1 $pairs); do
    diff <(grep -v '"fps"' $d/s_$i.json) <(grep -v '"fps"' $d/b_$i.json) > /dev/null && same=$((same + 1))
  done
  awk -v a=$t0 -v b=$t1 -v c=$t2 -v rc=$rc -v same=$same -v n=$pairs -v f=$frames 'BEGIN {
    printf "batch: %d pairs of %d 1080p frames, vmaf_v0.6.1, cuda: %d separate runs %.2f s, --batch %.2f s (rc %d); %d of %d reports equal the separate runs'"'"' (but fps)\n",
      n, f, n, b - a, c - b, rc, same, n }' | tee -a $S
  # the start-up phases (EXACTVMAF_STARTUP_TRACE) of three runs of one pair
  for k in 1 2 3; do
    EXACTVMAF_STARTUP_TRACE=1 $U/exactvmaf $args -o $d/trace.json 2> $L/startup_$k.log
    echo "startup trace, run $k (ms): $(grep -E ' (main|models loaded|backend chosen|inputs started|worker 0 ready|first frame|last frame)' $L/startup_$k.log |
      sed -E 's/startup: +([0-9.]+) ms ([^(]*[^( ]).*/\2 \1/' | tr '\n' ';')" | tee -a $S
  done
  rm -rf $d
fi
