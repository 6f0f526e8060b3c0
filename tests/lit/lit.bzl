"""One Bazel test per lit file, so results are cached and run in parallel."""

def lit_tests(name, srcs, tools, data = []):
    """Declares `<file>.test` targets running lit on each file in srcs.

    Args:
      name: a test_suite grouping every generated test.
      srcs: the .mlir (or other) files that carry RUN lines.
      tools: binaries the RUN lines call; their directories go first on PATH.
      data: extra files the tests read.
    """
    tests = []
    for src in srcs:
        test_name = src + ".test"
        native.sh_test(
            name = test_name,
            srcs = ["//tests/lit:run_lit.sh"],
            args = ["$(location %s)" % src] + ["$(location %s)" % t for t in tools],
            data = [
                src,
                "//tests/lit:lit_config",
                "@llvm//:lit",
                "@llvm//:test_tools",
            ] + tools + data,
            size = "small",
        )
        tests.append(test_name)
    native.test_suite(name = name, tests = tests)
