#!/usr/bin/env bash
# The libFuzzer targets (tests/fuzz), built by clang 14 with ASan+UBSan.
#
#   scripts/fuzz.sh test [bazel args]    replay the regressions and seeds, then
#                                        fuzz each target KILN_FUZZ_SECONDS
#                                        (default 20); what CI runs
#   scripts/fuzz.sh build                build the five fuzzers
#   scripts/fuzz.sh run TARGET [args]    run one fuzzer on a copy of its seed
#                                        corpus (under $KILN_CACHE/fuzz-corpus/)
#                                        with libFuzzer's own arguments, e.g.
#                                        -max_total_time=3600 -jobs=1
#   scripts/fuzz.sh testlogs             where the fuzz tests' logs are
#
# The C compiler is a repository setting in Bazel, so these builds use an
# output base of their own (under $KILN_CACHE/bazel-fuzz/): the gcc build
# is left as it was.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$repo_root"

fuzzers=(artifact_loader_fuzzer npy_reader_fuzzer tensor_proto_reader_fuzzer
         onnx_importer_fuzzer paddle_readers_fuzzer)
# One output base per clone, like Bazel's own (keyed by the clone's path),
# chosen without asking the normal Bazel server (which may be busy).
fuzz_output_base="$kiln_cache/bazel-fuzz/$(printf %s "$repo_root" | md5sum | cut -c1-32)"
fuzz_bazel() {
  bazel --output_base="$fuzz_output_base" "$@"
}
fuzz_flags=("${bazel_flags[@]}" --config=fuzz)

command="${1:-test}"
shift || true
case "$command" in
  test)
    fuzz_bazel test "${fuzz_flags[@]}" \
      --test_env=KILN_FUZZ_SECONDS="${KILN_FUZZ_SECONDS:-20}" "$@" //tests/fuzz:fuzz_tests
    ;;
  build)
    fuzz_bazel build "${fuzz_flags[@]}" "$@" "${fuzzers[@]/#///tests/fuzz:}"
    ;;
  run)
    target="${1:?usage: scripts/fuzz.sh run TARGET [libFuzzer args]}"
    shift
    fuzz_bazel build "${fuzz_flags[@]}" "//tests/fuzz:$target"
    corpus="$kiln_cache/fuzz-corpus/$target"
    mkdir -p "$corpus"
    binary="$(fuzz_bazel info "${fuzz_flags[@]}" bazel-bin)/tests/fuzz/$target"
    exec "$binary" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
      -print_final_stats=1 "$@" "$corpus" "tests/fuzz/corpus/$target"
    ;;
  testlogs)
    fuzz_bazel info "${fuzz_flags[@]}" bazel-testlogs
    ;;
  *)
    echo "usage: scripts/fuzz.sh test|build|run TARGET|testlogs" >&2
    exit 2
    ;;
esac
