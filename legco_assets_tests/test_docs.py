"""The README and docs/ say what the code has, and point at what exists.

docs/design.md's *Chunk record* names every key of :class:`ChunkMetadata` (a key added to
the record without a word in the design fails here); the design has the sections the code
cites (``docs/design.md#<anchor>``, GitHub's heading anchors), and every such citation in the
code, tests and scripts names one of its headings; every relative link and image of the
README and of docs/ opens a file of the checkout, at a heading that exists when it names
one; the README stays a page one reads through (at most 200 lines, none over 200 characters).
Probes show the link and anchor readers see what they claim.
"""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path
from urllib.parse import unquote

import pytest

from legco_assets.core.records import ChunkMetadata

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DESIGN = ROOT / "docs" / "design.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
# the sections of the design that code, tests and scripts cite as docs/design.md#<anchor>
DESIGN_SECTIONS = [
    "asset-graph",
    "chunk-record",
    "checks",
    "command-line",
    "service-api",
    "settings",
    "formats-on-disk",
    "retrieval",
    "offline",
    "code-layout",
]

# [text](target) and ![alt](target), an optional "title" after the target
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _without_code(text: str) -> str:
    """Markdown without its fenced blocks and inline code (what renders as code links nothing)."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"```.*?```", "", text, flags=re.S))


def section(text: str, heading: str) -> str:
    """The text of the ``## heading`` section, up to the next ``## ``."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def anchors(text: str) -> set[str]:
    """GitHub's anchors of the headings of a Markdown text: lower case, punctuation but ``-``
    dropped, each space a ``-`` (a ``#`` line inside a fenced block is no heading)."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return {
        re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)
    }


def relative_links(text: str) -> list[str]:
    """The link targets of a Markdown text that point into the checkout: no scheme, not a bare
    ``#anchor`` of the page itself, nothing inside code."""
    return [
        target
        for target in LINK.findall(_without_code(text))
        if not re.match(r"[a-z][a-z0-9+.-]*:", target) and not target.startswith("#")
    ]


def test_the_design_names_every_key_of_the_chunk_record() -> None:
    record = section(DESIGN.read_text(encoding="utf-8"), "Chunk record")
    named = set(re.findall(r"`(\w+)`", record))
    missing = [f.name for f in fields(ChunkMetadata) if f.name not in named]
    assert missing == [], f"docs/design.md#chunk-record does not name {missing}"


def test_the_design_has_the_sections_the_code_cites() -> None:
    headings = anchors(DESIGN.read_text(encoding="utf-8"))
    assert set(DESIGN_SECTIONS) - headings == set()
    cited = sorted(
        (str(path.relative_to(ROOT)), anchor)
        for folder in ("legco_assets", "legco_assets_tests", "scripts")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for anchor in re.findall(r"docs/design\.md#([\w-]+)", path.read_text(encoding="utf-8"))
    )
    assert [(path, anchor) for path, anchor in cited if anchor not in headings] == []


def test_the_readers_see_what_they_should() -> None:
    """Probes: GitHub's anchors; links and images found, web links, anchors and code left out."""
    headings = "# Title\n## Chunk record\n### `core/read/`: 1. bytes → page text\n```\n## Not one\n```\n"
    assert anchors(headings) == {"title", "chunk-record", "coreread-1-bytes--page-text"}
    page = "\n".join(
        [
            "[a](docs/a.md) ![b](docs/s/b.png) [c](https://x.org/c.md) [d](#here)",
            "`[e](e.md)` [f](docs/f.md#part)",
            "```",
            "[g](g.md)",
            "```",
        ]
    )
    assert relative_links(page) == ["docs/a.md", "docs/s/b.png", "docs/f.md#part"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_open_a_file(page: Path) -> None:
    broken = []
    for target in relative_links(page.read_text(encoding="utf-8")):
        path, _, anchor = target.partition("#")
        linked = page.parent / unquote(path)
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text(encoding="utf-8")):
            broken.append(target)
    assert broken == [], f"{page.relative_to(ROOT)} links to what the checkout does not have"


def test_the_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200
    assert [n for n, line in enumerate(lines, 1) if len(line) > 200] == []
