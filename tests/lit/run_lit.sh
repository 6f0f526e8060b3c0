#!/usr/bin/env bash
# Runs lit on one test file. Arguments: the test file, then the tools its
# RUN lines call (their directories are put first on PATH).
set -euo pipefail
test_file="$1"
shift
for tool in "$@"; do
  PATH="$(cd "$(dirname "$tool")" && pwd):$PATH"
done
export PATH="/usr/lib/llvm-22/bin:$PATH"
exec /usr/lib/llvm-22/bin/lit -v --config-prefix=lit "$test_file"
