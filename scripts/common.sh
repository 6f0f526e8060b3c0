# Shared by the scripts: where things live and how Bazel is called.
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kiln_cache="${KILN_CACHE:-$HOME/.cache/kiln}"
kiln_python="$kiln_cache/venv/bin/python"
# A disk cache outside the clone makes repeated clean builds (CI clones
# afresh every run) fast on the same machine.
bazel_flags=("--disk_cache=$kiln_cache/bazel-disk")
