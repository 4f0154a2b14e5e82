#!/usr/bin/env bash
# Builds a single-layer OCI image archive from Debian's busybox-static, without a registry.
#
#   build-image.sh --out FILE.tar [--entrypoint ARG]... [--cmd ARG]... [--add PATH]... NAME...
#
# The rootfs holds /bin/busybox, a symlink per applet (`busybox --list-full`), /etc/passwd,
# /etc/group and empty /tmp, /root, /proc, /sys, /dev; each `--add PATH` adds the host's
# executable PATH at the same path with the shared libraries `ldd` lists for it (e.g.
# `--add /usr/bin/curl` for an image that can call the apiserver). The layer is a reproducible tar (sorted,
# owner 0, mtime 0) compressed with `gzip -n`; config, manifest and index are named by sha256 in
# an OCI image layout, tarred to FILE. index.json lists the manifest once per NAME with the
# `io.containerd.image.name` annotation, so `ctr images import FILE` creates every NAME.
set -euo pipefail

out=""
entrypoint=()
cmd=()
names=()
adds=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="${2:?}"; shift 2 ;;
    --entrypoint) entrypoint+=("${2:?}"); shift 2 ;;
    --cmd) cmd+=("${2:?}"); shift 2 ;;
    --add) adds+=("${2:?}"); shift 2 ;;
    -*) echo "build-image.sh: unknown flag $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
if [ -z "$out" ] || [ ${#names[@]} -eq 0 ]; then
  echo "usage: build-image.sh --out FILE.tar [--entrypoint ARG]... [--cmd ARG]... NAME..." >&2
  exit 2
fi

json_string() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '"%s"' "$s"; }
json_array() {
  local first=1
  printf '['
  for item in "$@"; do
    [ $first = 1 ] || printf ','
    first=0
    json_string "$item"
  done
  printf ']'
}

arch="$(dpkg --print-architecture 2>/dev/null || echo amd64)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
layout="$work/layout"
mkdir -p "$rootfs"/{bin,sbin,usr/bin,usr/sbin,etc,root,proc,sys,dev,var} "$rootfs/tmp" "$layout/blobs/sha256"
chmod 1777 "$rootfs/tmp"
chmod 700 "$rootfs/root"
cp /bin/busybox "$rootfs/bin/busybox"
while read -r applet; do
  [ "$applet" = bin/busybox ] && continue
  mkdir -p "$rootfs/$(dirname "$applet")"
  ln -sf /bin/busybox "$rootfs/$applet"
done < <(/bin/busybox --list-full)
for exe in ${adds[@]+"${adds[@]}"}; do
  [ -x "$exe" ] || { echo "build-image.sh: --add $exe: not an executable file" >&2; exit 2; }
  # The file, then every library ldd resolves (`name => /path (addr)` or `/path (addr)`).
  for f in "$exe" $(ldd "$exe" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
    mkdir -p "$rootfs$(dirname "$f")"
    cp -L "$f" "$rootfs$f"
  done
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"

tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$rootfs" -cf "$work/layer.tar" .
diff_id="$(sha256sum "$work/layer.tar" | cut -d' ' -f1)"
gzip -n -9 "$work/layer.tar"

# put FILE: stores FILE as a blob, echoes "<hex digest> <size>".
put() {
  local hex size
  hex="$(sha256sum "$1" | cut -d' ' -f1)"
  size="$(stat -c %s "$1")"
  mv "$1" "$layout/blobs/sha256/$hex"
  echo "$hex $size"
}
read -r layer_hex layer_size < <(put "$work/layer.tar.gz")

{
  printf '{"architecture":"%s","os":"linux","created":"1970-01-01T00:00:00Z",' "$arch"
  printf '"config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],'
  [ ${#entrypoint[@]} -eq 0 ] || printf '"Entrypoint":%s,' "$(json_array "${entrypoint[@]}")"
  [ ${#cmd[@]} -eq 0 ] || printf '"Cmd":%s,' "$(json_array "${cmd[@]}")"
  printf '"WorkingDir":"/"},'
  printf '"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},' "$diff_id"
  printf '"history":[{"created":"1970-01-01T00:00:00Z","created_by":"tools/containerd/build-image.sh"}]}'
} >"$work/config.json"
read -r config_hex config_size < <(put "$work/config.json")

printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:%s","size":%s}]}' \
  "$config_hex" "$config_size" "$layer_hex" "$layer_size" >"$work/manifest.json"
read -r manifest_hex manifest_size < <(put "$work/manifest.json")

{
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":['
  first=1
  for name in "${names[@]}"; do
    [ $first = 1 ] || printf ','
    first=0
    printf '{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,' "$manifest_hex" "$manifest_size"
    printf '"platform":{"architecture":"%s","os":"linux"},' "$arch"
    printf '"annotations":{"io.containerd.image.name":%s,"org.opencontainers.image.ref.name":%s}}' \
      "$(json_string "$name")" "$(json_string "${name##*:}")"
  done
  printf ']}'
} >"$layout/index.json"
printf '{"imageLayoutVersion":"1.0.0"}' >"$layout/oci-layout"

mkdir -p "$(dirname "$out")"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$layout" -cf "$out" oci-layout index.json blobs
echo "built $out (manifest sha256:$manifest_hex) for ${names[*]}"
