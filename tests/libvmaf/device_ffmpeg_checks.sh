# The libvmaf C API's steps of tests/backends/device_checks.sh (sourced by
# it: uses its bundle, logs, summary, status, mode and make_input). The
# bundle holds the FFmpeg that scripts/ffmpeg-client.sh built (it needs the
# network, so it runs before bundling):
#   scripts/ffmpeg-client.sh BUILD_DIR && scripts/device-bundle.sh BUILD_DIR .devrun --pack
# (libvmaf_cuda_test, the vmaf_cuda_* path against the CPU, runs with the
# other *cuda*_test binaries.)
#   1. ffmpeg_client_test with FFmpeg's side on CUDA: every FFmpeg log equals
#      the CPU CLI's report (fps aside) and the R goldens;
#   2. with "bench": 1080p and 4K through FFmpeg's libvmaf filter on cpu and
#      cuda beside the CLI on cpu and cuda, in one run: fps, and the CUDA
#      reports against the CPU's. SIZES (default "1920x1080:300
#      3840x2160:120") and THREADS (default: every core) change it.
# shellcheck shell=bash
if [ ! -x "$bundle/ffmpeg" ] || [ ! -x "$bundle/ffmpeg_client_test" ]; then
  echo "libvmaf under FFmpeg: no ffmpeg or ffmpeg_client_test in the bundle (scripts/ffmpeg-client.sh BUILD_DIR first)" |
    tee -a "$summary"
  status=1
else
  export EXACTVMAF_FFMPEG="$bundle/ffmpeg" EXACTVMAF_CLI="$bundle/exactvmaf" EXACTVMAF_LIBVMAF_DIR="$bundle/lib"
  export EXACTVMAF_TEST_SCRATCH="$logs/ffmpeg-client-runs"
  EXACTVMAF_FFMPEG_TEST_BACKEND=cuda "$bundle/ffmpeg_client_test" > "$logs/ffmpeg_client_test_cuda.log" 2>&1
  rc=$?
  echo "ffmpeg_client_test (FFmpeg on cuda): exit $rc; $(grep -E '^\[  (PASSED|FAILED)  \]' "$logs/ffmpeg_client_test_cuda.log" | tr '\n' ' ')" |
    tee -a "$summary"
  grep -E '^\[  FAILED  \] [A-Za-z]' "$logs/ffmpeg_client_test_cuda.log" | sort -u | sed 's/^/  /' | tee -a "$summary"
  [ $rc -eq 0 ] || status=1
fi

if [ "$mode" = bench ] && [ -x "$bundle/ffmpeg" ]; then
  threads="${THREADS:-$(nproc)}"
  report() { echo "$logs/$1_${w}x${h}_$2.json"; }  # TOOL BACKEND
  # TOOL BACKEND COMMAND...: runs it; its row: fps from its report and from the wall clock.
  timed() {
    local tool=$1 backend=$2 t0 t1 rc fps
    shift 2
    t0=$(date +%s.%N)
    "$@" 2> "$logs/${tool}_${w}x${h}_${backend}.stderr"
    rc=$?
    t1=$(date +%s.%N)
    [ $rc -eq 0 ] || { status=1; echo "$tool $backend ${w}x${h}: exit $rc" | tee -a "$summary"; }
    fps=$(sed -n 's/^  "fps": \([0-9.]*\),$/\1/p' "$(report "$tool" "$backend")" 2>/dev/null)
    printf '%-10s %-12s %10s %12s\n' "${w}x${h}" "$tool $backend" "$fps" \
      "$(awk -v n="$frames" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", n / (b - a) }')" | tee -a "$summary"
  }
  printf '%-10s %-12s %10s %12s\n' size run "fps (log)" "fps (wall)" | tee -a "$summary"
  for size in ${SIZES:-1920x1080:300 3840x2160:120}; do
    w=${size%%x*}; rest=${size#*x}; h=${rest%%:*}; frames=${size##*:}
    ref="$(make_input "$w" "$h" "$frames")"
    dist="$work/d_${w}x${h}.yuv"  # another random clip
    [ -s "$dist" ] || head -c $((w * h * 3 / 2 * frames)) /dev/urandom > "$dist"
    cat "$ref" "$dist" > /dev/null  # into the page cache
    raw=(-f rawvideo -pix_fmt yuv420p -s "${w}x${h}")
    cli=("$bundle/exactvmaf" -r "$ref" -d "$dist" -w "$w" -h "$h" -p 420 -b 8 -q --json)
    timed cli cpu "${cli[@]}" --threads "$threads" -o "$(report cli cpu)"
    timed cli cuda "${cli[@]}" --backend cuda -o "$(report cli cuda)"
    ff=("$bundle/ffmpeg" -nostdin -hide_banner -nostats "${raw[@]}" -i "$dist" "${raw[@]}" -i "$ref")
    timed ffmpeg cpu env EXACTVMAF_BACKEND=cpu "${ff[@]}" \
      -lavfi "[0:v][1:v]libvmaf=log_fmt=json:log_path=$(report ffmpeg cpu):n_threads=$threads" -f null -
    timed ffmpeg cuda env EXACTVMAF_BACKEND=cuda "${ff[@]}" \
      -lavfi "[0:v][1:v]libvmaf=log_fmt=json:log_path=$(report ffmpeg cuda)" -f null -
    grep -q ' on cuda (' "$logs/ffmpeg_${w}x${h}_cuda.stderr" ||
      { status=1; echo "ffmpeg ${w}x${h}: not on cuda" | tee -a "$summary"; }
    for pair in "ffmpeg cpu ffmpeg cuda" "cli cpu ffmpeg cpu" "cli cpu cli cuda"; do
      read -r t1 b1 t2 b2 <<< "$pair"
      if diff <(grep -v '"fps"' "$(report "$t1" "$b1")") <(grep -v '"fps"' "$(report "$t2" "$b2")") > /dev/null; then
        echo "  ${w}x${h}: $t1 $b1 = $t2 $b2 (reports, fps aside)" | tee -a "$summary"
      else
        echo "  ${w}x${h}: $t1 $b1 DIFFERS from $t2 $b2" | tee -a "$summary"
        status=1
      fi
    done
  done
fi
