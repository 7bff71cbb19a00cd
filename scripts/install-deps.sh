#!/usr/bin/env bash
# Installs what fabscope needs to build and test, from Debian 12's packages.
# CUDA, NCCL and rdma-core are optional: found, later backends use them; absent,
# the build still succeeds.
set -euo pipefail

packages=(
  build-essential cmake ninja-build git pkg-config
  openmpi-bin libopenmpi-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libhwloc-dev hwloc libibverbs-dev libssl-dev
  python3 python3-jsonschema python3-junitparser python3-prometheus-client python3-yaml
  slurm-wlm munge
  chromium
  iproute2 iperf3 sockperf
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
