#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Records the files jetgate reads from this machine into OUTDIR/root/, at their real
# paths, so the machine can become a test fixture (tests/fixtures/<name>/root) or be
# attached to a bug report. Facts that are not files (uname -m, device nodes) go to
# OUTDIR/root/jetgate-root.json, because git cannot store device nodes or modes.
#
# Usage: scripts/jetgate-record-root.sh [--keep-identifiers] [OUTDIR]
#        scripts/jetgate-record-root.sh --list-paths
#
# --list-paths prints every path and wildcard the script records, one a line, and
# records nothing: tests/unit/facts_recorder_test.cpp checks it against the paths
# jetgate's readers open, so the two cannot drift apart.
#
# Needs only bash and coreutils (tar, if present, packs the result). Reading is bounded
# and a missing file is never an error: every machine has a different subset.
# Serial numbers, GPU UUIDs and the hostname are masked unless --keep-identifiers.
set -u
shopt -s nullglob

readonly MAX_FILE_BYTES=$((4 * 1024 * 1024))   # any single recorded file
readonly MAX_DPKG_BYTES=$((64 * 1024 * 1024))  # dpkg status is read, then trimmed
readonly MAX_GLOB_MATCHES=256                  # per wildcard, against runaway /dev trees
readonly MAX_LINK_DEPTH=8                      # symbolic-link chains we follow

keep_identifiers=0
list_paths=0
outdir=""

usage() {
  echo "usage: $0 [--keep-identifiers] [OUTDIR] | --list-paths" >&2
  echo "  records the files jetgate reads into OUTDIR/root and packs OUTDIR.tar.gz" >&2
  echo "  --list-paths prints what would be recorded and records nothing" >&2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --keep-identifiers) keep_identifiers=1 ;;
    --list-paths) list_paths=1 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "error: unknown option '$1'" >&2; usage; exit 2 ;;
    *)
      if [ -n "$outdir" ]; then echo "error: more than one OUTDIR given" >&2; usage; exit 2; fi
      outdir="$1" ;;
  esac
  shift
done

# --- what jetgate reads (keep in step with src/jetgate/facts/*; the unit test checks) ---
# Files copied byte-exactly.
FILES=(
  /etc/os-release /usr/lib/os-release /proc/sys/kernel/osrelease /proc/meminfo
  /etc/nv_tegra_release
  /sys/devices/soc0/family
  /proc/modules /proc/driver/nvidia/version
  /proc/1/cgroup
  /usr/local/cuda/version.json /usr/local/cuda/version.txt
  /etc/nvpmodel.conf /var/lib/nvpmodel/status
  /sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq
  /sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq
  /sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq
  /sys/kernel/nvpmodel_emc_cap/emc_iso_cap
  /sys/kernel/debug/bpmp/debug/clk/emc/rate /sys/kernel/debug/bpmp/debug/clk/emc/max_rate
  /sys/kernel/debug/bpmp/debug/clk/emc/min_rate
  /sys/kernel/debug/clk/emc/clk_rate
  /sys/kernel/debug/tegra_bwmgr/emc_max_rate /sys/kernel/debug/tegra_bwmgr/emc_min_rate
)
# Files that only need to exist (their presence is the fact).
PRESENCE=(/.dockerenv /run/.containerenv)
# Identifiers, masked unless --keep-identifiers.
HOSTNAME_FILES=(/proc/sys/kernel/hostname /etc/hostname)
# Device-tree properties, under /proc/device-tree and its usual target.
DT_PROPERTIES=(model compatible nvidia,boardids nvidia,dtsfilename serial-number chosen/nvidia,sku
               chosen/ids chosen/plugin-manager/ids)
DT_DIRS=(/proc/device-tree /sys/firmware/devicetree/base)
# devfreq devices (GPU on every Jetson, EMC on Thor): these files of each.
DEVFREQ_FILES=(cur_freq min_freq max_freq available_frequencies governor)
# Headers whose version defines jetgate reads, in each include directory.
INCLUDE_DIRS=(/usr/include /usr/include/aarch64-linux-gnu /usr/include/x86_64-linux-gnu
              /usr/local/cuda/include /usr/local/include)
