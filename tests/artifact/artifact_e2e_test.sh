#!/usr/bin/env bash
# End-to-end checks of kilnc's artifacts with the bundled example model:
#  1. the same model and flags give byte-identical .kiln files;
#  2. --cpu=x86-64-v3 and native artifacts run and match onnxruntime;
#  3. an artifact for CPU features this machine lacks is refused by the
#     runtime with a message naming them (when the machine lacks AVX-512);
#  4. an unknown --cpu is a clear kilnc error.
set -euo pipefail
kilnc="$1"; kiln="$2"; compare="$3"; model="$4"
source tests/venv_python.sh
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$kilnc" "$model" -o "$tmp/a.kiln"
"$kilnc" "$model" -o "$tmp/b.kiln"
cmp "$tmp/a.kiln" "$tmp/b.kiln" || fail "two compilations differ"
echo "ok: byte-identical artifacts ($(stat -c %s "$tmp/a.kiln") bytes)"

for cpu in native x86-64-v3; do
  "$kilnc" "$model" -o "$tmp/$cpu.kiln" --cpu="$cpu"
  "$python" "$compare" "$model" "$tmp/$cpu.kiln" --kiln "$kiln" || fail "--cpu=$cpu mismatch"
  echo "ok: --cpu=$cpu matches onnxruntime"
done

if ! grep -qw avx512f /proc/cpuinfo; then
  "$kilnc" "$model" -o "$tmp/v4.kiln" --cpu=x86-64-v4
  if "$kiln" run "$tmp/v4.kiln" --seed 1 >"$tmp/v4.out" 2>&1; then
    fail "an x86-64-v4 artifact ran on a CPU without AVX-512"
  fi
  grep -q "artifact needs CPU features avx512f" "$tmp/v4.out" || { cat "$tmp/v4.out"; fail "unclear message"; }
  echo "ok: x86-64-v4 artifact refused: $(cat "$tmp/v4.out")"
else
  echo "skipped: this CPU has AVX-512, so no ISA-mismatch artifact to refuse"
fi

if "$kilnc" "$model" -o "$tmp/x.kiln" --cpu=no-such-cpu 2>"$tmp/x.err"; then
  fail "unknown CPU accepted"
fi
grep -q "unknown CPU 'no-such-cpu'" "$tmp/x.err" || fail "unclear unknown-CPU message"
echo "ok: unknown --cpu rejected"
