#!/usr/bin/env bash
# Installs the Debian 12 packages ftsim needs. Idempotent: when everything is
# present it only runs dpkg-query and returns in well under a second.
set -euo pipefail
PACKAGES=(build-essential cmake pkg-config libsystemc-dev libgtest-dev libgmock-dev libfmt-dev libyaml-cpp-dev
          libcli11-dev nlohmann-json3-dev libspdlog-dev gnuplot-nox verilator yosys clang libfuzzer-14-dev
          gtkwave xvfb xauth imagemagick python3 libopenmpi-dev openmpi-bin slurm-wlm munge
          opensm ibsim-utils)
missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then missing+=("$p"); fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
