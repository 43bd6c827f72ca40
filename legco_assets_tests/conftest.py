"""Shared fixtures: a temporary data dir per test, paths to fixture papers and the corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from legco_assets.core.settings import Settings

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
FIXTURES = TESTS / "fixtures" / "pdfs"
SAMPLES = REPO / "data" / "samples"
CORPUS = REPO.parent / "shared" / "corpus" / "real"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Embedded defaults with every artifact, cache and Chroma under a temp dir."""
    return Settings(data_dir=tmp_path / "data", inbox=tmp_path / "data" / "inbox")


@pytest.fixture
def env_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the environment-driven parts (CLI, Dagster resources) at a temp data dir."""
    data = tmp_path / "data"
    monkeypatch.setenv("LEGCO_DATA_DIR", str(data))
    monkeypatch.setenv("LEGCO_INBOX", str(data / "inbox"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    for name in ("LLM_BASE_URL", "LLM_MODEL_NAME", "LLM_API_KEY", "CHROMA_HOST", "EMBEDDING_BASE_URL", "DEFAULT_CHUNKING_STRATEGY"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "dagster_home").mkdir()
    return data


def fixture_pdf(name: str) -> Path:
    path = FIXTURES / name
    assert path.exists(), f"missing fixture {path}: run python -m legco_assets_tests.fixtures.generate_fixtures"
    return path


def rotated_copy(path: Path, target: Path) -> Path:
    """``path`` with every page turned for display (/Rotate 90 and 270 by turns), as a
    viewer's "rotate pages" saves it: the content is drawn as before."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for index, page in enumerate(PdfReader(path).pages):
        page.rotate(90 if index % 2 == 0 else 270)
        writer.add_page(page)
    writer.write(target)
    return target
