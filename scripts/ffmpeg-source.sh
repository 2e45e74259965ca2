# Sourced by scripts/ffmpeg-client.sh and scripts/ffmpeg-nvdec.sh: Debian's
# source package of this machine's ffmpeg. Expects ffmpeg_dir (the source
# goes to $ffmpeg_dir/src), log and die from the caller; defines SUDO,
# have_source and fetch_source.

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

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
    printf '# Added by exactvmaf scripts/ffmpeg-source.sh: Debian source packages.\n%s\n' "$entries" |
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

