"""The line patterns are compiled when first used: importing the module compiles none of
them (the reader's fork waits for that import), and each one, once asked for, is the
compiled pattern of its source, kept as a plain attribute of the module."""

from __future__ import annotations

import re
import subprocess
import sys

from legco_assets.core import markers


def test_importing_compiles_no_deferred_pattern() -> None:
    probe = (
        "import legco_assets.core.markers as m; "
        "print(sum(1 for name in m._DEFERRED if name in vars(m)), len(m._DEFERRED))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    compiled, deferred = map(int, out.split())
    assert compiled == 0 and deferred >= 60


def test_each_pattern_compiles_once_to_its_source() -> None:
    for name, source in markers._DEFERRED.items():
        pattern = getattr(markers, name)
        assert isinstance(pattern, re.Pattern), name
        assert (
            pattern.pattern == source.pattern
            and pattern.flags == re.compile(source.pattern, source.flags).flags
        )
        assert vars(markers)[name] is pattern  # kept: the next use is a plain attribute
        assert getattr(markers, name) is pattern


def test_patterns_match_as_before() -> None:
    assert markers.ZH_QUESTION.match("問1：甚麼是連續性合約？")
    assert markers.SPEAKER_TURN.match("MR JEFFREY LAM (in Chinese): President")
    assert markers.cjk_count("連續性 contract 合約") == 5


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        markers.NOT_A_PATTERN  # noqa: B018
    except AttributeError as exc:
        assert "NOT_A_PATTERN" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")
