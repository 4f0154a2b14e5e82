#!/usr/bin/env bash
# Stops or (re)starts one member of a cluster started by start-cluster.sh, e.g. to try failover.
# Usage: tools/etcd/member.sh stop|start|status DIR NAME     (NAME: m0, m1 or m2)
# start waits until the member is healthy again (it rejoins with its data).
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=lib.sh
. "$here/lib.sh"

[ $# -eq 3 ] || die "usage: member.sh stop|start|status DIR NAME"
load_cluster "$2"
member_index "$3" >/dev/null
case "$1" in
  stop) stop_member "$3" ;;
  start) start_member "$3" existing; wait_healthy "$3" ;;
  status) if member_running "$3"; then echo running; else echo stopped; fi ;;
  *) die "unknown command $1 (stop, start, status)" ;;
esac
