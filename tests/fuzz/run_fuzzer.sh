#!/usr/bin/env bash
# Bazel test //tests/fuzz:<target>_test. Arguments: FUZZER SEED_DIR
# REGRESSION_DIR (runfiles-relative). Replays every committed regression and
# seed input, then fuzzes for $KILN_FUZZ_SECONDS (default 20) starting from
# the seeds. Any crash, sanitizer report, leak, hang (> 10 s per input) or
# input that needs over 2 GiB fails the test.
set -euo pipefail
fuzzer="$1" seeds="$2" regressions="$3"
seconds="${KILN_FUZZ_SECONDS:-20}"
outputs="${TEST_UNDECLARED_OUTPUTS_DIR:-${TEST_TMPDIR:-/tmp}}"
work="${TEST_TMPDIR:-$(mktemp -d)}/corpus"
mkdir -p "$work"
options=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048
         -artifact_prefix="$outputs/")

replay=()
for dir in "$regressions" "$seeds"; do
  [[ -d "$dir" ]] && while IFS= read -r -d '' f; do replay+=("$f"); done \
    < <(find -L "$dir" -type f -print0 | sort -z)
done
echo "run_fuzzer: replaying ${#replay[@]} regression and seed inputs"
if ((${#replay[@]})); then
  status=0
  "$fuzzer" "${options[@]}" "${replay[@]}" > "$outputs/replay.log" 2>&1 || status=$?
  if [[ $status -ne 0 ]]; then
    tail -n 60 "$outputs/replay.log"
    echo "run_fuzzer: a committed input fails (exit $status)"
    exit 1
  fi
fi

echo "run_fuzzer: fuzzing for $seconds s"
status=0
"$fuzzer" "${options[@]}" -max_total_time="$seconds" -print_final_stats=1 \
  "$work" "$seeds" > "$outputs/fuzz.log" 2>&1 || status=$?
grep -v -E '^#[0-9]+\s+(NEW|REDUCE|pulse)' "$outputs/fuzz.log" | tail -n 60
if [[ $status -ne 0 ]]; then
  echo "run_fuzzer: the fuzzer found a failure (exit $status); the input is in $outputs"
  exit 1
fi
