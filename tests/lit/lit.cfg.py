# lit configuration for Kiln's FileCheck tests. Bazel's run_lit.sh puts
# kiln-opt (and other tools under test) first on PATH.
import lit.formats

config.name = "Kiln"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.environment["PATH"] = os.environ["PATH"]
# Keep lit's scratch output out of the source tree (Bazel gives a temp dir).
config.test_exec_root = os.environ.get("TEST_TMPDIR", "/tmp/kiln-lit")

# Shared objects built for the tests (pass plugins) sit in directories that
# run_lit.sh put on PATH; expose them as substitutions.
def _find_on_path(file_name):
    for directory in os.environ["PATH"].split(os.pathsep):
        candidate = os.path.join(directory, file_name)
        if os.path.exists(candidate):
            return candidate
    return file_name

for _substitution, _file_name in [
        ("%example_pass_plugin", "libKilnExampleFuseLayerNorm.so"),
        ("%stage_trace_plugin", "libKilnTestStageTrace.so"),
        ("%wrong_api_plugin", "libKilnTestWrongApiVersion.so"),
        ("%wrong_kiln_plugin", "libKilnTestWrongKilnVersion.so"),
        ("%no_entry_plugin", "libKilnTestNoEntryPoint.so"),
        ("%bad_pipeline_plugin", "libKilnTestBadPipeline.so"),
        ("%mlir_pass_plugin", "libKilnTestMlirCountOps.so"),
        ("%clashing_pass_plugin", "libKilnTestClashingPass.so")]:
    config.substitutions.append((_substitution, _find_on_path(_file_name)))

# The CUDA toolkit's ptxas (kilnc --target=cuda builds cubins with it):
# tests that need it say `REQUIRES: ptxas` and show as UNSUPPORTED where
# it is missing.
import shutil as _shutil
_ptxas = None
for _candidate in [os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "bin", "ptxas"),
                   "/usr/local/cuda/bin/ptxas", _shutil.which("ptxas")]:
    if _candidate and os.access(_candidate, os.X_OK):
        _ptxas = _candidate
        break
if _ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas))
else:
    lit_config.note("ptxas not found (no CUDA toolkit): --target=cuda tests are UNSUPPORTED")

# The host CPU's ISA extensions, for tests that run generated code built for
# a named CPU (`REQUIRES: cpu-avx512vnni`): they show as UNSUPPORTED on a
# host without them (an AVX2 machine) instead of dying of SIGILL.
try:
    with open("/proc/cpuinfo") as _cpuinfo:
        _flags = next((line.split(":", 1)[1].split() for line in _cpuinfo
                       if line.startswith("flags")), [])
except OSError:
    _flags = []
for _flag in ("avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512dq",
              "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx_vnni",
              "amx_tile", "amx_bf16", "amx_int8"):
    if _flag in _flags:
        config.available_features.add("cpu-" + _flag.replace("_", ""))
