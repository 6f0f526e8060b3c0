#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything and
# runs every test (lit + FileCheck and GoogleTest), then prints the count of
# passed and failed test cases.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$repo_root"

"$repo_root/scripts/setup.sh"

start=$(date +%s)
status=0
bazel test "${bazel_flags[@]}" --test_env=KILN_PYTHON="$kiln_python" //... || status=$?
echo "test.sh: bazel test finished in $(( $(date +%s) - start )) s (exit $status)"

# Bazel counts targets; count the test cases inside them (one per lit file,
# one per GoogleTest case) from the JUnit XML each test leaves behind.
"$kiln_python" "$repo_root/scripts/summarize_tests.py" \
  "$(bazel info "${bazel_flags[@]}" bazel-testlogs)" "$status"
exit $status
