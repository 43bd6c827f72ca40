"""``ingest`` embeds its papers ahead of their runs in a process of its own
(``core/embedding_ahead.py``): what it stores is what the runs would store embedding each
paper themselves, the runs embed none of the chunks it was given, and a run never waits for a
paper the process was not given or for a process that has died; a Ctrl-C stops the command
and the process with it."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from legco_assets.core import embedding_ahead
from legco_assets.core.search import open_collection
from legco_assets.core.search.embeddings import UseMultilingualEmbedding
from legco_assets.core.settings import Settings, Strategy

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "samples"
PAPERS = [SAMPLES / "sample_en_qa.pdf", SAMPLES / "sample_zh_speaking_notes.pdf"]


@contextlib.contextmanager
def _nothing_ahead(*args: Any) -> Iterator[None]:
    yield None


def _ingest(home: Path, monkeypatch: pytest.MonkeyPatch, ahead: bool) -> tuple[Settings, list[str]]:
    """The two papers ingested with both strategies into ``home``; and the texts this process's
    own embedder was asked for."""
    from legco_assets.cli.ingest import ingest_files

    monkeypatch.setenv("LEGCO_DATA_DIR", str(home / "data"))
    monkeypatch.setenv("DAGSTER_HOME", str(home / "dagster_home"))
    for name in ("LLM_BASE_URL", "LLM_MODEL_NAME", "CHROMA_HOST", "EMBEDDING_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    embedded: list[str] = []
    original = UseMultilingualEmbedding._embed

    def counted(self: UseMultilingualEmbedding, texts: list[str]) -> list[np.ndarray]:
        embedded.extend(texts)
        return original(self, texts)

    with monkeypatch.context() as patch:
        patch.setattr(UseMultilingualEmbedding, "_embed", counted)
        if not ahead:
            patch.setattr(embedding_ahead, "embedding_ahead", _nothing_ahead)
        settings = Settings(data_dir=home / "data", inbox=home / "data" / "inbox")
        summary = ingest_files(PAPERS, [Strategy.token, Strategy.question], settings, out=io.StringIO())
    assert summary["documents"] == 2 and not summary["failed"], summary
    return settings, embedded


def _stored(settings: Settings) -> dict[str, tuple[str, np.ndarray]]:
    got = open_collection(settings).get(include=["documents", "embeddings"])
    return {i: (d, np.asarray(e)) for i, d, e in zip(got["ids"], got["documents"], got["embeddings"])}


def _cache_keys(settings: Settings) -> set[str]:
    with contextlib.closing(sqlite3.connect(settings.cache_dir / "embeddings.sqlite3")) as db:
        return {key for (key,) in db.execute("SELECT key FROM vectors")}


def test_papers_embedded_ahead_are_stored_as_the_runs_would_store_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ahead, here_ahead = _ingest(tmp_path / "ahead", monkeypatch, ahead=True)
    inside, here_inside = _ingest(tmp_path / "inside", monkeypatch, ahead=False)
    stored_ahead, stored_inside = _stored(ahead), _stored(inside)
    assert len(stored_ahead) > 20 and stored_ahead.keys() == stored_inside.keys()
    for chunk_id, (text, vector) in stored_ahead.items():
        assert text == stored_inside[chunk_id][0]
        np.testing.assert_allclose(vector, stored_inside[chunk_id][1], atol=1e-5)
    # the same texts were embedded (the chunks and the question sides), none of them twice over
    assert _cache_keys(ahead) == _cache_keys(inside)
    chunk_texts = {text for text, _ in stored_ahead.values()}
    assert chunk_texts <= set(here_inside)  # without the process, the runs embed every chunk
    assert not chunk_texts & set(here_ahead)  # with it, they embed none


def test_a_run_waits_only_for_a_paper_the_process_was_given_and_while_it_lives(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", inbox=tmp_path / "data" / "inbox")
    missing = tmp_path / "gone.pdf"  # the process cannot read it: it says so and goes on
    with embedding_ahead.embedding_ahead(settings, [("gone", missing)], [Strategy.token]) as ahead:
        assert ahead is not None
        started = time.perf_counter()
        embedding_ahead.wait_for("another-paper", Strategy.token)
        assert time.perf_counter() - started < 0.1
        embedding_ahead.wait_for("gone", Strategy.token)  # reported done though it failed
    with embedding_ahead.embedding_ahead(settings, [("never", PAPERS[0])], [Strategy.question]) as ahead:
        assert ahead is not None
        ahead._process.kill()
        ahead._process.join()
        started = time.perf_counter()
        embedding_ahead.wait_for("never", Strategy.question)
        assert time.perf_counter() - started < 2 * embedding_ahead.WAIT_STEP_S + 0.5
    embedding_ahead.wait_for("never", Strategy.question)  # no process: no wait


def test_no_process_when_the_chunks_need_an_llm(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        inbox=tmp_path / "data" / "inbox",
        llm_base_url="http://127.0.0.1:9/v1",
        llm_model_name="scripted",
    )
    assert settings.llm_enabled
    with embedding_ahead.embedding_ahead(settings, [("a", PAPERS[0])], [Strategy.token]) as ahead:
        assert ahead is None


def test_a_bad_model_ends_the_process_without_a_traceback(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The runs' vector_index reports an unknown EMBEDDING_MODEL as a step failure; the process
    ahead leaves that to them and ends at once."""
    settings = Settings(
        data_dir=tmp_path / "data", inbox=tmp_path / "data" / "inbox", embedding_model="no-such-model"
    )
    with embedding_ahead.embedding_ahead(settings, [("a", PAPERS[0])], [Strategy.token]) as ahead:
        assert ahead is not None
        ahead._process.join(timeout=120)
        assert ahead._process.exitcode == 0
        embedding_ahead.wait_for("a", Strategy.token)  # the process is gone: no wait
    assert "Traceback" not in capfd.readouterr().err


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux: /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _spawned_python(pid: int) -> bool:
    try:
        return b"spawn_main" in (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return False


def test_ctrl_c_stops_the_command_and_its_process_ahead(tmp_path: Path) -> None:
    """Dagster turns a Ctrl-C inside a run into a failed run; the command stops there (one line,
    exit 130) rather than going on to the next paper, and the process ahead ends with it."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("LLM_", "CHROMA_", "EMBEDDING_", "LEGCO_", "DAGSTER_"))
    }
    env.update({"LEGCO_DATA_DIR": str(tmp_path / "data"), "DAGSTER_HOME": str(tmp_path / "dagster_home")})
    papers = [*PAPERS, SAMPLES / "sample_zh_qa.pdf"]
    command = [sys.executable, "-m", "legco_assets.cli", "ingest", *map(str, papers), "--strategy", "both"]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
        # as from a terminal: a suite started in the background of a script hands SIGINT down ignored
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith("[1/3]"):
                break
        ahead = [pid for pid in _children(process.pid) if _spawned_python(pid)]
        assert len(ahead) == 1  # the process ahead runs beside the first paper's runs
        time.sleep(1.5)  # inside the first paper's first run (its vectors take the model's load)
        os.killpg(process.pid, signal.SIGINT)  # a terminal's Ctrl-C: the whole process group
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err[-2000:]
    assert "legco-assets: error: interrupted" in err
    assert "[2/3]" not in out
    assert "embedding_ahead" not in err  # no traceback from the process ahead
    deadline = time.monotonic() + 10
    while _spawned_python(ahead[0]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _spawned_python(ahead[0])


def _interrupting_job() -> Any:
    """A one-step job whose step is interrupted as a terminal's Ctrl-C would interrupt it."""
    import dagster as dg

    @dg.op
    def interrupted_step() -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)  # the interrupt ends the step in its sleep

    @dg.job
    def interrupted() -> None:
        interrupted_step()

    return interrupted


