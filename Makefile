# The README's commands. Everything runs from the repo root with the project's .venv.
export DAGSTER_HOME ?= $(CURDIR)/data/dagster_home

.PHONY: setup demo test test-fast screenshots lint format ui validate fixtures fixtures-check bench clean

setup:
	@bash scripts/bootstrap.sh

demo: setup  ## ingest the sample papers with both strategies (embedded Dagster + Chroma, no LLM)
	@mkdir -p $(DAGSTER_HOME)
	.venv/bin/legco-assets ingest data/samples --strategy both

test: setup  ## the whole test suite
	bash scripts/run_tests.sh

test-fast: setup  ## everything but the browser test
	.venv/bin/python -m pytest -m "not browser"

screenshots: setup  ## the browser tests, saving their screenshots over the committed ones in docs/screenshots/
	LEGCO_SCREENSHOTS=docs/screenshots .venv/bin/python -m pytest -m browser

lint: setup  ## ruff: the lint rules and the format check that make test runs first
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .

format: setup  ## apply ruff's format and its safe fixes
	.venv/bin/ruff check --fix .
	.venv/bin/ruff format .

ui: setup  ## the Dagster UI on http://127.0.0.1:3000, and legco-assets serve (search page, API, MCP, the excerpts its links open; read-only) on http://127.0.0.1:8000
	@mkdir -p $(DAGSTER_HOME)
	.venv/bin/legco-assets serve --host 127.0.0.1 --port 8000 & server=$$!; \
	trap 'kill $$server 2>/dev/null' EXIT INT TERM; \
	.venv/bin/dagster dev -w workspace.yaml -h 127.0.0.1 -p 3000

validate: setup
	.venv/bin/dagster definitions validate -w workspace.yaml

fixtures: setup  ## regenerate the committed fixture PDFs (needs a CJK font: apt-get install fonts-wqy-microhei fonts-dejavu-core)
	.venv/bin/python -m legco_assets_tests.fixtures.generate_fixtures

fixtures-check: setup  ## regenerate the fixture PDFs in memory and compare them with the committed bytes (needs the same CJK font)
	.venv/bin/python -m legco_assets_tests.fixtures.generate_fixtures --check

bench: setup
	.venv/bin/python scripts/bench_token_path.py

clean:
	rm -rf data/dagster_home data/documents data/chroma data/cache
