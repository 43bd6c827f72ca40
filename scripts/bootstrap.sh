#!/usr/bin/env bash
# Create .venv (Python 3.11) and install the project with its dev extras. Idempotent:
# re-running only installs what changed in pyproject.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-$(command -v python3.11 || command -v python3)}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
  .venv/bin/python -m pip install --quiet --upgrade pip
fi
stamp=.venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install --quiet -e ".[dev]"
  rm -f .venv/.installed-* && touch "$stamp"
fi
