"""The settings, declared once (core/settings.py): a bad value stops the process with one line
naming its variable, the defaults are the embedded set-up, ``Settings()`` reads no environment,
and ``.env.example`` / ``docs/settings.md`` say what the declaration says."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from upath import UPath

from legco_assets.core.errors import ConfigError
from legco_assets.core.settings import (
    DEFAULT_EXCERPTS_BASE_URL,
    DEFAULT_FEED_URL,
    FEED_USER_AGENT,
    Settings,
    Strategy,
    StructureMode,
)

from .runs import cli

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "data" / "samples" / "sample_en_qa.pdf"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "settings_reference", REPO / "scripts" / "settings_reference.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _refusal(env: dict[str, str]) -> str:
    with pytest.raises(ConfigError) as raised:
        Settings.from_env(env)
    message = str(raised.value)
    assert "\n" not in message and message.startswith("invalid setting: "), message
    return message


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"QA_STRUCTURE_MODE": "atuo"}, "QA_STRUCTURE_MODE='atuo' (allowed: auto | rules | llm)"),
        ({"CHUNK_SIZE": "0"}, "CHUNK_SIZE='0' (allowed: a whole number, at least 1)"),
        ({"CHUNK_SIZE": "-5"}, "CHUNK_SIZE='-5' (allowed: a whole number, at least 1)"),
        ({"CHUNK_SIZE": "a thousand"}, "CHUNK_SIZE='a thousand' (allowed: a whole number, at least 1)"),
        (
            {"CHUNK_OVERLAP": "1000"},
            "CHUNK_OVERLAP='1000' (allowed: a whole number, at least 0 and below CHUNK_SIZE=1000)",
        ),
        (
            {"CHUNK_SIZE": "300", "CHUNK_OVERLAP": "400"},
            "CHUNK_OVERLAP='400' (allowed: a whole number, at least 0 and below CHUNK_SIZE=300)",
        ),
        (
            {"CHUNK_OVERLAP": "-1"},
            "CHUNK_OVERLAP='-1' (allowed: a whole number, at least 0 and below CHUNK_SIZE)",
        ),
        (
            {"DEFAULT_CHUNKING_STRATEGY": "tokn"},
            "DEFAULT_CHUNKING_STRATEGY='tokn' (allowed: token | question)",
        ),
        (
            {"LEGCO_SENSOR_STRATEGIES": "token,paragraph"},
            "LEGCO_SENSOR_STRATEGIES='paragraph' (allowed: comma-separated: token, question)",
        ),
        (
            {"CHROMA_PORT": "eight thousand"},
            "CHROMA_PORT='eight thousand' (allowed: a whole number from 1 to 65535)",
        ),
        ({"CHROMA_PORT": "0"}, "CHROMA_PORT='0' (allowed: a whole number from 1 to 65535)"),
        ({"CHROMA_PORT": "65536"}, "CHROMA_PORT='65536' (allowed: a whole number from 1 to 65535)"),
        ({"LLM_TIMEOUT_S": "soon"}, "LLM_TIMEOUT_S='soon' (allowed: a number, above 0)"),
        ({"LEGCO_FEED_TIMEOUT_S": "nan"}, "LEGCO_FEED_TIMEOUT_S='nan' (allowed: a number, above 0)"),
        ({"LEGCO_MAX_PAGES": "1.5"}, "LEGCO_MAX_PAGES='1.5' (allowed: a whole number, at least 1)"),
        ({"LEGCO_FEED_RETRIES": "-1"}, "LEGCO_FEED_RETRIES='-1' (allowed: a whole number, at least 0)"),
        (
            {"QA_VISION_ENABLED": "maybe"},
            "QA_VISION_ENABLED='maybe' (allowed: true | false (or 1 | 0, yes | no, on | off))",
        ),
        (
            {"EXCERPTS_BASE_URL": "ftp://host/"},
            "EXCERPTS_BASE_URL='ftp://host/' (allowed: an http:// or https:// URL)",
        ),
        ({"LEGCO_FEED_SINCE": "last week"}, "LEGCO_FEED_SINCE='last week' (allowed: a date, YYYY-MM-DD)"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_variable_and_what_it_may_be(
    env: dict[str, str], expected: str
) -> None:
    assert _refusal(env) == f"invalid setting: {expected}"


def test_every_bad_value_is_named_on_the_one_line() -> None:
    message = _refusal({"CHUNK_SIZE": "x", "CHROMA_PORT": "y", "QA_STRUCTURE_MODE": "atuo"})
    assert all(name in message for name in ("CHUNK_SIZE", "CHROMA_PORT", "QA_STRUCTURE_MODE")), message


def test_a_secret_is_refused_without_being_repeated() -> None:
    with pytest.raises(ConfigError) as raised:
        Settings(llm_api_key=["not", "a", "key"])  # type: ignore[arg-type]
    assert "LLM_API_KEY=(hidden)" in str(raised.value) and "not" not in str(raised.value)
    assert "sk-secret" not in repr(Settings(llm_api_key="sk-secret", embedding_api_key="sk-secret"))


def test_the_defaults_are_the_embedded_set_up() -> None:
    """The values the hand-written parser had, unchanged, whether unset or set empty."""
    empty = {
        name: "" for name in ("CHUNK_SIZE", "LEGCO_DATA_DIR", "LLM_BASE_URL", "CHROMA_PORT", "LEGCO_INBOX")
    }
    for settings in (Settings(), Settings.from_env({}), Settings.from_env(empty)):
        assert (settings.data_dir, settings.inbox) == (Path("data"), Path("data/inbox"))
        assert (settings.chunk_size, settings.chunk_overlap, settings.qa_max_chunk_tokens) == (
            1000,
            200,
            3000,
        )
        assert settings.qa_include_internal_refs is True and settings.section_join_tokens == 0
        assert settings.default_strategy is Strategy.token
        assert settings.sensor_strategies == (Strategy.token, Strategy.question)
        assert settings.structure_mode is StructureMode.auto and settings.structure_mode == "auto"
        assert (settings.image_dpi, settings.llm_max_concurrency, settings.llm_timeout_s) == (150, 8, 60.0)
        assert not settings.llm_enabled and settings.llm_max_calls_per_document is None
        assert (settings.qa_vision_enabled, settings.qa_cache_vision_results) == (False, True)
        assert (settings.embedding_model, settings.chroma_port, settings.chroma_host) == (
            "use-multilingual",
            8000,
            None,
        )
        assert (settings.cache_dir, settings.chroma_dir) == (Path("data/cache"), Path("data/chroma"))
        assert (settings.feed_url, settings.feed_types) == (DEFAULT_FEED_URL, ("Chinese", "English"))
        assert (settings.feed_interval_minutes, settings.feed_timeout_s) == (60, 60.0)
        assert (settings.feed_retries, settings.feed_backoff_s) == (3, 2.0)
        assert settings.feed_user_agent == FEED_USER_AGENT
        assert settings.feed_allowed_hosts == ("legco.gov.hk", "*.legco.gov.hk")
        assert settings.excerpts_base_url == DEFAULT_EXCERPTS_BASE_URL == "http://127.0.0.1:8000/"
        assert settings.download_max_bytes == 200 * 1024 * 1024 and settings.dagster_home is None


def test_settings_without_arguments_read_no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNK_SIZE", "500")
    monkeypatch.setenv("QA_STRUCTURE_MODE", "atuo")  # not even a bad value stops Settings()
    assert Settings().chunk_size == 1000
    monkeypatch.delenv("QA_STRUCTURE_MODE")
    assert Settings.from_env().chunk_size == 500, "from_env() reads os.environ"
    assert Settings.from_env({}).chunk_size == 1000, "a mapping is read instead of os.environ"
    assert Settings.from_env({"chunk_size": "7"}).chunk_size == 1000, "only the variables' names"


def test_values_are_read_as_the_variables_document() -> None:
    settings = Settings.from_env(
        {
            "LEGCO_DATA_DIR": "s3://bucket/prefix",
            "QA_STRUCTURE_MODE": " LLM ",
            "DEFAULT_CHUNKING_STRATEGY": "Question",
            "LEGCO_SENSOR_STRATEGIES": "question, token,question,",
            "LEGCO_INBOX_INCLUDE": "hansard-*.pdf, ,*.docx",
            "LEGCO_FEED_URL": "http://mirror.example/odata//",
            "EXCERPTS_BASE_URL": "https://excerpts.example/papers",
            "QA_VISION_ENABLED": "yes",
            "QA_INCLUDE_INTERNAL_REFS": "0",
            "LEGCO_MAX_FILE_MB": "1.5",
            "CHUNK_OVERLAP": "0",
            "LLM_API_KEY": " ",  # blank: unset
        }
    )
    assert isinstance(settings.data_dir, UPath) and str(settings.inbox) == "s3://bucket/prefix/inbox"
    assert settings.local_dir == Path("data") and settings.documents_dir == settings.data_dir / "documents"
    assert settings.structure_mode is StructureMode.llm and settings.default_strategy is Strategy.question
    assert settings.sensor_strategies == (Strategy.question, Strategy.token)
    assert settings.inbox_include == ("hansard-*.pdf", "*.docx")
    assert settings.feed_url == "http://mirror.example/odata"
    assert settings.excerpts_base_url == "https://excerpts.example/papers/"
    assert (settings.qa_vision_enabled, settings.qa_include_internal_refs) == (True, False)
    assert settings.download_max_bytes == int(1.5 * 1024 * 1024) and settings.chunk_overlap == 0
    assert settings.llm_api_key is None


def test_with_is_a_validated_copy_and_settings_are_frozen(tmp_path: Path) -> None:
    base = Settings(data_dir=tmp_path)
    assert base.inbox == tmp_path / "inbox", "the inbox follows the data dir unless set"
    changed = base.with_(structure_mode="rules", chunk_size=300, chunk_overlap=0)
    assert changed.structure_mode is StructureMode.rules and (changed.chunk_size, base.chunk_size) == (
        300,
        1000,
    )
    assert changed.with_() == changed and changed.inbox == base.inbox
    with pytest.raises(ConfigError, match="CHUNK_OVERLAP='200'"):
        base.with_(chunk_size=100)
    with pytest.raises(TypeError, match="chunk_sise"):
        base.with_(chunk_sise=100)
    with pytest.raises(ValueError):
        base.chunk_size = 5  # type: ignore[misc]
    assert hash(base) == hash(Settings(data_dir=tmp_path))


def test_the_cli_stops_before_any_work_with_one_line(tmp_path: Path) -> None:
    done = cli("chunk", str(SAMPLE), home=tmp_path, env={"QA_STRUCTURE_MODE": "atuo"})
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "legco-assets: error: invalid setting: QA_STRUCTURE_MODE='atuo' (allowed: auto | rules | llm)\n"
    )
    assert not (tmp_path / "data").exists(), "nothing was written"


def test_the_committed_example_and_reference_are_what_the_declaration_gives(tmp_path: Path) -> None:
    script = _script()
    assert script.differing(REPO) == [], "run scripts/settings_reference.py and commit what it writes"
    example = (REPO / ".env.example").read_text(encoding="utf-8")
    reference = (REPO / "docs" / "settings.md").read_text(encoding="utf-8")
    for info in Settings.model_fields.values():
        assert f"\n{info.validation_alias}=" in example and f"| `{info.validation_alias}` |" in reference
    assert "AWS_ACCESS_KEY_ID" in example and "AWS_SECRET_ACCESS_KEY" in example  # read by botocore
    # a file that drifts is named, and --check fails
    for name in script.FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, tmp_path / name)
    (tmp_path / ".env.example").write_text(
        example.replace("CHUNK_SIZE=1000", "CHUNK_SIZE=800"), encoding="utf-8"
    )
    assert script.differing(tmp_path) == [".env.example"]
    check = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "settings_reference.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (check.returncode, check.stderr) == (0, "")


def test_the_example_file_is_read_as_the_defaults() -> None:
    """``.env.example`` copied as it is changes nothing (its empty values are unset)."""
    env = {}
    for line in (REPO / ".env.example").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith(("#", " ")):
            name, _, rest = line.partition("=")
            env[name] = rest.split("#")[0].strip()
    assert Settings.from_env(env) == Settings()
