#!/usr/bin/env bash
# The sanitizer test sets (gcc 12's sanitizers; configs in .bazelrc).
#
#   scripts/sanitizer_tests.sh asan-ubsan [bazel args]   ASan+UBSan set (CI)
#   scripts/sanitizer_tests.sh tsan [bazel args]         TSan set (CI)
#   scripts/sanitizer_tests.sh testlogs CONFIG           where its logs are
#
# The ASan+UBSan set: the runtime's, the kiln tool's, the artifact writer's,
# the dialect's, the ONNX importer's and the Paddle readers' C++ tests, and the concurrency test on a
# kilnc-compiled model (kilnc itself runs as a build tool there, unsanitized).
# Left out: tests that drive kilnc over many models (lit, conformance, e2e,
# fuzz_kilnc), because a sanitized compiler and LLVM code generation make
# them too slow for CI; they build and run with --config=asan --config=ubsan
# by hand. The importer still runs sanitized on every CI run through
# //tests/fuzz:onnx_importer_fuzzer (clang ASan+UBSan; scripts/fuzz.sh).
#
# The TSan set: every test that runs sessions or the pool on several threads,
# the 64-thread stress test at KILN_TSAN_STRESS_RUNS (default 20) runs per
# thread.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$repo_root"

asan_ubsan_tests=(
  //runtime:runtime_test
  //runtime:profile_test
  //runtime:errors_test
  //runtime:concurrency_test
  //runtime:c_api_test
  //runtime:thread_pool_test
  //runtime:dependencies_test
  //runtime:loader_checks_test
  //runtime:elf_inspect_test
  //runtime:checked_math_test
  //runtime:guard_exceptions_test
  //tools/kiln:kiln_tool_test
  //tools/kiln:kiln_errors_test
  //tools/kiln:compare_stats_test
  //tools/kiln:kiln_compare_test
  //compiler/artifact:artifact_writer_test
  //compiler/quant:ranges_test
  //compiler/onnx:tensor_decoding_test
  //compiler/paddle:paddle_readers_test
  //dialects/kiln:kiln_ops_test
  //dialects/kiln:shape_inference_test
  //tests/runtime:compiled_model_concurrency_test
  //tests/runtime:compiled_kernel_checks_test
  //examples/embed_service:tensor_json_test
  //examples/embed_service:inference_service_test
)
tsan_tests=(
  //runtime:concurrency_test
  //runtime:thread_pool_test
  //tests/runtime:compiled_model_concurrency_test
  //tests/runtime:stress_test
  //examples/embed_service:inference_service_test
)
# The stress test's 64 threads at TSan's speed: fewer runs per thread.
tsan_flags=(--test_env=KILN_STRESS_RUNS="${KILN_TSAN_STRESS_RUNS:-20}")

config="${1:?usage: scripts/sanitizer_tests.sh asan-ubsan|tsan|testlogs CONFIG}"
shift
case "$config" in
  asan-ubsan) tests=("${asan_ubsan_tests[@]}") flags=() ;;
  tsan) tests=("${tsan_tests[@]}") flags=("${tsan_flags[@]}") ;;
  testlogs)
    bazel info "${bazel_flags[@]}" --config="${1:?config}" bazel-testlogs
    exit 0
    ;;
  *)
    echo "unknown sanitizer set '$config' (asan-ubsan or tsan)" >&2
    exit 2
    ;;
esac
bazel test "${bazel_flags[@]}" --config="$config" \
  --test_env=KILN_PYTHON="$kiln_python" "${flags[@]}" "$@" "${tests[@]}"
