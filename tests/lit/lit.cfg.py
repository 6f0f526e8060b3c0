# lit configuration for Kiln's FileCheck tests. Bazel's run_lit.sh puts
# kiln-opt (and other tools under test) first on PATH.
import lit.formats

config.name = "Kiln"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.environment["PATH"] = os.environ["PATH"]
# Keep lit's scratch output out of the source tree (Bazel gives a temp dir).
config.test_exec_root = os.environ.get("TEST_TMPDIR", "/tmp/kiln-lit")
