#!/usr/bin/env bash
# Where a short clip's time goes on CUDA (issue 18 item 1), in one device call:
# for 240-frame 1080p and 4K pairs of random 4:2:0 frames (page cache warm),
# vmaf_v0.6.1 --backend cuda, three runs each with EXACTVMAF_STARTUP_TRACE=1:
# every phase in ms since the process began, the process's wall time as the
# shell sees it (so what follows "report written" is the exit), and the
# whole-process fps. Run from the repository root on the GPU machine with
# .devrun/bundle.tar.xz (scripts/device-bundle.sh ... --pack); logs in $OUT.
# CLIS: the exactvmaf binaries to compare (default the bundle's), each run
# in turn on the same files.
set -uo pipefail
source tests/backends/device_bundle_env.sh
CLIS=${CLIS:-$U/exactvmaf}
d=/tmp/startup; mkdir -p $d
frames=${FRAMES:-240}
for size in ${SIZES:-1920x1080 3840x2160}; do
  w=${size%x*}; h=${size#*x}
  bytes=$((w * h * 3 / 2 * frames))
  head -c $bytes /dev/urandom > $d/ref.yuv & head -c $bytes /dev/urandom > $d/dist.yuv & wait
  args="-r $d/ref.yuv -d $d/dist.yuv -w $w -h $h -p 420 -b 8 --backend cuda --json -q -o $d/out.json"
  $U/exactvmaf $args 2> /dev/null  # page cache and driver warm
  for k in 1 2 3; do
    for cli in $CLIS; do
      log=$L/trace_${size}_$(basename $cli)_$k.log
      t0=$(date +%s%N)
      EXACTVMAF_STARTUP_TRACE=1 $cli $args 2> $log
      t1=$(date +%s%N)
      wall=$(( (t1 - t0) / 1000000 ))
      phases=$(grep -E ' ms (main|models loaded|inputs opened|cuda starting|backend chosen|inputs started|worker 0 ready|hand-over|first frame committed|last frame committed|run returned|report written)' \
        $log | sed -E 's/startup: +([0-9.]+) ms ([^(]*[^( ]).*/\2 \1/' | tr '\n' ';')
      echo "$size $(basename $cli) run $k: process wall ${wall} ms, $(awk -v f=$frames -v w=$wall 'BEGIN {printf "%.0f", f * 1000 / w}') fps whole process; $phases" | tee -a $S
    done
  done
  rm -f $d/ref.yuv $d/dist.yuv
done
