#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The container image of jetgate, built without a daemon and without namespaces of its
# own: Debian's mmdebstrap extracts the runtime packages the binary needs (glibc, and
# libkmod, which jetgate loads at run time) into a root filesystem, the binary goes to
# /usr/bin/jetgate, and umoci writes it as an OCI image layout (one layer). skopeo then
# reads the layout back (every blob's digest checked) and packs it as an OCI archive
# that `podman load`, `docker load` (Docker 25 and later), `ctr images import` and
# `skopeo copy` take. Unless --no-run, the image is unpacked again from the layout and
# its entrypoint started the way a runtime starts it (a private mount namespace with
# /proc, /sys and /dev, chroot into the root filesystem, as user 65534): its
# `jetgate probe --json` must be a probe document of the image's architecture.
#
# Why this way (docs/image.md): buildah and podman need a storage driver, user
# namespaces or a daemon, and cannot run the arm64 image's RUN steps without binfmt;
# extracting packages and packing a layer needs none of these, runs as root on CI's
# plain machine, and gives the same bytes for the same inputs (SOURCE_DATE_EPOCH).
# CUDA is not in the image: on a Jetson or GPU node the device plugin or CDI injects
# the driver's libraries and device nodes (Dockerfile.l4t is the L4T-based variant,
# for a node whose CUDA libraries must come from the image).
#
# Usage: scripts/build-image.sh [--out DIR] [--tag TAG] [--suite SUITE] [--mirror URL]
#                               [--no-run] JETGATE
#   JETGATE   the jetgate binary, or a release tarball of scripts/build-release.sh
#             (dist/jetgate-VERSION-linux-ARCH.tar.gz); its ELF header gives the
#             image's architecture (x86_64 -> amd64, aarch64 -> arm64)
#   --out     where the layout (DIR/oci) and archive go (default dist/image-ARCH)
#   --tag     the image tag (default the binary's version, jetgate --version)
#   --suite   the Debian suite the runtime packages come from (default bookworm)
#   --mirror  the Debian mirror (default the host's first apt source, else
#             http://deb.debian.org/debian)
#   --no-run  build and check the layout only
# Needs root (the extracted files keep their owners; the run mounts /proc), mmdebstrap,
# umoci, skopeo and, for a foreign architecture, qemu-user-static: all from Debian
# (scripts/install-deps.sh --ci installs them).
set -euo pipefail
# (No `| head` below: under pipefail a writer that head leaves behind dies of SIGPIPE
# and ends the script; `sed -n 1p` reads to the end.)
cd "$(dirname "$0")/.."
out="" tag="" suite=bookworm mirror="" run=1 input=""
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }
die() { echo "build-image.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift ;;
    --tag) tag=$2; shift ;;
    --suite) suite=$2; shift ;;
    --mirror) mirror=$2; shift ;;
    --no-run) run=0 ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [ -z "$input" ] || die "one JETGATE argument, not '$input' and '$1'"; input=$1 ;;
  esac
  shift
done
[ -n "$input" ] || { usage >&2; exit 2; }
[ -f "$input" ] || die "$input: no such file (build it with scripts/build-release.sh)"
for tool in mmdebstrap umoci skopeo readelf python3; do
  command -v "$tool" >/dev/null || die "$tool is missing: run scripts/install-deps.sh --ci"
done
[ "$(id -u)" = 0 ] || die "run as root: the root filesystem keeps its owners and the run mounts /proc"
case "$suite" in *[!a-z0-9-]*|'') die "--suite '$suite' is not a Debian suite name" ;; esac
case "$tag" in
  '') ;;
  [A-Za-z0-9_]*) [[ "$tag" =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ ]] ||
                   die "--tag '$tag' is not an OCI tag ([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})" ;;
  *) die "--tag '$tag' is not an OCI tag ([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})" ;;
esac

work=$(mktemp -d /var/tmp/jetgate-image.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The binary: given as is, or bin/jetgate of a release tarball (with its man page and
# licence, which go into the image too).
staged="$work/staged"
mkdir -p "$staged/usr/bin"
case "$input" in
  *.tar.gz)
    tar -C "$work" -xzf "$input"
    top=$(tar -tzf "$input" | sed -n 1p | cut -d/ -f1)
    [ -f "$work/$top/bin/jetgate" ] || die "$input holds no $top/bin/jetgate"
    cp "$work/$top/bin/jetgate" "$staged/usr/bin/jetgate"
    [ -d "$work/$top/share" ] && cp -r "$work/$top/share" "$staged/usr/"
    ;;
  *)
    cp "$input" "$staged/usr/bin/jetgate"
    mkdir -p "$staged/usr/share/doc/jetgate"
    cp LICENSE "$staged/usr/share/doc/jetgate/"
    ;;
esac
chmod 0755 "$staged/usr/bin/jetgate"
bin="$staged/usr/bin/jetgate"

