#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything and
# runs every test (lit + FileCheck and GoogleTest), then the sanitizer sets
# (ASan+UBSan, TSan) and the fuzz targets for a bounded time each, then
# prints the count of passed and failed test cases (per extra set, and in
# total on the last line).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$repo_root"

"$repo_root/scripts/setup.sh"

start=$(date +%s)
status=0
bazel test "${bazel_flags[@]}" --test_env=KILN_PYTHON="$kiln_python" //... || status=$?
main_status=$status
echo "test.sh: bazel test finished in $(( $(date +%s) - start )) s (exit $status)"

# Each extra set: NAME COMMAND...; its exit status and time are recorded.
extra_sets=()
run_set() {
  local name="$1" set_start set_status=0
  shift
  set_start=$(date +%s)
  "$@" || set_status=$?
  echo "test.sh: $name finished in $(( $(date +%s) - set_start )) s (exit $set_status)"
  extra_sets+=("$name" "$testlogs" "$set_status")
  [[ $set_status -eq 0 ]] || status=$set_status
}
testlogs="$("$repo_root/scripts/sanitizer_tests.sh" testlogs asan-ubsan)"
run_set asan-ubsan "$repo_root/scripts/sanitizer_tests.sh" asan-ubsan
testlogs="$("$repo_root/scripts/sanitizer_tests.sh" testlogs tsan)"
run_set tsan "$repo_root/scripts/sanitizer_tests.sh" tsan
testlogs="$("$repo_root/scripts/fuzz.sh" testlogs)"
run_set fuzz "$repo_root/scripts/fuzz.sh" test

# Bazel counts targets; count the test cases inside them (one per lit file,
# one per GoogleTest case) from the JUnit XML each test leaves behind.
"$kiln_python" "$repo_root/scripts/summarize_tests.py" \
  "$(bazel info "${bazel_flags[@]}" bazel-testlogs)" "$main_status" "${extra_sets[@]}"
exit $status
