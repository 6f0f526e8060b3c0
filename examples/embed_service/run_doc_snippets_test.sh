#!/usr/bin/env bash
# Bazel test //examples/embed_service:embedding_doc_snippets: every code
# block docs/embedding.md quotes must equal its region in the sources.
# Arguments: CHECK_SNIPPETS.py DOC.md (the runfiles root is the repo root).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../tests/venv_python.sh"
exec "$python" "$1" . "$2"
