# Sourced by the Bazel test wrappers that run Python: sets $python to the
# test venv's interpreter (made by scripts/setup.sh), or fails the test.
# Bazel points HOME at a temporary directory for tests, so the venv is found
# through $KILN_PYTHON (scripts/test.sh passes it) or the real home directory.
python="${KILN_PYTHON:-$(getent passwd "$(id -u)" | cut -d: -f6)/.cache/kiln/venv/bin/python}"
if [[ ! -x "$python" ]]; then
  echo "FAIL: the test venv's Python '$python' is missing;" \
       "run scripts/setup.sh (or set KILN_PYTHON)" >&2
  exit 1
fi