machine=$(readelf -h "$bin" 2>/dev/null | sed -n 's/^ *Machine: *//p')
case "$machine" in
  *X86-64*) arch=amd64 triplet=x86_64-linux-gnu uname_m=x86_64 emulator="" ;;
  *AArch64*) arch=arm64 triplet=aarch64-linux-gnu uname_m=aarch64 emulator=qemu-aarch64-static ;;
  *) die "$input is not an x86-64 or AArch64 ELF executable (readelf: '${machine:-no ELF header}')" ;;
esac
if [ -n "$emulator" ] && [ "$(uname -m)" = "$uname_m" ]; then emulator=""; fi
if [ -n "$emulator" ] && ! command -v "$emulator" >/dev/null; then
  if [ "$run" = 1 ]; then die "$emulator is missing (qemu-user-static) to start the $arch image here; or use --no-run"; fi
fi
[ -n "$out" ] || out=dist/image-$arch

# The Debian packages the binary's NEEDED libraries come from. The package names are
# the same on every architecture, so the host's package database names them.
# base-files: /etc/os-release (and /usr/lib/os-release), which says what the image is.
packages=(libc6 libkmod2 base-files)
for soname in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  case "$soname" in
    libc.so.6|libm.so.6|libdl.so.2|libpthread.so.0|librt.so.1|ld-linux-*.so.*) continue ;;
  esac
  owner=$(dpkg -S "*/$soname" 2>/dev/null | sed -n 1p | cut -d: -f1) ||
    true
  [ -n "$owner" ] || die "no installed Debian package holds $soname, which $input needs;" \
    "install the package that provides it (apt-file search $soname), or build the" \
    "glibc-only binary with scripts/build-release.sh"
  packages+=("$owner")
done
packages_csv=$(printf '%s\n' "${packages[@]}" | sort -u | paste -sd, -)

if [ -z "$mirror" ]; then
  mirror=$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -n 1p)
  [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $2 ~ /^http/ && $2 ~ /\/debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
fi

# The same inputs give the same bytes: file times, the layer and the config's dates
# come from the commit (or the binary's time outside a git checkout).
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || stat -c %Y "$input")
fi
export SOURCE_DATE_EPOCH
created=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)

# The binary must start under the image's loader before anything is packed: --version
# gives the tag and the label. A foreign binary runs under qemu-user with the new root
# as its library root.
rootfs="$work/rootfs"
echo "build-image.sh: $arch image from $input; packages from $mirror $suite: $packages_csv"
mmdebstrap --quiet --variant=extract --architectures="$arch" --include="$packages_csv" \
  "$suite" "$rootfs" "$mirror"
# The dynamic loader reads /etc/ld.so.cache first; extract mode runs no ldconfig.
printf '/usr/lib/%s\n/lib/%s\n' "$triplet" "$triplet" >"$rootfs/etc/ld.so.conf.d/$triplet.conf"
cp -a "$staged/." "$rootfs/"
mkdir -p "$rootfs/proc" "$rootfs/sys" "$rootfs/dev" "$rootfs/host" "$rootfs/evidence"
# node-problem-detector's plugin monitor names /opt/jetgate/bin/jetgate (docs/kubernetes.md):
# the same binary, so that one image serves the Job, the DaemonSet and the NPD rule.
mkdir -p "$rootfs/opt/jetgate/bin"
ln -s ../../../usr/bin/jetgate "$rootfs/opt/jetgate/bin/jetgate"
chmod 1777 "$rootfs/tmp"
rm -rf "$rootfs/var/cache/apt" "$rootfs/var/lib/apt/lists" "$rootfs/var/log"/* \
  "$rootfs/etc/apt/apt.conf.d/99mmdebstrap" "$rootfs/etc/resolv.conf" "$rootfs/etc/hostname"
if [ -n "$emulator" ]; then
  version_line=$("$emulator" -L "$rootfs" "$rootfs/usr/bin/jetgate" --version | sed -n 1p)
else
  version_line=$(chroot "$rootfs" /usr/bin/jetgate --version | sed -n 1p)
fi
version=$(printf '%s\n' "$version_line" | awk '{print $2}')
revision=$(printf '%s\n' "$version_line" | sed -n 's/.*(\([0-9a-f]\{7,40\}\).*/\1/p')
[ -n "$version" ] || die "jetgate --version printed '$version_line'; expected 'jetgate VERSION ...'"
[ -n "$tag" ] || tag=$(printf '%s' "$version" | tr -c 'A-Za-z0-9_.-' '_')-$arch
find "$rootfs" -newermt "@$SOURCE_DATE_EPOCH" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} + 2>/dev/null || true

# The OCI layout: an empty image, the root filesystem as its one layer, the config.
layout="$out/oci"
rm -rf "$layout"
mkdir -p "$out"
umoci init --layout "$layout"
umoci new --image "$layout:$tag"
bundle="$work/bundle"
umoci unpack --image "$layout:$tag" "$bundle" >/dev/null
cp -a "$rootfs/." "$bundle/rootfs/"
umoci repack --image "$layout:$tag" --history.created "$created" \
  --history.created_by "scripts/build-image.sh ($suite: $packages_csv)" "$bundle"
