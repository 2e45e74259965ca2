#!/usr/bin/env bash
# The feature template's promise (docs/design.md §6), checked on a scratch
# copy of this checkout: a new feature needs its folder and one registry
# line. Copies src/features/null to a new feature "probe_feature", adds its
# line to the registry in src/features/CMakeLists.txt, configures and builds
# the CLI (CPU-only), and checks that `exactvmaf --list-features` lists the
# feature and that it runs on a fixture pair; prints every file the change
# touched. Fails if anything but the new folder and that one line changed.
#   scripts/check-new-feature.sh [SCRATCH_DIR]   (default: a temporary directory, removed afterwards)
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -ge 1 ]; then
  scratch="$1"
  mkdir -p "$scratch"
else
  scratch="$(mktemp -d)"
  trap 'rm -rf "$scratch"' EXIT
fi
tree="$scratch/tree"
build="$scratch/build"
name=probe_feature
rm -rf "$tree"
mkdir -p "$tree"

# The checkout as it is (tracked and new files, uncommitted changes included).
(cd "$src" && git ls-files -z --cached --others --exclude-standard) |
  while IFS= read -r -d '' f; do [ -e "$src/$f" ] && printf '%s\0' "$f"; done |
  (cd "$src" && xargs -0 cp --parents -t "$tree")
git -C "$tree" init -q
git -C "$tree" add -A
git -C "$tree" -c user.name=check -c user.email=check@localhost commit -q -m "the checkout"

# The new feature: its folder...
mkdir "$tree/src/features/$name"
for f in "$tree/src/features/null"/*; do
  base="$(basename "$f")"
  sed -e "s/null_/${name}_/g" -e "s/\"null\"/\"$name\"/g" -e "s/NAME null /NAME $name /" \
      -e "s/^\/\/ null: /\/\/ $name (scripts\/check-new-feature.sh): /" "$f" > "$tree/src/features/$name/${base//null/$name}"
done
# ...and its one registry line.
sed -i "s/^add_subdirectory(null)\$/&\nadd_subdirectory($name)/" "$tree/src/features/CMakeLists.txt"

git -C "$tree" add -A
echo "files the new feature touched:"
git -C "$tree" status --porcelain | sed 's/^/  /'
added="$(git -C "$tree" diff --cached --name-only --diff-filter=A | grep -c "^src/features/$name/" || true)"
others="$(git -C "$tree" diff --cached --name-only | grep -vc "^src/features/$name/" || true)"
changed_lines="$(git -C "$tree" diff --cached --numstat -- src/features/CMakeLists.txt | awk '{print $1 + $2}')"

cmake -S "$tree" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEXACTVMAF_CUDA=OFF -DEXACTVMAF_TESTS=OFF \
      -DEXACTVMAF_BENCH=OFF > "$scratch/configure.log"
cmake --build "$build" --target exactvmaf_cli > "$scratch/build.log"
listed=no
features="$("$build/tools/exactvmaf" --list-features)"
grep -qx "$name" <<<"$features" && listed=yes
fix="$tree/tests/fixtures"
ran=no
"$build/tools/exactvmaf" -r "$fix/c01_176x144_8b_420_ref.y4m" -d "$fix/c01_176x144_8b_420_dist.y4m" \
  -n --feature "$name" -q --json -o "$scratch/out.json" && ran=yes

echo "new files in src/features/$name: $added; other files changed: $others" \
     "(src/features/CMakeLists.txt: $changed_lines line(s)); --list-features lists $name: $listed; it runs: $ran"
if [ "$added" -ge 2 ] && [ "$others" -eq 1 ] && [ "$changed_lines" = 1 ] && [ "$listed" = yes ] && [ "$ran" = yes ]; then
  echo "check-new-feature: PASS (the folder plus one registry line)"
else
  echo "check-new-feature: FAIL"
  exit 1
fi
