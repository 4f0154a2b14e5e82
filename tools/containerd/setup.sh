#!/usr/bin/env bash
# Sets up a private containerd + runc for Skiff's CRI tests and prints its CRI endpoint.
#
#   tools/containerd/setup.sh [--dir DIR]      (DIR defaults to <repo>/.tmp/containerd)
#
# 1. apt-installs containerd, runc, busybox-static and containernetworking-plugins when missing;
# 2. writes DIR/config.toml: root, state, socket, opt and CNI paths all under DIR, the CRI plugin
#    with restrict_oom_score_adj = true, sandbox_image = the locally built pause image, cgroupfs,
#    snapshotter overlayfs (native when an overlay mount fails here), registry hosts from DIR/certs.d;
# 3. starts containerd in the background (DIR/containerd.pid, DIR/containerd.log), waits for the socket;
# 4. builds OCI image tarballs from Debian's busybox-static (build-image.sh) and imports them into
#    the k8s.io namespace as docker.io/library/busybox:latest, docker.io/library/busybox:1.36 and
#    k8s.gcr.io/pause:3.6.
#
# Idempotent: a second run reuses the running containerd and the imported images. Needs root.
# The last line of stdout is the endpoint: unix://DIR/containerd.sock. Stop with stop.sh --dir DIR.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dir="$root/.tmp/containerd"
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="${2:?--dir needs a value}"; shift 2 ;;
    --dir=*) dir="${1#--dir=}"; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
sock="$dir/containerd.sock"
pause_image="k8s.gcr.io/pause:3.6"
busybox_images=(docker.io/library/busybox:latest docker.io/library/busybox:1.36)

log() { echo "setup.sh: $*" >&2; }

if [ "$(id -u)" != 0 ]; then
  log "must run as root (containerd and runc need it)"
  exit 1
