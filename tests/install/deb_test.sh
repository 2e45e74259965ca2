#!/usr/bin/env bash
# Builds the .deb (cpack -G DEB) of a built tree, unpacks it into a scratch
# root (dpkg -x), runs the CLI from there on a fixture with LD_LIBRARY_PATH
# unset, and fails unless every NEEDED library of every ELF file in the
# package is in the package itself or owned (dpkg -S) by a package that the
# .deb's Depends names.
#   tests/install/deb_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail  # no early-exiting reader in a pipeline (grep -q, head): SIGPIPE would fail it
build="$1"
src="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "deb_test: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/pkg" > "$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack failed"; }
deb="$(find "$work/pkg" -maxdepth 1 -name 'exactvmaf_*_amd64.deb' -print -quit)"
[ -n "$deb" ] || { ls "$work/pkg"; fail "no exactvmaf_<version>_amd64.deb"; }
echo "deb_test: $(basename "$deb"), $(du -h "$deb" | cut -f1)"
depends="$(dpkg-deb -f "$deb" Depends)"
[ -n "$depends" ] || fail "the .deb has no Depends (dpkg-shlibdeps did not run?)"
echo "deb_test: Depends: $depends"
# Package names in Depends ("libc6 (>= 2.34), libgmp10 (>= 2:6.2.1+dfsg1) | foo" -> libc6 libgmp10 foo).
depend_names=" $(tr ',|' '\n\n' <<<"$depends" | sed -E 's/\(.*\)//; s/:any//; s/^ +//; s/ +$//' | tr '\n' ' ') "

root="$work/root"
dpkg -x "$deb" "$root"
ref="$src/tests/fixtures/c01_176x144_8b_420_ref.y4m"
dist="$src/tests/fixtures/c01_176x144_8b_420_dist.y4m"
out="$(env -u LD_LIBRARY_PATH -u EXACTVMAF_MODEL_DIR "$root/usr/bin/exactvmaf" -r "$ref" -d "$dist" --json -q)" ||
  fail "the packaged CLI failed"
tr -d ' \n' <<<"$out" | grep -E '"vmaf":\{"min":[0-9.]+,"max":[0-9.]+,"mean":[0-9.]+' > /dev/null || fail "the packaged CLI printed no pooled vmaf"

own_libs="$(find "$root" -name '*.so*' -printf '%f\n')"
checked=0
while IFS= read -r -d '' f; do
  [ "$(head -c 4 "$f" | tr -d '\0')" = $'\x7fELF' ] || continue
  for lib in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    checked=$((checked + 1))
    if grep -xF "$lib" <<<"$own_libs" > /dev/null; then continue; fi
    path="$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ && !found {print $NF; found = 1}')"
    [ -n "$path" ] || fail "${f#"$root"} needs $lib, which this system cannot find"
    owner=""
    for p in "$path" "$(readlink -f "$path")" "${path#/usr}" "/usr$path"; do
      owner="$(dpkg -S "$p" 2>/dev/null | sed -n '1s/:.*//p')" || true
      [ -z "$owner" ] || break
    done
    [ -n "$owner" ] || fail "${f#"$root"} needs $lib ($path), which no Debian package owns"
    case "$depend_names" in *" $owner "*) ;; *) fail "${f#"$root"} needs $lib from $owner, not in Depends: $depends" ;; esac
  done
done < <(find "$root" -type f -print0)
[ "$checked" -gt 0 ] || fail "no NEEDED entries found (no ELF files in the package?)"
echo "deb_test: $checked NEEDED entries, each in the package or in Depends"