HEADERS=(cudnn_version.h cudnn_version_v9.h cudnn_version_v8.h cudnn.h NvInferVersion.h NvInfer.h)
OPENCV_HEADER_DIRS=(/usr/include/opencv4 /usr/local/include/opencv4 /usr/include /usr/local/include)
OPENCV_HEADERS=(opencv2/core/version.hpp opencv2/cvconfig.h)
# Libraries, recorded as empty files with their real (versioned) names. Wildcards are
# quoted here and expanded where they are recorded (nullglob would drop them here).
LIBRARY_DIRS=(/usr/lib/aarch64-linux-gnu /usr/lib/x86_64-linux-gnu /usr/local/cuda/lib64 /usr/lib64 /usr/lib
              /usr/local/cuda/targets/aarch64-linux/lib /usr/local/lib /usr/lib/aarch64-linux-gnu/tegra)
LIBRARIES=('libcudnn.so*' 'libnvinfer.so*' 'libvulkan.so*' 'libopencv_core.so*' 'libopencv_cudaarithm.so*')
VPI_LIBRARY_GLOBS=('/opt/nvidia/vpi*/lib/libnvvpi.so*' '/opt/nvidia/vpi*/lib64/libnvvpi.so*'
  '/opt/nvidia/vpi*/lib/aarch64-linux-gnu/libnvvpi.so*')
# Not read by jetgate, kept because they help whoever reads a bug report.
EXTRA_PLACEHOLDER_GLOBS=('/usr/lib/*-linux-gnu/libcuda.so*' '/usr/lib/*-linux-gnu/libnvidia-ml.so*'
  '/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so*'
  '/usr/lib/aarch64-linux-gnu/nvidia/libnvrm_*.so' '/usr/lib/aarch64-linux-gnu/tegra/libcuda.so*'
  '/usr/lib/aarch64-linux-gnu/tegra/libnvrm*.so')
# containerd's configuration: its cdi_spec_dirs say where CDI specs are read from.
EXTRA_GLOBS=('/etc/nvidia-container-runtime/host-files-for-container.d/*.csv'
  '/etc/containerd/config.toml' '/etc/cri/conf.d/*.part')
# CDI specs in the default directories and where Talos guides put them (a directory
# only containerd's configuration names is not recorded: copy its specs by hand).
CDI_GLOBS=('/etc/cdi/*.yaml' '/etc/cdi/*.yml' '/etc/cdi/*.json' '/var/run/cdi/*.yaml' '/var/run/cdi/*.yml'
  '/var/run/cdi/*.json' '/var/cdi/static/*.yaml' '/var/cdi/static/*.yml' '/var/cdi/static/*.json'
  '/var/cdi/dynamic/*.yaml' '/var/cdi/dynamic/*.yml' '/var/cdi/dynamic/*.json')
NODE_GLOBS=('/dev/nvhost-*' '/dev/nvmap' '/dev/host1x-fence' '/dev/nvgpu/*/*'
  '/dev/nvidia*' '/dev/nvidia-caps/*' '/dev/dri/renderD*' '/dev/dri/card*')
# The module EEPROM (at24 driver, I2C address 0x50): only its first 64 bytes, which
# hold the 699-level part number (bytes 20-48) and not the serial number (byte 74 on).
EEPROM_GLOB=/sys/bus/i2c/devices/*-0050/eeprom
readonly EEPROM_BYTES=64
# Kernel modules of the GPU stack: where each came from (.modinfo, signature), read from
# the module files modules.dep names, and what the kernel says about each.
MODULE_DIR_FILES=(modules.dep modules.builtin modules.symbols)
GPU_MODULES=(nvgpu host1x host1x_fence host1x_nvhost nvhost_ctrl_shim nvmap mc_utils tegra_drm
             governor_pod_scaling nvhwpm nvidia nvidia_uvm nvidia_modeset nvidia_drm nvidia_peermem
             nvsciipc nvidia_vrs_pseq)
SYS_MODULE_FILES=(taint srcversion version)
readonly MAX_MODULE_BYTES=$((96 * 1024 * 1024))  # nvidia.ko is ~60 MB
# Kernel log lines that name a GPU-stack module (why one did not load), from dmesg.
readonly KERNEL_LOG_FILE=/jetgate-kernel-log.txt
readonly KERNEL_LOG_PATTERN='(nvgpu|nvmap|host1x|tegra[-_]drm|nvhost|mc[-_]utils|nvidia)'

list_recorded_paths() {
  local p d h
  printf '%s\n' "${FILES[@]}" "${PRESENCE[@]}" "${HOSTNAME_FILES[@]}" /proc/self/cgroup /proc/self/mountinfo /var/lib/dpkg/status \
    /jetgate-root.json
  for d in "${DT_DIRS[@]}"; do for p in "${DT_PROPERTIES[@]}"; do printf '%s\n' "$d/$p"; done; done
  for p in "${DEVFREQ_FILES[@]}"; do printf '%s\n' "/sys/class/devfreq/*/$p"; done
  for d in "${INCLUDE_DIRS[@]}"; do for h in "${HEADERS[@]}"; do printf '%s\n' "$d/$h"; done; done
  for d in "${OPENCV_HEADER_DIRS[@]}"; do for h in "${OPENCV_HEADERS[@]}"; do printf '%s\n' "$d/$h"; done; done
  for d in "${LIBRARY_DIRS[@]}"; do for p in "${LIBRARIES[@]}"; do printf '%s\n' "$d/$p"; done; done
  printf '%s\n' "${VPI_LIBRARY_GLOBS[@]}" "${EXTRA_PLACEHOLDER_GLOBS[@]}" "${EXTRA_GLOBS[@]}" "${CDI_GLOBS[@]}"
  printf '%s\n' "${NODE_GLOBS[@]}" "$EEPROM_GLOB"
  for p in "${MODULE_DIR_FILES[@]}"; do printf '%s\n' "/lib/modules/*/$p" "/usr/lib/modules/*/$p"; done
  for p in "${SYS_MODULE_FILES[@]}"; do printf '%s\n' "/sys/module/*/$p"; done
  printf '%s\n' "$KERNEL_LOG_FILE"
}