fi
# A unix socket path is limited to 107 bytes; containerd also appends ".ttrpc".
if [ ${#sock} -gt 100 ]; then
  log "socket path $sock is too long for a unix socket; use a shorter --dir"
  exit 1
fi

# --- 1. packages --------------------------------------------------------------------------------
need=()
command -v containerd >/dev/null 2>&1 || need+=(containerd)
command -v runc >/dev/null 2>&1 || need+=(runc)
[ -x /bin/busybox ] || need+=(busybox-static)
[ -x /usr/lib/cni/bridge ] || need+=(containernetworking-plugins)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi
if ! /bin/busybox --list-full >/dev/null 2>&1; then
  log "/bin/busybox is not the static busybox (install busybox-static)"
  exit 1
fi

running() {
  [ -f "$dir/containerd.pid" ] && kill -0 "$(cat "$dir/containerd.pid")" 2>/dev/null &&
    ctr --address "$sock" --timeout 5s version >/dev/null 2>&1
}

# --- 2. config ----------------------------------------------------------------------------------
if running; then
  log "containerd already running (pid $(cat "$dir/containerd.pid")), reusing it"
else
  mkdir -p "$dir/root" "$dir/state" "$dir/runc" "$dir/opt" "$dir/cni/net.d" "$dir/cni/ipam" "$dir/certs.d"

  # overlayfs works on most kernels, but not on every filesystem the root dir may sit on.
  snapshotter=native
  probe="$dir/overlay-probe"
  rm -rf "$probe"
  mkdir -p "$probe/lower" "$probe/upper" "$probe/work" "$probe/merged"
  if mount -t overlay overlay -o "lowerdir=$probe/lower,upperdir=$probe/upper,workdir=$probe/work" "$probe/merged" 2>/dev/null; then
    umount "$probe/merged"
    snapshotter=overlayfs
  fi
  rm -rf "$probe"
  echo "$snapshotter" >"$dir/snapshotter"

  # A bridge name and subnet derived from DIR, so two setups on one machine do not collide.
  hash="$(printf '%s' "$dir" | sha256sum | cut -c1-8)"
  octet=$((16#${hash:0:2}))
  bridge="skf${hash}"
  cat >"$dir/cni/net.d/10-skiff.conflist" <<JSON
{
  "cniVersion": "0.4.0",
  "name": "skiff-$hash",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$bridge",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$dir/cni/ipam",
        "ranges": [[{ "subnet": "10.89.$octet.0/24" }]],
        "routes": [{ "dst": "0.0.0.0/0" }]
      }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
JSON

  cat >"$dir/config.toml" <<TOML
# Written by tools/containerd/setup.sh; rewritten on every start.
version = 2
root = "$dir/root"
state = "$dir/state"
oom_score = 0

[grpc]
  address = "$sock"

[ttrpc]
  address = "$sock.ttrpc"

[plugins."io.containerd.internal.v1.opt"]
  path = "$dir/opt"

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause_image"
  # Root here lacks CAP_SYS_RESOURCE: without this RunPodSandbox fails in runc.
  restrict_oom_score_adj = true
  enable_selinux = false
  max_container_log_line_size = 16384
  # Network namespaces under DIR/state instead of the system-wide /var/run/netns.
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "$snapshotter"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        # runc's state under DIR instead of /run/containerd/runc.
        Root = "$dir/runc"
  # Per-registry hosts.toml files (DIR/certs.d/<registry>/hosts.toml), read on every pull: tests
  # point a registry name at a loopback server. Empty: containerd's defaults.
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$dir/certs.d"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$dir/cni/net.d"
    max_conf_num = 1
TOML

  # --- 3. start ---------------------------------------------------------------------------------
  rm -f "$sock" "$sock.ttrpc"
  # containerd 1.6 hardcodes /run/containerd/s (shim sockets) and libcni /var/lib/cni (result
  # cache); remember which of them it creates, so stop.sh removes them again when empty.
  for hostdir in /run/containerd /var/lib/cni; do
    if [ ! -e "$hostdir" ] && ! grep -qxF "$hostdir" "$dir/host-dirs-created" 2>/dev/null; then
      echo "$hostdir" >>"$dir/host-dirs-created"
    fi
  done
  log "starting containerd (snapshotter $snapshotter, log $dir/containerd.log)"
  setsid containerd --config "$dir/config.toml" >>"$dir/containerd.log" 2>&1 </dev/null &
  echo $! >"$dir/containerd.pid"
  for _ in $(seq 1 150); do
    if running; then break; fi
    if ! kill -0 "$(cat "$dir/containerd.pid")" 2>/dev/null; then
      log "containerd exited; last log lines:"
      tail -n 20 "$dir/containerd.log" >&2
      exit 1
    fi
    sleep 0.2
  done
  if ! running; then
    log "containerd did not answer on $sock within 30 s; last log lines:"
    tail -n 20 "$dir/containerd.log" >&2
    exit 1
  fi
fi

# --- 4. images ----------------------------------------------------------------------------------
snapshotter="$(cat "$dir/snapshotter")"
ctr_k8s() { ctr --address "$sock" --namespace k8s.io "$@"; }
have="$(ctr_k8s images ls -q 2>/dev/null || true)"
missing=0
for name in "${busybox_images[@]}" "$pause_image"; do
  grep -qxF "$name" <<<"$have" || missing=1
done
if [ "$missing" = 1 ]; then
  mkdir -p "$dir/images"
  bash "$here/build-image.sh" --out "$dir/images/busybox.tar" --cmd sh "${busybox_images[@]}" >&2
  bash "$here/build-image.sh" --out "$dir/images/pause.tar" --entrypoint /bin/sleep --cmd 2147483647 "$pause_image" >&2
  for tarball in "$dir/images/busybox.tar" "$dir/images/pause.tar"; do
    ctr_k8s images import --snapshotter "$snapshotter" "$tarball" >&2
  done
fi
# The CRI plugin learns about imported images asynchronously; wait until it reports them.
for _ in $(seq 1 50); do
  if ctr_k8s images ls -q | grep -qxF "$pause_image"; then break; fi
  sleep 0.2
done

log "ready"
echo "unix://$sock"
