#!/usr/bin/env bash
# Installs the Debian packages dlsim builds and runs with (docs/design.md §2).
# Idempotent and silent when everything is already present; needs root (or sudo)
# only when something is missing.
#   tools/setup.sh --torch   also python3-torch and python3-torchvision, needed only by
#                            tools/dlsim-profile (large; never part of the default set)
set -euo pipefail

torch=false
for arg in "$@"; do
  case "$arg" in
    --torch) torch=true ;;
    *) echo "dlsim setup: error: unknown option $arg (only --torch)" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential cmake lld
  libeigen3-dev libboost-graph-dev nlohmann-json3-dev catch2 libcli11-dev
  libfmt-dev libspdlog-dev libbenchmark-dev libspectra-dev
  python3-matplotlib python3-pandas python3-pytest
  libopenmpi-dev openmpi-bin
  zlib1g-dev libdeflate-dev pkg-config dataset-fashion-mnist
  libsimgrid-dev
)
$torch && packages+=(python3-torch python3-torchvision)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "dlsim setup: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "dlsim setup: need root to install ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists when they are missing or older than a day.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)" ]; then
  $sudo apt-get update -qq
fi
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