if [ "$list_paths" = 1 ]; then
  list_recorded_paths
  exit 0
fi
[ -n "$outdir" ] || outdir="./jetgate-root-$(date -u +%Y%m%dT%H%M%SZ)"

if [ -e "$outdir/root" ]; then
  echo "error: $outdir/root already exists; choose an empty OUTDIR so recordings never mix" >&2
  exit 2
fi
root="$outdir/root"
if ! mkdir -p "$root"; then
  echo "error: cannot create $root; check the path and permissions" >&2
  exit 2
fi

recorded=0
skipped=()
# Where identifiers landed inside OUTDIR/root, as resolved paths: masking must never write
# through a recorded symbolic link, whose absolute target would point at this host.
last_recorded=""
serial_files=()
uuid_files=()
hostname_files=()

note_skip() { skipped+=("$1: $2"); }

# A regular file copied byte-exactly, at most MAX_FILE_BYTES. head -c reads /proc and
# /sys files correctly although stat reports their size as 0 or 4096.
copy_regular() {
  local src="$1" dest="$root$1"
  mkdir -p "$(dirname "$dest")" || return 1
  if ! head -c "$MAX_FILE_BYTES" -- "$src" > "$dest" 2>/dev/null; then
    rm -f -- "$dest"
    note_skip "$src" "unreadable"
    return 1
  fi
  recorded=$((recorded + 1))
}

