#!/usr/bin/env bash
# Installs the Debian packages the tests use, when missing: kubectl (Debian's kubernetes-client if
# /usr/bin/kubectl is absent), etcd-server (the etcd storage suite and the HA test run a real etcd) and
# bubblewrap (the process CRI server isolates containers with bwrap), iptables and iproute2 (the node
# agent's iptables utility chains, tested in a network namespace) and containernetworking-plugins
# (the process CRI server's pod network namespaces: bridge, host-local, loopback, portmap).
# containerd is installed by tools/containerd/setup.sh, which the containerd suites call as root.
set -euo pipefail
need=()
command -v kubectl >/dev/null 2>&1 || need+=(kubernetes-client)
command -v etcd >/dev/null 2>&1 || need+=(etcd-server)
command -v etcdctl >/dev/null 2>&1 || need+=(etcd-client)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v iptables >/dev/null 2>&1 || [ -x /usr/sbin/iptables ] || need+=(iptables)
command -v ip >/dev/null 2>&1 || [ -x /usr/sbin/ip ] || need+=(iproute2)
[ -x /usr/lib/cni/bridge ] || need+=(containernetworking-plugins)
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import kubernetes" >/dev/null 2>&1 || need+=(python3-kubernetes)
[ -x /usr/bin/ruby ] && /usr/bin/ruby -e "require 'kubeclient'" >/dev/null 2>&1 || need+=(ruby-kubeclient)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
echo "system packages ready: ${need[*]:-nothing to install}"
