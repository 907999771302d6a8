#!/usr/bin/env bash
# Installs the Debian 12 packages the project builds and tests with; idempotent and non-interactive.
# With --farm, also the one-node Slurm cluster `make test-farm` starts (munge, slurm-wlm).
set -euo pipefail

packages=(
  cmake ninja-build g++ make ccache pkg-config git
  libsystemc-dev verilator yosys zlib1g-dev libzip-dev
  libyaml-cpp-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  libcli11-dev nlohmann-json3-dev
  libdnnl-dev
  clang-format clang-tidy
  python3 python3-dev python3-numpy python3-yaml python3-pytest pybind11-dev python3-pybind11
  python3-torch python3-torchvision python3-onnx python3-sklearn
)
if [ "${1:-}" = "--farm" ]; then
  packages+=(munge slurm-wlm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists only when they are missing or an install from them fails.
if ! ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1; then
  "${sudo_cmd[@]}" apt-get update -q
fi
if ! "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"; then
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
