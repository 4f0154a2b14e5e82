# Shared helpers of the local etcd cluster scripts (sourced, not run).
# Layout of a cluster folder DIR:
#   DIR/cluster.env        BASE_PORT, ETCD_BIN, NAMES: fixed when the cluster is created
#   DIR/endpoints          client URLs, comma-separated (pass to --etcd-servers)
#   DIR/<name>/            member data;  DIR/<name>.log  DIR/<name>.pid
# Member i (0-based) listens on 127.0.0.1: client BASE_PORT+10*i, peer BASE_PORT+10*i+1.

set -euo pipefail

die() { echo "etcd-cluster: $*" >&2; exit 1; }

load_cluster() {
  DIR="$1"
  [ -f "$DIR/cluster.env" ] || die "no cluster in $DIR (run start-cluster.sh first)"
  # shellcheck disable=SC1091
  . "$DIR/cluster.env"
}

member_index() {
  local name="$1" i=0
  for n in $NAMES; do
    [ "$n" = "$name" ] && { echo "$i"; return; }
    i=$((i + 1))
  done
  die "unknown member $name (members: $NAMES)"
}

client_url() { echo "http://127.0.0.1:$((BASE_PORT + 10 * $1))"; }
peer_url() { echo "http://127.0.0.1:$((BASE_PORT + 10 * $1 + 1))"; }

initial_cluster() {
  local i=0 out=""
  for n in $NAMES; do
    out="${out:+$out,}$n=$(peer_url "$i")"
    i=$((i + 1))
  done
  echo "$out"
}

member_running() {
  local pidfile="$DIR/$1.pid"
  [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

start_member() {
  local name="$1" state="$2" i
  i=$(member_index "$name")
  if member_running "$name"; then echo "member $name already running (pid $(cat "$DIR/$name.pid"))"; return; fi
  nohup "$ETCD_BIN" \
    --name="$name" \
    --data-dir="$DIR/$name" \
    --listen-client-urls="$(client_url "$i")" \
    --advertise-client-urls="$(client_url "$i")" \
    --listen-peer-urls="$(peer_url "$i")" \
    --initial-advertise-peer-urls="$(peer_url "$i")" \
    --initial-cluster="$(initial_cluster)" \
    --initial-cluster-token="skiff-local-$BASE_PORT" \
    --initial-cluster-state="$state" \
    --log-level=warn --logger=zap \
    ${ETCD_EXTRA_ARGS:-} \
    >>"$DIR/$name.log" 2>&1 </dev/null &
  echo $! >"$DIR/$name.pid"
}

stop_member() {
  local name="$1" pid
  member_running "$name" || { rm -f "$DIR/$name.pid"; return 0; }
  pid=$(cat "$DIR/$name.pid")
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$DIR/$name.pid"
}

# Waits until the member answers /health (a member alone reports unhealthy until it has a leader).
wait_healthy() {
  local name="$1" i url
  i=$(member_index "$name")
  url="$(client_url "$i")/health"
  for _ in $(seq 1 300); do
    if curl -fsS --max-time 1 "$url" 2>/dev/null | grep -q '"health":"true"'; then return 0; fi
    member_running "$name" || die "member $name exited; see $DIR/$name.log"
    sleep 0.1
  done
  die "member $name not healthy after 30s; see $DIR/$name.log"
}