def test_a_ctrl_c_inside_a_step_stops_the_command_not_only_the_run() -> None:
    """Dagster ends the run as a failure and returns; the command raises KeyboardInterrupt."""
    import dagster as dg

    from legco_assets.cli.ingest import _ctrl_c_stops_the_command

    before = signal.getsignal(signal.SIGINT)  # ignored where the suite was started in the background
    with pytest.raises(KeyboardInterrupt), _ctrl_c_stops_the_command():
        result = _interrupting_job().execute_in_process(
            instance=dg.DagsterInstance.ephemeral(), raise_on_error=False
        )
    [failure] = result.get_step_failure_events()  # the run itself only failed, by the interrupt
    assert failure.event_specific_data.error.cls_name == "DagsterExecutionInterruptedError"
    assert signal.getsignal(signal.SIGINT) is before
    assert signal.set_wakeup_fd(-1) == -1  # the command's wakeup socket is gone with the run


def test_a_ctrl_c_dagster_drops_after_a_runs_last_step_still_stops_the_command() -> None:
    """What a run does outside its steps: Dagster holds the interrupt for the next step, and
    drops it when the run ends with none left (the run succeeds); the command still stops."""
    from dagster._utils.interrupts import capture_interrupts

    from legco_assets.cli.ingest import _ctrl_c_stops_the_command

    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt), _ctrl_c_stops_the_command():
        with capture_interrupts():  # as execute_in_process holds it around a run
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.1)
    assert signal.getsignal(signal.SIGINT) is before
