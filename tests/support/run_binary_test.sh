#!/usr/bin/env bash
# One GoogleTest binary as one ctest entry (the ctest -L device entries):
#   run_binary_test.sh SKIP_TEXT BINARY [ARGS...]
# The binary's exit status decides first: non-zero is a failure, whatever it
# printed. A binary that exited 0 and printed SKIP_TEXT (a test skipped for
# want of a device) is reported skipped (exit 77, the entries'
# SKIP_RETURN_CODE).
set -u
skip_text="$1"
shift
out="$("$@" 2>&1)"
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 0 ]; then
  [ "$rc" -eq 77 ] && exit 1  # never mistaken for a skip
  exit "$rc"
fi
if grep -qF -- "$skip_text" <<<"$out"; then
  echo "run_binary_test: skipped ($skip_text)"
  exit 77
fi
exit 0