umoci config --image "$layout:$tag" --architecture "$arch" --os linux --created "$created" \
  --author "jetgate build-image.sh" --no-history \
  --config.entrypoint /usr/bin/jetgate --config.cmd probe --config.workingdir / \
  --config.user 65534:65534 --config.env PATH=/usr/local/bin:/usr/bin:/bin \
  --config.volume /evidence \
  --config.label org.opencontainers.image.title=jetgate \
  --config.label "org.opencontainers.image.version=$version" \
  --config.label "org.opencontainers.image.revision=${revision:-unknown}" \
  --config.label org.opencontainers.image.licenses=Apache-2.0 \
  --config.label "org.opencontainers.image.description=Does GPU compute really work on this Jetson or CUDA machine: facts, probes, gate, evidence" \
  --config.label "org.opencontainers.image.base.name=debian:$suite ($packages_csv)"
umoci gc --layout "$layout"

# Read back with another implementation: skopeo checks every blob against its digest
# while it copies the image into an archive, and reports the config it found.
archive="$out/jetgate-$tag.oci.tar"
rm -f "$archive"
skopeo copy --quiet "oci:$layout:$tag" "oci-archive:$archive:$tag"
skopeo inspect --config "oci-archive:$archive:$tag" >"$out/config.json"
skopeo inspect --raw "oci:$layout:$tag" >"$out/manifest.json"
python3 - "$out/config.json" "$out/manifest.json" "$arch" <<'EOF'
import json, sys
config, manifest, arch = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
problems = []
if config.get("architecture") != arch: problems.append(f"architecture {config.get('architecture')!r}, expected {arch!r}")
if config.get("os") != "linux": problems.append(f"os {config.get('os')!r}")
c = config.get("config", {})
if c.get("Entrypoint") != ["/usr/bin/jetgate"]: problems.append(f"entrypoint {c.get('Entrypoint')!r}")
if c.get("User") != "65534:65534": problems.append(f"user {c.get('User')!r}")
if manifest.get("mediaType", "application/vnd.oci.image.manifest.v1+json") != "application/vnd.oci.image.manifest.v1+json" or manifest.get("schemaVersion") != 2:
    problems.append("not an OCI image manifest")
if len(manifest.get("layers", [])) != 1: problems.append(f"{len(manifest.get('layers', []))} layers, expected 1")
if problems:
    sys.exit("build-image.sh: the image read back by skopeo: " + "; ".join(problems))
EOF
size=$(du -k "$archive" | cut -f1)
echo "build-image.sh: $layout:$tag and $archive ($size KiB), $arch, jetgate $version"

[ "$run" = 1 ] || exit 0

# Start it the way a runtime does, from the layout (not from the files above): unpack,
# give it /proc, /sys (read-only) and /dev in a private mount namespace, and run the
# entrypoint in the root filesystem as the image's user.
run_bundle="$work/run"
umoci unpack --image "$layout:$tag" "$run_bundle" >/dev/null
r="$run_bundle/rootfs"
if [ -n "$emulator" ]; then
  cp "$(command -v "$emulator")" "$r/usr/bin/$emulator"
  start=("/usr/bin/$emulator" /usr/bin/jetgate)
else
  start=(/usr/bin/jetgate)
fi
probe_json="$out/probe.json"
set +e
unshare --mount --fork sh -c '
  set -e
  r=$1; shift
  mount --make-rprivate /
  mount -t proc proc "$r/proc"
  mount --rbind /sys "$r/sys" && mount -o remount,bind,ro "$r/sys" 2>/dev/null || true
  mount --rbind /dev "$r/dev"
  exec chroot --userspec=65534:65534 "$r" "$@"
' sh "$r" "${start[@]}" probe --json >"$probe_json" 2>"$out/probe.stderr"
rc=$?
set -e
# 0: every probe passed; 1: something checked does not hold (no GPU here); 2 or a
# signal: the image is broken.
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
  cat "$out/probe.stderr" >&2
  echo "build-image.sh: the image's jetgate probe --json exited $rc" >&2
  exit 1
fi
python3 - "$probe_json" "$uname_m" "$version" <<'EOF'
import json, sys
path, machine, version = sys.argv[1:]
try:
    doc = json.load(open(path))
except ValueError as e:
    sys.exit(f"build-image.sh: the image's probe --json is not JSON: {e}")
problems = []
arch = doc.get("platform", {}).get("arch")
if arch != machine: problems.append(f"/platform/arch is {arch!r}, expected {machine!r}")
if doc.get("jetgate", {}).get("version") != version:
    problems.append(f"/jetgate/version is {doc.get('jetgate', {}).get('version')!r}, expected {version!r}")
if doc.get("facts_source") != "live": problems.append(f"/facts_source is {doc.get('facts_source')!r}, expected 'live'")
if not isinstance(doc.get("schema_version"), int): problems.append("no /schema_version")
if problems:
    sys.exit("build-image.sh: the image's probe document: " + "; ".join(problems))
print(f"build-image.sh: the image ran: /platform/arch {arch}, /facts_source live, "
      f"{len(doc.get('warnings', []))} warnings")
EOF
echo "build-image.sh: probe --json exit $rc; the document is $probe_json"
