#!/usr/bin/env bash
# Installs the Debian packages the tests use, when missing: kubectl (Debian's kubernetes-client if
# /usr/bin/kubectl is absent). Later suites add etcd-server and containerd here.
set -euo pipefail
need=()
command -v kubectl >/dev/null 2>&1 || need+=(kubernetes-client)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
echo "system packages ready: ${need[*]:-nothing to install}"