# Follows the path component by component so that symbolic links on the way
# (/usr/local/cuda -> /etc/alternatives/cuda -> /usr/local/cuda-12.6, /proc/device-tree
# -> /sys/firmware/devicetree/base) are recorded as links, the way the reader meets them.
# Prints the fully resolved path; returns 1 when nothing is there.
resolve_recording_links() {
  local path="$1" depth="${2:-0}"
  if [ "$depth" -gt "$MAX_LINK_DEPTH" ]; then
    note_skip "$1" "symbolic links nested deeper than $MAX_LINK_DEPTH"
    return 1
  fi
  local cur="" rest="${path#/}" comp target resolved
  while [ -n "$rest" ]; do
    comp="${rest%%/*}"
    if [ "$comp" = "$rest" ]; then rest=""; else rest="${rest#*/}"; fi
    cur="$cur/$comp"
    if [ -L "$cur" ]; then
      target="$(readlink -- "$cur")" || return 1
      if [ ! -L "$root$cur" ] && [ ! -e "$root$cur" ]; then
        mkdir -p "$(dirname "$root$cur")" && ln -s -- "$target" "$root$cur"
      fi
      case "$target" in
        /*) resolved="$target" ;;
        *) resolved="$(dirname "$cur")/$target" ;;
      esac
      [ -n "$rest" ] && resolved="$resolved/$rest"
      resolve_recording_links "$resolved" $((depth + 1))
      return $?
    fi
    [ -e "$cur" ] || return 1
  done
  printf '%s\n' "$cur"
}

# Records a file (contents) or, with mode "placeholder", an empty file with the real
# name: jetgate only needs to know that a library exists, never its bytes.
record() {
  local path="$1" mode="${2:-contents}" real
  last_recorded=""
  real="$(resolve_recording_links "$path")" || return 0
  [ -f "$real" ] || return 0
  if [ "$mode" = placeholder ]; then
    mkdir -p "$(dirname "$root$real")" && : > "$root$real" && recorded=$((recorded + 1))
  else
    copy_regular "$real" || return 0
  fi
  last_recorded="$root$real"
}

# Expands a wildcard (nullglob: no match, no iteration), capped.
record_glob() {
  local mode="$1"; shift
  local n=0 p
  for p in "$@"; do
    n=$((n + 1))
    if [ "$n" -gt "$MAX_GLOB_MATCHES" ]; then note_skip "$1" "more than $MAX_GLOB_MATCHES matches"; break; fi
    record "$p" "$mode"
    case "$p" in
      */cdi/*) [ -n "$last_recorded" ] && uuid_files+=("$last_recorded") ;;
    esac
  done
}

json_string() {
  local s="$1"
  s="${s//\\/\\\\}"; s="${s//\"/\\\"}"
  s="${s//$'\n'/\\n}"; s="${s//$'\t'/\\t}"; s="${s//$'\r'/\\r}"
  printf '"%s"' "$s"
}

# Device nodes: type, permission bits, major:minor and owner (uid, gid and their names)
# go to jetgate-root.json; an empty regular file marks the path in the tree.
node_entries=()
record_node() {
  local path="$1" info type mode major minor uid gid owner group kind
  [ -e "$path" ] || return 0
  info="$(stat -L -c '%F|%a|%t|%T|%u|%g|%U|%G' -- "$path" 2>/dev/null)" || { note_skip "$path" "stat failed"; return 0; }
  IFS='|' read -r type mode major minor uid gid owner group <<< "$info"
  case "$type" in
    "character special file") kind=char ;;
    "block special file") kind=block ;;
    *) return 0 ;;  # only device nodes belong in "nodes"
  esac
  mkdir -p "$(dirname "$root$path")" && : > "$root$path"
  # stat prints UNKNOWN for an id without a name here.
  if [ "$owner" = UNKNOWN ]; then owner=null; else owner="$(json_string "$owner")"; fi
  if [ "$group" = UNKNOWN ]; then group=null; else group="$(json_string "$group")"; fi
  node_entries+=("    $(json_string "$path"): {\"type\": \"$kind\", \"mode\": \"0$mode\", \"major\": $((16#$major)), \"minor\": $((16#$minor)), \"uid\": $uid, \"gid\": $gid, \"owner\": $owner, \"group\": $group}")
  recorded=$((recorded + 1))
}

record_node_glob() {
  local n=0 p
  for p in "$@"; do
    n=$((n + 1))
    if [ "$n" -gt "$MAX_GLOB_MATCHES" ]; then note_skip "$1" "more than $MAX_GLOB_MATCHES matches"; break; fi
    record_node "$p"
  done
}

# Keeps only the dpkg paragraphs jetgate reads: L4T, JetPack, CUDA, cuDNN, TensorRT.
# The whole status file lists every package and would bloat a fixture.
record_dpkg_status() {
  local src=/var/lib/dpkg/status dest="$root/var/lib/dpkg/status"
  [ -f "$src" ] || return 0
  mkdir -p "$(dirname "$dest")" || return 0
  local para="" keep=0 line wrote=0
  head -c "$MAX_DPKG_BYTES" -- "$src" 2>/dev/null | {
    while IFS= read -r line || [ -n "$line" ]; do
      if [ -z "$line" ]; then
        if [ "$keep" = 1 ]; then
          [ "$wrote" = 1 ] && printf '\n'
          printf '%s' "$para"; wrote=1
        fi
        para=""; keep=0
        continue
      fi
      para+="$line"$'\n'
      case "$line" in
        "Package: nvidia-l4t-"*|"Package: nvidia-jetpack"*|"Package: cuda-"*|"Package: libcudnn"*|\
        "Package: cudnn"*|"Package: tensorrt"*|"Package: libnvinfer"*) keep=1 ;;
      esac
    done
    if [ "$keep" = 1 ]; then [ "$wrote" = 1 ] && printf '\n'; printf '%s' "$para"; fi
  } > "$dest"
  recorded=$((recorded + 1))
}

# The module EEPROM's first bytes: the part number without the serial number.
record_eeproms() {
  local src dest n=0
  for src in $EEPROM_GLOB; do
    n=$((n + 1))
    [ "$n" -gt "$MAX_GLOB_MATCHES" ] && break
    [ -r "$src" ] || { note_skip "$src" "unreadable (run as root to record the module EEPROM)"; continue; }
    dest="$root$src"
    mkdir -p "$(dirname "$dest")" || continue
    if head -c "$EEPROM_BYTES" -- "$src" > "$dest" 2>/dev/null; then
      recorded=$((recorded + 1))
    else
      rm -f -- "$dest"
      note_skip "$src" "unreadable"
    fi
  done
}

# modules.dep and modules.builtin of the running kernel, the GPU-stack module files
# modules.dep names (byte-exact: jetgate reads their .modinfo section and signature), the
# kernel's view of each loaded one (/sys/module/NAME), and the kernel log lines naming them.
record_modules() {
  local release dir name rel size f
  release="$(uname -r 2>/dev/null)" || return 0
  dir="/lib/modules/$release"
  # Merged /usr without the /lib link (as jetgate reads it): the modules are there.
  if [ ! -d "$dir" ] && [ -d "/usr/lib/modules/$release" ]; then dir="/usr/lib/modules/$release"; fi
  for f in "${MODULE_DIR_FILES[@]}"; do record "$dir/$f"; done
  for name in "${GPU_MODULES[@]}"; do
    for f in "${SYS_MODULE_FILES[@]}"; do record "/sys/module/$name/$f"; done
    [ -f "$dir/modules.dep" ] || continue
    # modules.dep spells names with '-' or '_': match both, path before the colon.
    rel="$(grep -E "(^|/)${name//_/[-_]}\.ko(\.xz|\.zst|\.gz)?:" "$dir/modules.dep" 2>/dev/null | head -n 1)"
    rel="${rel%%:*}"
    [ -n "$rel" ] || continue
    case "$rel" in /*|*..*) continue ;; esac
    size="$(stat -L -c %s -- "$dir/$rel" 2>/dev/null)" || continue
    if [ "$size" -gt "$MAX_MODULE_BYTES" ]; then note_skip "$dir/$rel" "larger than $MAX_MODULE_BYTES bytes"; continue; fi
    mkdir -p "$(dirname "$root$dir/$rel")" &&
      head -c "$MAX_MODULE_BYTES" -- "$dir/$rel" > "$root$dir/$rel" 2>/dev/null &&
      recorded=$((recorded + 1))
  done
  if command -v dmesg > /dev/null 2>&1; then
    if dmesg 2>/dev/null | grep -E "$KERNEL_LOG_PATTERN" | tail -n 400 > "$root$KERNEL_LOG_FILE"; then
      recorded=$((recorded + 1))
    else
      rm -f -- "$root$KERNEL_LOG_FILE"
      note_skip dmesg "unreadable or nothing about the GPU modules (run as root to record the kernel log)"
    fi
  fi
}

mask_identifiers() {
  [ "$keep_identifiers" = 1 ] && return 0
  local f content
  for f in "${hostname_files[@]}"; do printf 'masked-hostname\n' > "$f"; done
  # Serial numbers in the device tree: keep the NUL terminator the kernel adds.
  for f in "${serial_files[@]}"; do printf 'MASKED\0' > "$f"; done
  # GPU UUIDs in CDI specs identify one physical board.
  for f in "${uuid_files[@]}"; do
    content="$(head -c "$MAX_FILE_BYTES" -- "$f")"
    content="${content//GPU-????????-????-????-????-????????????/GPU-00000000-0000-0000-0000-000000000000}"
    printf '%s\n' "$content" > "$f"
  done
}

write_root_json() {
  local machine joined="" i
  machine="$(uname -m 2>/dev/null || echo unknown)"
  for i in "${!node_entries[@]}"; do
    [ "$i" -gt 0 ] && joined+=$',\n'
    joined+="${node_entries[$i]}"
  done
  {
    printf '{\n  "machine": %s,\n  "nodes": {' "$(json_string "$machine")"
    if [ -n "$joined" ]; then printf '\n%s\n  }\n}\n' "$joined"; else printf '}\n}\n'; fi
  } > "$root/jetgate-root.json"
}

write_source_stub() {
  local uname_line
  # uname -n (the hostname) is left out on purpose.
  uname_line="$(uname -s -r -v -m 2>/dev/null || echo unknown)"
  {
    echo "# $(basename "$outdir"): recorded machine root"
    echo
    echo "Recorded with scripts/jetgate-record-root.sh on $(date -u +%Y-%m-%dT%H:%M:%SZ)."
    echo "uname (without hostname): $uname_line"
    if [ "$keep_identifiers" = 1 ]; then
      echo "Identifiers: KEPT (--keep-identifiers); review before publishing."
    else
      echo "Identifiers: hostname, device-tree serial numbers and GPU UUIDs masked."
    fi
    echo
    echo "Files are byte-exact copies (at most $MAX_FILE_BYTES bytes each), except:"
    echo "/var/lib/dpkg/status is trimmed to L4T, JetPack, CUDA, cuDNN and TensorRT paragraphs;"
    echo "libraries are empty placeholders with their real names; device nodes are empty files,"
    echo "their type, mode and numbers are in root/jetgate-root.json."
    echo
    echo "TODO for whoever adds this as a fixture: say what the machine is (board, module,"
    echo "JetPack), how it was set up, and anything unusual about it."
    if [ "${#skipped[@]}" -gt 0 ]; then
      echo
      echo "Not recorded:"
      local s
      for s in "${skipped[@]}"; do echo "- $s"; done
    fi
  } > "$outdir/SOURCE.md"
}

# --- record -----------------------------------------------------------------------------
for f in "${FILES[@]}"; do record "$f"; done
for f in "${PRESENCE[@]}"; do record "$f"; done
# /proc/self is this shell: copy its cgroup as a plain file, not the link.
if [ -r /proc/self/cgroup ] && mkdir -p "$root/proc/self" && head -c "$MAX_FILE_BYTES" /proc/self/cgroup > "$root/proc/self/cgroup"; then
  recorded=$((recorded + 1))
fi
# ... and its mount table: in a container it shows whether /etc/nv_tegra_release is the host's.
if [ -r /proc/self/mountinfo ] && head -c "$MAX_FILE_BYTES" /proc/self/mountinfo > "$root/proc/self/mountinfo"; then
  recorded=$((recorded + 1))
fi
for f in "${HOSTNAME_FILES[@]}"; do
  record "$f"
  [ -n "$last_recorded" ] && hostname_files+=("$last_recorded")
done
record_dpkg_status
for d in "${DT_DIRS[@]}"; do
  for f in "${DT_PROPERTIES[@]}"; do
    record "$d/$f"
    [ "$f" = serial-number ] && [ -n "$last_recorded" ] && serial_files+=("$last_recorded")
  done
done
for dev in /sys/class/devfreq/*; do
  for f in "${DEVFREQ_FILES[@]}"; do record "$dev/$f"; done
done
for d in "${INCLUDE_DIRS[@]}"; do for h in "${HEADERS[@]}"; do record "$d/$h"; done; done
for d in "${OPENCV_HEADER_DIRS[@]}"; do for h in "${OPENCV_HEADERS[@]}"; do record "$d/$h"; done; done
for d in "${LIBRARY_DIRS[@]}"; do
  for p in "${LIBRARIES[@]}"; do record_glob placeholder $d/$p; done
done
record_glob placeholder ${VPI_LIBRARY_GLOBS[@]}
record_glob placeholder ${EXTRA_PLACEHOLDER_GLOBS[@]}
record_glob contents ${EXTRA_GLOBS[@]}
record_glob contents ${CDI_GLOBS[@]}
record_eeproms
record_modules
record_node_glob ${NODE_GLOBS[@]}

mask_identifiers
write_root_json
write_source_stub

echo "recorded $recorded entries into $root"
if [ "${#skipped[@]}" -gt 0 ]; then
  echo "not recorded: ${#skipped[@]} (listed in $outdir/SOURCE.md)"
fi
if command -v tar >/dev/null 2>&1; then
  archive="${outdir%/}.tar.gz"
  if tar -C "$(dirname "$outdir")" -czf "$archive" "$(basename "$outdir")" 2>/dev/null; then
    echo "packed: $archive (send this one file)"
  else
    echo "warning: could not pack $archive; send the folder $outdir instead" >&2
  fi
else
  echo "tar not found: send the folder $outdir"
fi
exit 0
