"""Shared fixtures: a temporary data dir per test, a store with an LLM configured, paths to
fixture papers and the corpus."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from legco_assets.core.search import open_collection, replace_document
from legco_assets.core.settings import Settings

from .factories import EN_PAIRS, ZH_PAIRS, question_records

if TYPE_CHECKING:  # imported by pytest as a plugin below, so that its asserts are rewritten
    from .llm_server import FakeLLMServer

# the fixtures `llm_server` and `odata_server`, for every test module that names them
pytest_plugins = ("legco_assets_tests.llm_server", "legco_assets_tests.odata_server")

# Asserts of the shared behaviours report their values as a test module's do.
pytest.register_assert_rewrite("legco_assets_tests.vector_store_behaviours")

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
    for name in (
        "LLM_BASE_URL",
        "LLM_MODEL_NAME",
        "LLM_API_KEY",
        "CHROMA_HOST",
        "EMBEDDING_BASE_URL",
        "DEFAULT_CHUNKING_STRATEGY",
    ):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "dagster_home").mkdir()
    return data


@pytest.fixture
def llm_store(llm_server: FakeLLMServer, tmp_path: Path) -> tuple[Settings, Any]:
    """The Chinese and the English paper of ``test_retrieval`` (``ZH_PAIRS``, ``EN_PAIRS``),
    with an LLM configured: the query translation and rerank tests search the same store.
    The limit is generous so a loaded machine's slow answer is still an answer; a test that
    scripts a timeout shortens it (``short_limit_for``)."""
    settings = llm_server.settings(tmp_path / "data", llm_timeout_s=10.0)
    collection = open_collection(settings)
    replace_document(collection, question_records("drain", ZH_PAIRS, "a" * 64), "drain", "question", "a" * 64)
    replace_document(
        collection, question_records("elderly", EN_PAIRS, "b" * 64), "elderly", "question", "b" * 64
    )
    return settings, collection


def fixture_pdf(name: str) -> Path:
    path = FIXTURES / name
    assert path.exists(), (
        f"missing fixture {path}: run python -m legco_assets_tests.fixtures.generate_fixtures"
    )
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


SERVED_PAPERS = ("sample_zh_qa.pdf", "sample_en_qa.pdf")  # the search service tests' store


@pytest.fixture(scope="session")
def served_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home (``data/``, ``dagster_home/``) with the Chinese and the English sample paper
    ingested with both strategies, once for every search-service test module; a test that
    changes the store works on a copy (:func:`store_copy`)."""
    from .runs import cli

    home = tmp_path_factory.mktemp("served")
    (home / "dagster_home").mkdir()
    done = cli("ingest", *(str(SAMPLES / name) for name in SERVED_PAPERS), "--strategy", "both", home=home)
    assert done.returncode == 0, done.stderr[-2000:]
    return home


def store_settings(home: Path) -> Settings:
    return Settings(data_dir=home / "data", inbox=home / "data" / "inbox")
