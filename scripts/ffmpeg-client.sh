#!/usr/bin/env bash
# Builds a real libvmaf client: FFmpeg from Debian's own source package of
# this machine's ffmpeg (5.1.x on Debian 12), configured minimally
# (--disable-everything plus the libvmaf filter and what `ffmpeg -f null`
# needs) against the build tree's libvmaf.pc, so it links our libvmaf.so.3.
#
#   usage: scripts/ffmpeg-client.sh BUILD_DIR [FFMPEG_DIR]
#
# BUILD_DIR is an exactvmaf build (with libvmaf/pkgconfig/libvmaf.pc);
# FFMPEG_DIR (default BUILD_DIR/ffmpeg-client) receives the source and the
# build. Idempotent: an FFmpeg already built with the same configuration and
# headers is reused; a header change only re-runs make. Prints the path of the
# ffmpeg binary as its last line. Needs root (or sudo) only the first time,
# to add a deb-src entry and install dpkg-dev and nasm.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 BUILD_DIR [FFMPEG_DIR]" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
ffmpeg_dir=${2:-$build_dir/ffmpeg-client}
pc_dir=$build_dir/libvmaf/pkgconfig
jobs=${JOBS:-$(nproc)}
log() { echo "ffmpeg-client: $*" >&2; }
die() { log "error: $*"; exit 1; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# The configuration: nothing but what the comparisons use.
configure_flags=(
  --disable-everything --disable-autodetect --disable-doc --disable-debug
  --disable-network --disable-ffplay --disable-ffprobe
  --enable-libvmaf
  --enable-filter=libvmaf,scale,format,setpts,settb
  --enable-demuxer=yuv4mpegpipe,rawvideo
  --enable-decoder=rawvideo
  --enable-protocol=file,pipe
  --enable-muxer=null
  --enable-encoder=wrapped_avframe
)
stamp_text="$(printf '%s\n' "${configure_flags[@]}" "$pc_dir")"

# A deb-src stanza for every deb entry of this machine's Debian release (its
# suites start with the release's codename: bookworm, bookworm-updates,
# bookworm-security), same URIs, suites, components and key; from deb822
# .sources files and one-line .list files.
deb_src_entries() {
  local codename f
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  [ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v release="$codename" '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && (" " suites) ~ (" " release "([- ]|$)"))
          printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n%s\n", uris, suites, comps,
                 (signed != "" ? "Signed-By: " signed "\n" : "")
        types = uris = suites = comps = signed = ""
      }
      /^[[:space:]]*#/ { next }
      /^[[:space:]]*$/ { flush(); next }
      { key = $1; sub(/:$/, "", key); $1 = ""; sub(/^ +/, "") }
      key == "Types" { types = $0 } key == "URIs" { uris = $0 } key == "Suites" { suites = $0 }
      key == "Components" { comps = $0 } key == "Signed-By" { signed = $0 }
      key == "Enabled" && $0 == "no" { types = "" }
      END { flush() }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    # "deb [options] URI SUITE COMPONENT..."
    awk -v release="$codename" '$1 == "deb" {
      i = 2; signed = ""
      if ($2 ~ /^\[/) {
        for (; i <= NF; i++) { if ($i ~ /signed-by=/) { signed = $i; sub(/.*signed-by=/, "", signed); sub(/\]$/, "", signed) }
                               if ($i ~ /\]$/) break }
        i++
      }
      if ($(i + 1) !~ ("^" release "(-|$)")) next
      printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:", $i, $(i + 1)
      for (j = i + 2; j <= NF; j++) printf " %s", $j
      printf "\n%s\n", (signed != "" ? "Signed-By: " signed "\n" : "")
    }' "$f"
  done
}

have_source() { ls -d "$ffmpeg_dir"/src/ffmpeg-*/configure >/dev/null 2>&1; }

fetch_source() {
  local list=/etc/apt/sources.list.d/exactvmaf-deb-src.sources
  if ! apt-get source --print-uris ffmpeg >/dev/null 2>&1; then
    local entries
    entries="$(deb_src_entries)"
    [ -n "$entries" ] || die "no deb entry for this Debian release in /etc/apt/sources.list{,.d/} to mirror as deb-src"
    log "adding $list (deb-src for this machine's Debian entries)"
    printf '# Added by exactvmaf scripts/ffmpeg-client.sh: Debian source packages.\n%s\n' "$entries" |
      $SUDO tee "$list" >/dev/null
    $SUDO apt-get update -qq
  fi
  local need=()
  command -v dpkg-source >/dev/null || need+=(dpkg-dev)
  command -v nasm >/dev/null || need+=(nasm)
  command -v make >/dev/null || need+=(make)
  if [ ${#need[@]} -gt 0 ]; then
    log "installing ${need[*]}"
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  fi
  mkdir -p "$ffmpeg_dir/src"
  log "apt-get source ffmpeg (the machine's version: $(apt-cache policy ffmpeg | awk '/Candidate:/ {print $2}'))"
  (cd "$ffmpeg_dir/src" && apt-get source -qq ffmpeg >/dev/null)
  have_source || die "apt-get source ffmpeg left no ffmpeg-*/configure in $ffmpeg_dir/src"
}

have_source || fetch_source
[ -f "$pc_dir/libvmaf.pc" ] || die "$pc_dir/libvmaf.pc not found: build exactvmaf first (target libvmaf)"
src=$(ls -d "$ffmpeg_dir"/src/ffmpeg-*/ | head -n 1)
src=${src%/}
out=$ffmpeg_dir/build
mkdir -p "$out"

export PKG_CONFIG_PATH="$pc_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
if [ ! -f "$out/config.h" ] || [ "$(cat "$out/.exactvmaf-configure" 2>/dev/null)" != "$stamp_text" ]; then
  log "configuring $(basename "$src") in $out"
  (cd "$out" && "$src/configure" "${configure_flags[@]}" >configure.log 2>&1) ||
    { tail -n 30 "$out/ffbuild/config.log" >&2 || true; die "FFmpeg configure failed ($out/configure.log)"; }
  printf '%s' "$stamp_text" >"$out/.exactvmaf-configure"
fi
log "building ffmpeg (make -j$jobs)"
make -C "$out" -j"$jobs" ffmpeg >"$out/make.log" 2>&1 || { tail -n 30 "$out/make.log" >&2; die "FFmpeg build failed ($out/make.log)"; }
[ -x "$out/ffmpeg" ] || die "no $out/ffmpeg after make"
echo "$out/ffmpeg"
