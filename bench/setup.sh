#!/usr/bin/env bash
# Creates the benchmark venv: the pinned test packages of
# scripts/requirements.txt plus OpenVINO (bench/requirements.txt). It is
# separate from the test venv, so CI's test environment never changes.
# Safe to run any number of times; prints the venv's python on stdout.
#
# Environment:
#   KILN_CACHE  where the venv lives (default: ~/.cache/kiln)
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kiln_cache="${KILN_CACHE:-$HOME/.cache/kiln}"

# Keyed by both requirement files: a change of pins makes a new venv.
requirements_hash="$(cat "$repo_root/bench/requirements.txt" "$repo_root/scripts/requirements.txt" \
  | sha256sum | cut -c1-12)"
venv="$kiln_cache/bench-venv-$requirements_hash"
if [[ ! -f "$venv/.kiln-complete" ]]; then
  echo "bench/setup.sh: creating Python venv $venv" >&2
  rm -rf "$venv"
  mkdir -p "$kiln_cache"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip >&2
  "$venv/bin/python" -m pip install -q -r "$repo_root/bench/requirements.txt" >&2
  touch "$venv/.kiln-complete"
fi
ln -sfn "$venv" "$kiln_cache/bench-venv"
echo "$kiln_cache/bench-venv/bin/python"
