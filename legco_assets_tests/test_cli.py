"""The command line: JSON Lines only on stdout, one-line errors, no Dagster for ``chunk``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .factories import fixed_english_paper
from .pdf_factory import make_pdf


def _run(*args: str, env_dir: Path | None = None) -> subprocess.CompletedProcess:
    import os

    env = {**os.environ}
    if env_dir:
        env.update(LEGCO_DATA_DIR=str(env_dir / "data"), DAGSTER_HOME=str(env_dir / "dagster_home"))
    return subprocess.run(
        [sys.executable, "-m", "legco_assets.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def test_chunk_prints_chunk_records_only(tmp_path: Path) -> None:
    paper = fixed_english_paper(tmp_path / "paper.pdf", pages=5)
    done = _run("chunk", str(paper), "--strategy", "token")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert records and all(r["id"] == f"paper:token:{i}" for i, r in enumerate(records))
    first = records[0]
    assert set(first) == {"id", "document_id", "text", "page_number", "metadata"}
    meta = first["metadata"]
    assert (
        meta["strategy_type"] == "token"
        and meta["filename"] == "paper.pdf"
        and meta["is_latest_version"] is True
    )
    assert len(meta["content_sha256"]) == 64 and meta["page_start"] == first["page_number"] == 1
    assert "question_id" not in meta, "Q&A keys are absent on token chunks"


def test_chunk_never_imports_dagster(tmp_path: Path) -> None:
    paper = make_pdf(
        tmp_path / "p.pdf",
        [["Q1 What is the allowance rate for the elderly in this scheme?", "It is paid monthly."] * 20],
    )
    code = (
        "import sys, io, contextlib; from legco_assets import cli\n"
        f"with contextlib.redirect_stdout(io.StringIO()): rc = cli.main(['chunk', {str(paper)!r}, '--strategy', 'token'])\n"
        "assert rc == 0; print('dagster' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_chunk_begins_reading_before_the_settings_load(tmp_path: Path) -> None:
    """``chunk`` begins a long PDF's reading (its forked reader) before the settings load:
    building the parser and beginning the reading import neither the settings nor pydantic
    (a fifth of a second, which the reader spends on the other core), and the reading
    begun gives every page; a file that cannot be read begins nothing and the command says
    why in one line."""
    pages = [
        [f"Q{n} What is the allowance rate for district {n}?", "It is paid monthly."] for n in range(1, 46)
    ]
    paper = make_pdf(tmp_path / "p.pdf", pages)
    code = (
        "import sys; from legco_assets.cli.main import build_parser\n"
        f"args = build_parser().parse_args(['chunk', {str(paper)!r}])\n"
        "begun = args.begin(args)\n"
        "print(sorted(m for m in ('pydantic', 'pydantic_settings', 'legco_assets.core.settings') if m in sys.modules))\n"
        "with begun: print(len(begun.result().pages))\n"
        "missing = build_parser().parse_args(['chunk', 'missing.pdf'])\n"
        "print(missing.begin(missing))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["[]", "45", "None"]
    missing = _run("chunk", str(tmp_path / "missing.pdf"), "--strategy", "token")
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.count("\n") == 1 and "missing.pdf" in missing.stderr


def test_question_chunk_loads_no_network_llm_or_store_library(tmp_path: Path) -> None:
    """Start-up (a command must start fast): ``chunk --no-llm`` of a question paper imports none of what it
    does not use: the feed's HTTP client (httpx, which brings click, rich and pygments), the
    LLM client, Chroma; and it writes cl100k's decoded ranks to the data dir's cache once."""
    paper = make_pdf(
        tmp_path / "p.pdf",
        [["Q1 What is the allowance rate for the elderly in this scheme?", "It is paid monthly."] * 20],
    )
    code = (
        "import sys, io, contextlib; from legco_assets import cli\n"
        f"with contextlib.redirect_stdout(io.StringIO()): rc = cli.main(['chunk', {str(paper)!r}, '--strategy', 'question', '--no-llm'])\n"
        "assert rc == 0; print(sorted(m for m in ('httpx', 'openai', 'chromadb', 'rich', 'click') if m in sys.modules))"
    )
    env = {**os.environ, "LEGCO_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert len(list((tmp_path / "data" / "cache" / "tokenizer").glob("cl100k-*.marshal"))) == 1


def test_unknown_strategy_is_one_line_listing_valid_ones() -> None:
    done = _run("chunk", "x.pdf", "--strategy", "paragraph")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0
    assert "token" in done.stderr and "question" in done.stderr and done.stdout == ""


def test_an_option_is_taken_only_as_spelled() -> None:
    """``--k`` is not ``-k``, nor the ``--kind`` it starts: argparse's prefix matching ran
    ``query --k 5`` as a search of kind 5; a misspelt option is one line that names it."""
    done = _run("query", "any words", "--k", "5")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == "legco-assets: error: unrecognized arguments: --k 5"
    done = _run("chunk", "x.pdf", "--strat", "token")
    assert done.returncode == 2
    assert done.stderr.strip() == "legco-assets: error: unrecognized arguments: --strat token"


def test_the_help_names_the_strategy_a_command_takes_unasked() -> None:
    """Each command's ``--strategy`` help names the setting it follows and that setting's
    value when unset, not only the variable's name."""
    from legco_assets.core.settings import Settings

    unset = Settings.model_fields["default_strategy"].default.value
    for command in ("chunk", "ingest", "query", "answer"):
        done = _run(command, "--help")
        assert done.returncode == 0, command
        assert f"DEFAULT_CHUNKING_STRATEGY, {unset} when unset" in " ".join(done.stdout.split()), command


def test_bad_file_is_one_line_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "renamed.pdf"
    bad.write_text("not a pdf at all")
    done = _run("chunk", str(bad))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip() == f"legco-assets: error: {bad}: not a PDF (the file does not start with %PDF)"


def test_chunk_leaves_fast_yet_prints_everything_and_a_closed_pipe_is_quiet(tmp_path: Path) -> None:
    """``chunk`` ends with ``os._exit`` (no interpreter teardown): every record must still
    reach a pipe, and a reader that leaves early (``| head -1``) gets no traceback."""
    paper = fixed_english_paper(
        tmp_path / "paper.pdf", pages=30
    )  # ~150 KB of records: more than a pipe holds
    whole = _run("chunk", str(paper), "--strategy", "token")
    assert whole.returncode == 0, whole.stderr
    lines = whole.stdout.splitlines()
    assert (
        len(whole.stdout) > 100_000
        and len(lines) >= 2
        and json.loads(lines[-1])["id"] == f"paper:token:{len(lines) - 1}"
    )
    reader = subprocess.Popen(
        [sys.executable, "-m", "legco_assets.cli", "chunk", str(paper), "--strategy", "token"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert reader.stdout is not None and reader.stderr is not None
    first = reader.stdout.read(10)  # a reader that takes a few bytes and leaves
    reader.stdout.close()
    errors = reader.stderr.read().decode()
    assert reader.wait(timeout=600) in (0, 1) and first.startswith(b'{"id"')
    assert "Traceback" not in errors and "BrokenPipe" not in errors, errors
