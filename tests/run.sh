#!/usr/bin/env bash
# The whole test suite, from nothing: a virtualenv with every dependency, the
# Rust tests, the extension module, lints, pytest (with doctests), the notebooks
# and the documentation site.
# Polars is compiled once: the Rust tests and the extension share the release
# profile and one target directory outside the checkout (reused when present).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/polars-anon-target}"
export CARGO_TERM_COLOR=never
venv="${POLARS_ANON_VENV:-.venv}"
step() { printf '\n==> %s (%s)\n' "$1" "$(date +%T)"; }

step "python environment"
python3 -m venv "$venv"
# shellcheck disable=SC1091
. "$venv/bin/activate"
python -m pip install -q --upgrade pip
python -m pip install -q "maturin>=1.8,<2"

step "rust: format, tests"
cargo fmt --check
# With the bindings' feature, as clippy and the extension build: pyo3's macros
# widen syn's features, and a build without them would compile every
# proc-macro and polars a second time.
cargo test --release --features python

step "build and install the extension with its test dependencies and engines"
# PySpark (the spark extra) is a ~500 MB download with its jars; its tests run
# Spark for real in local[2] mode on the machine's Java 17, and fail loudly
# without it
java -version 2>&1 | head -n 1
maturin develop --release --extras test,plot,duckdb,spark,docs

step "rust: clippy"
cargo clippy --release --all-targets --features python -- -D warnings

step "python: lints and types"
ruff check python tests bench
ruff format --check python tests bench
mypy python/polars_anon
python -m mypy.stubtest polars_anon._core

step "pytest: tests, doctests, notebooks"
# --capture=sys: what the core, glibc or the JVM write to the process's own
# stderr reaches this log. A rare abort in tests/test_best.py (inside
# pickle.loads of cup's result: sessions 34 and 37) left only Python's
# traceback, its reason swallowed by the default capture of file descriptors.
python -m pytest -p no:cacheprovider --capture=sys --nbmake tests python/polars_anon notebooks

step "docs: the examples run, the reference is complete, the site builds (warnings are errors)"
export NO_MKDOCS_2_WARNING=1 # Material's notice about MkDocs 2, not a warning of the build
ruff check docs
# the .py files only: ruff would also reformat the code blocks of the pages
ruff format --check docs/check_reference.py docs/conftest.py docs/hooks
python -m pytest -p no:cacheprovider --doctest-glob="*.md" docs
mkdocs build --strict # runs docs/check_reference.py first
