#!/usr/bin/env bash
# The parts of device_check.sh that run without a GPU: on a machine without
# the NVIDIA driver it stops at once with "no GPU" and exit status 2 (never
# hangs, never reports success); compare_outputs.py accepts equal outputs
# and reports a mismatch, reading .npy files without numpy.
set -euo pipefail
script=tests/gpu/device_check.sh
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
  echo "this machine has an NVIDIA driver: run tests/gpu/device_check.sh itself"
else
  set +e
  out=$(timeout 60 "$script" 2>&1)
  code=$?
  set -e
  [[ $code == 2 ]] || { echo "expected exit 2, got $code: $out"; exit 1; }
  grep -q "device_check: no GPU: the NVIDIA driver (libcuda.so.1) is not installed" <<<"$out" \
    || { echo "unexpected message: $out"; exit 1; }
fi
set +e
timeout 10 "$script" frobnicate >/dev/null 2>&1
[[ $? == 2 ]] || { echo "a bad phase must be a usage error"; exit 1; }
set -e

# compare_outputs.py on hand-made .npy files (format version 1, '<f4').
dir="${TEST_TMPDIR:-$(mktemp -d)}/cmp"
mkdir -p "$dir/run" "$dir/cases"
python3 - "$dir" <<'PY'
import json, struct, sys
d = sys.argv[1]
def npy(path, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))
npy(d + "/cases/ref_y.npy", [1.0, 2.0, 3.0])
npy(d + "/run/y.npy", [1.0, 2.0005, 3.0])
npy(d + "/cases/bad_y.npy", [1.0, 2.5, 3.0])
json.dump({"models": [{"name": "m", "outputs": {"y": "cases/ref_y.npy"}}]}, open(d + "/manifest.json", "w"))
PY
python3 tests/gpu/compare_outputs.py "$dir" m "$dir/run" | grep -q "m/y: ok, max abs error 0.0005"
mkdir -p "$dir/bad" && cp "$dir/cases/bad_y.npy" "$dir/bad/y.npy"
if python3 tests/gpu/compare_outputs.py "$dir" m "$dir/bad" >"$dir/bad.txt"; then
  echo "a mismatch must fail"; exit 1
fi
grep -q "m/y: MISMATCH (1 of 3 elements), max abs error 0.5" "$dir/bad.txt"
echo "device_check_test: ok"
