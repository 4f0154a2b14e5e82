#!/usr/bin/env bash
# Stops the containerd started by setup.sh and cleans up what it left behind.
#
#   tools/containerd/stop.sh [--dir DIR] [--purge]
#
# Kills and deletes every task in the k8s.io namespace, stops containerd (SIGTERM, SIGKILL after
# 10 s), kills the runc shims that served this containerd (their command line names DIR's socket),
# unmounts whatever is still mounted under DIR and removes the CNI bridge. --purge also deletes DIR.
# Safe to run when nothing is running.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dir="$root/.tmp/containerd"
purge=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="${2:?--dir needs a value}"; shift 2 ;;
    --dir=*) dir="${1#--dir=}"; shift ;;
    --purge) purge=1; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "stop.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ ! -d "$dir" ]; then
  echo "stop.sh: $dir does not exist; nothing to stop" >&2
  exit 0
fi
dir="$(cd "$dir" && pwd)"
sock="$dir/containerd.sock"
log() { echo "stop.sh: $*" >&2; }

pid=""
if [ -f "$dir/containerd.pid" ]; then
  pid="$(cat "$dir/containerd.pid")"
  # Only a containerd started with our config counts: the pid may have been reused.
  if ! kill -0 "$pid" 2>/dev/null || ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$dir/config.toml"; then
    pid=""
  fi
fi

if [ -n "$pid" ]; then
  ctr_k8s() { ctr --address "$sock" --namespace k8s.io --timeout 10s "$@"; }
  for task in $(ctr_k8s tasks ls -q 2>/dev/null || true); do
    ctr_k8s tasks kill --signal SIGKILL "$task" >/dev/null 2>&1 || true
  done
  sleep 0.5
  for task in $(ctr_k8s tasks ls -q 2>/dev/null || true); do
    ctr_k8s tasks delete --force "$task" >/dev/null 2>&1 || true
  done
  for container in $(ctr_k8s containers ls -q 2>/dev/null || true); do
    ctr_k8s containers delete "$container" >/dev/null 2>&1 || true
  done
  log "stopping containerd (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  kill -KILL "$pid" 2>/dev/null || true
fi
rm -f "$dir/containerd.pid"

# Shims outlive containerd by design; each wrote its pid into its bundle under DIR/state.
for pidfile in "$dir"/state/io.containerd.runtime.v2.task/*/*/shim.pid; do
  [ -f "$pidfile" ] || continue
  shim="$(cat "$pidfile")"
  if tr '\0' ' ' <"/proc/$shim/cmdline" 2>/dev/null | grep -q "containerd-shim.*-address $sock"; then
    kill -KILL "$shim" 2>/dev/null || true
  fi
done

# Sandbox /dev/shm mounts, rootfs overlays and netns bind mounts under DIR, deepest first.
{ grep -F " $dir/" /proc/self/mounts || true; } | cut -d' ' -f2 | sort -r | while read -r target; do
  umount -l "$target" 2>/dev/null || true
done

if [ -f "$dir/cni/net.d/10-skiff.conflist" ]; then
  bridge="$(grep -o '"bridge": "[^"]*"' "$dir/cni/net.d/10-skiff.conflist" | cut -d'"' -f4)"
  if [ -n "$bridge" ] && ip link show "$bridge" >/dev/null 2>&1; then
    ip link delete "$bridge" 2>/dev/null || true
  fi
fi
rm -f "$sock" "$sock.ttrpc"

# containerd 1.6 hardcodes two host paths: shim sockets in /run/containerd/s (named by a hash of
# this socket, so they never collide with a system containerd) and libcni's result cache in
# /var/lib/cni/results. Drop our cache entries, then the directories setup.sh saw appear, and only
# when that left them empty.
if [ -n "${bridge:-}" ]; then
  rm -f /var/lib/cni/results/skiff-"${bridge#skf}"-* 2>/dev/null || true
fi
if [ -f "$dir/host-dirs-created" ]; then
  while read -r hostdir; do
    case "$hostdir" in
      /run/containerd) rmdir /run/containerd/s /run/containerd 2>/dev/null || true ;;
      /var/lib/cni) rmdir /var/lib/cni/results /var/lib/cni 2>/dev/null || true ;;
    esac
  done <"$dir/host-dirs-created"
  rm -f "$dir/host-dirs-created"
fi

if [ "$purge" = 1 ]; then
  rm -rf "$dir"
  log "removed $dir"
fi
log "stopped"
