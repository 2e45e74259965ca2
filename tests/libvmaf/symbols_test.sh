#!/bin/sh
# libvmaf.so.3 exports exactly the functions its headers declare (no
# exactvmaf internals, nothing missing) and has libvmaf's soname.
#   usage: symbols_test.sh LIBVMAF_SO INCLUDE_LIBVMAF_DIR
set -eu
lib=$1
headers=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Declarations start a line: "int vmaf_x(", "void vmaf_x(", "const char *vmaf_x(".
sed -n -E 's/^(int|void|const char \*) *(vmaf_[a-z0-9_]+)\(.*/\2/p' "$headers"/*.h | sort -u >"$tmp/declared"
nm -D --defined-only "$lib" | awk '$2 ~ /^[A-Za-z]$/ && $2 != "U" { print $3 }' | sed 's/@.*//' | sort -u >"$tmp/exported"

status=0
if ! cmp -s "$tmp/declared" "$tmp/exported"; then
  echo "declared by include/libvmaf but not exported:"; comm -23 "$tmp/declared" "$tmp/exported" | sed 's/^/  /'
  echo "exported but not declared:"; comm -13 "$tmp/declared" "$tmp/exported" | sed 's/^/  /'
  status=1
fi
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "libvmaf.so.3" ]; then
  echo "soname is '$soname', expected libvmaf.so.3"
  status=1
fi
echo "libvmaf symbols: $(wc -l <"$tmp/declared") declared, $(wc -l <"$tmp/exported") exported, soname $soname"
exit $status
