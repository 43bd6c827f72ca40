"""The core's packages are the pipeline's stages, and the package's imports point one way.

``legco_assets/core`` is grouped by pipeline stage, so that a reader finds each step where the
pipeline runs it; this test keeps it so. It reads every core module's imports (AST, nothing
executed) and asserts that no module imports a package above its own stage, and that code
outside a package takes only the names its ``__init__`` exports, never one of its modules
(``from ..structure import outline_of``, not ``from ..structure.outline import outline_of``).
Over the whole package it asserts that no import circle joins any of its modules, lazily
imported or not, and that nothing below the command line imports it; probes of both show the
checks catch what they claim. Last, the code cites only what a reader of the repository can
open: no tracker's issue numbers, no design file from outside it, no machine's paths.
"""

from __future__ import annotations

import ast
import graphlib
import re
import subprocess
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1] / "legco_assets" / "core"
# lowest first: a module may import its own package and anything listed before it
LAYERS = [
    "shared",
    "read",
    "sources",
    "structure",
    "tables",
    "chunking",
    "excerpts",
    "search",
    "pipeline",
    "evaluation",
]
# the rest of core/*.py is shared
TOP_MODULES = {"pipeline": "pipeline", "embedding_ahead": "pipeline"}


def layer_of(parts: list[str]) -> str:
    """The layer of a module given as its path parts below ``core``."""
    if not parts:
        return "shared"
    if len(parts) == 1 and parts[0] not in LAYERS:
        return TOP_MODULES.get(parts[0], "shared")
    return parts[0] if parts[0] in LAYERS else TOP_MODULES.get(parts[0], "shared")


def core_imports(path: Path) -> list[tuple[list[str], list[str]]]:
    """``(target parts below core, imported names)`` for each ``from … import`` of the core."""
    here = list(path.relative_to(CORE).parent.parts)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level == 0:
            if not (node.module or "").startswith("legco_assets.core"):
                continue
            target = node.module.split(".")[2:]
        else:
            base = here[: len(here) - (node.level - 1)]
            target = base + (node.module.split(".") if node.module else [])
        found.append((target, [alias.name for alias in node.names]))
    return found


MODULES = sorted(p for p in CORE.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_stage_package_is_there() -> None:
    packages = {p.name for p in CORE.iterdir() if (p / "__init__.py").exists()}
    assert packages == set(LAYERS) - {"shared", "pipeline"}
    assert len(MODULES) > 40


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(CORE)))
def test_imports_point_down_and_through_package_names(path: Path) -> None:
    own_parts = list(path.relative_to(CORE).with_suffix("").parts)
    own = layer_of(own_parts)
    own_package = own_parts[0] if len(own_parts) > 1 else None
    for target, names in core_imports(path):
        if not target:  # from .. import markers: shared modules by name
            target = [names[0]]
        layer = layer_of(target)
        assert LAYERS.index(layer) <= LAYERS.index(own), (
            f"{own} imports {layer} ({'.'.join(target)}): an arrow up"
        )
        into_other_package = target[0] in LAYERS and target[0] != own_package
        assert not (into_other_package and len(target) > 1), (
            f"imports the module {'.'.join(target)} of another package: import its names from {target[0]}"
        )


# -- the whole package: no import circle, and nothing below the CLI imports it ----------------
PACKAGE = CORE.parent


def module_names(root: Path) -> dict[str, Path]:
    """Every module of the package at ``root`` by dotted name (a package by its own name)."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def imported_modules(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that the module ``name`` imports, anywhere in its body (an
    import inside a function is still an arrow): ``from pkg import mod`` names the module
    ``mod``, ``from pkg import NAME`` the package ``pkg``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)] if node.level else []
            origin = ".".join(base + ([node.module] if node.module else []))
            found.update(
                f"{origin}.{a.name}" if f"{origin}.{a.name}" in known else origin for a in node.names
            )
    return found & known


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports."""
    names = module_names(root)
    known = set(names)
    return {name: imported_modules(name, path, known) - {name} for name, path in names.items()}


def import_circle(graph: dict[str, set[str]]) -> list[str]:
    """One circle of imports (its modules in order, the first repeated at the end), or []."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return []


def cli_imports_from_below(graph: dict[str, set[str]], package: str) -> list[str]:
    """``module -> cli module`` for each module outside the CLI that imports the CLI: the
    command line sits on top, so the core, the Dagster definitions and the rest never need it."""
    cli = f"{package}.cli"
    return sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if not (module == cli or module.startswith(cli + "."))
        for target in targets
        if target == cli or target.startswith(cli + ".")
    )


def test_no_import_circle_in_the_package() -> None:
    assert import_circle(import_graph(PACKAGE)) == []


def test_nothing_below_the_cli_imports_it() -> None:
    graph = import_graph(PACKAGE)
    assert f"{PACKAGE.name}.cli.main" in graph  # the CLI is a package, read like the rest
    assert cli_imports_from_below(graph, PACKAGE.name) == []


def _probe_package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for rel, text in {"__init__.py": "", "core/__init__.py": "", "cli/__init__.py": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_a_circle_probe_is_caught(tmp_path: Path) -> None:
    """Two modules importing each other (one of them lazily, inside a function) and a longer
    ring through a package's ``__init__`` are circles."""
    root = _probe_package(
        tmp_path,
        {
            "core/a.py": "from .b import f\n",
            "core/b.py": "def f():\n    from pkg.core import a\n",
            "core/ring/__init__.py": "from .one import x\n",
            "core/ring/one.py": "from .two import y\nx = 1\n",
            "core/ring/two.py": "from . import x\ny = 2\n",
        },
    )
    graph = import_graph(root)
    circle = import_circle(graph)
    assert circle[0] == circle[-1] and len(circle) >= 3
    assert set(circle) in (
        {"pkg.core.a", "pkg.core.b"},
        {"pkg.core.ring", "pkg.core.ring.one", "pkg.core.ring.two"},
    )
    del graph["pkg.core.b"]
    assert set(import_circle(graph)) == {"pkg.core.ring", "pkg.core.ring.one", "pkg.core.ring.two"}
    assert (
        import_circle(
            import_graph(
                _probe_package(
                    tmp_path / "clean", {"core/a.py": "from .b import f\n", "core/b.py": "f = 1\n"}
                )
            )
        )
        == []
    )


def test_a_cli_import_from_below_is_caught(tmp_path: Path) -> None:
    root = _probe_package(
        tmp_path,
        {
            "cli/main.py": "from . import common\nfrom pkg.core import work\n",
            "cli/common.py": "",
            "core/work.py": "def run():\n    from pkg.cli.common import x\n",
            "defs/__init__.py": "",
            "defs/jobs.py": "import pkg.cli\n",
        },
    )
    assert cli_imports_from_below(import_graph(root), "pkg") == [
        "pkg.core.work -> pkg.cli.common",
        "pkg.defs.jobs -> pkg.cli",
    ]


# -- docs/design.md's code layout names every module ------------------------------------------
DESIGN = PACKAGE.parent / "docs" / "design.md"


def layout_rows() -> dict[str, set[str]]:
    """docs/design.md's *Code layout*: folder (below ``legco_assets/``, a ``###`` heading's name
    in backticks) -> the modules its bullets name (the name in backticks each bullet starts
    with, a nested bullet's too)."""
    text = DESIGN.read_text(encoding="utf-8")
    start = text.index("\n## Code layout\n")
    end = text.find("\n## ", start + 1)
    rows: dict[str, set[str]] = {}
    folder = None
    for line in text[start : end if end != -1 else None].splitlines():
        if line.startswith("### "):
            heading = re.match(r"### `([\w/.]+)`", line)
            folder = heading.group(1) if heading else None
            if folder:
                rows[folder] = set()
        elif folder and (bullet := re.match(r"\s*- `([\w/.]+)`", line)):
            rows[folder].add(bullet.group(1))
    return rows


@pytest.mark.parametrize(
    "folder",
    [
        "core/",
        "core/read/",
        "core/sources/",
        "core/structure/",
        "core/tables/",
        "core/chunking/",
        "core/excerpts/",
        "core/search/",
        "core/evaluation/",
        "cli/",
        "service/",
        "defs/",
    ],
)
def test_the_design_layout_names_every_module(folder: str) -> None:
    names = layout_rows()[folder]
    here = PACKAGE / folder
    # a module with a heading of its own (`core/pipeline.py`) is named there
    headed = {
        row[len(folder) : -len(".py")]
        for row in layout_rows()
        if row.startswith(folder) and row.endswith(".py")
    }
    modules = {p.stem for p in here.glob("*.py") if p.stem != "__init__"} - headed
    for sub in (
        p
        for p in here.iterdir()
        if (p / "__init__.py").exists() and f"{folder}{p.name}/" not in layout_rows()
    ):
        if folder == "core/":
            continue  # the stage packages have rows of their own
        assert f"{sub.name}/" in names, f"docs/design.md's {folder} does not name {sub.name}/"
        modules |= {p.stem for p in sub.glob("*.py") if p.stem != "__init__"}
    assert modules - names == set(), f"docs/design.md's {folder} does not name these modules"


# -- the code cites only what a reader of the repository can open -------------------------------
REPO = PACKAGE.parent
# what is scanned: the package, its tests and scripts, its docs and the build files
SCANNED = ("legco_assets", "legco_assets_tests", "scripts", "docs", "README.md", "pyproject.toml", "Makefile")
# each pattern built from pieces, so that this file does not match its own patterns
FOREIGN = {
    "a tracker's issue number: say the reason": re.compile(r"\b" + "iss" + r"ues? #?\d+", re.IGNORECASE),
    "an outside design file: cite docs/design.md": re.compile(re.escape("DES" + "IGN.md")),
    "a machine's path": re.compile(re.escape("/" + "work" + "/")),
}


def scanned_files(root: Path) -> list[str]:
    """The files under :data:`SCANNED` that git tracks or would (new ones not ignored), as
    paths relative to ``root``; outside a git checkout, every file there."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *SCANNED],
            cwd=root,
            capture_output=True,
            check=True,
        ).stdout.decode("utf-8")
        files = sorted({name for name in listed.split("\0") if name})
    except (OSError, subprocess.CalledProcessError):
        files = []
    if files:
        return files
    found = []
    for name in SCANNED:
        top = root / name
        for path in [top] if top.is_file() else sorted(top.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                found.append(path.relative_to(root).as_posix())
    return found


def text_of(path: Path) -> str | None:
    """The file's text, or None for a file that is not UTF-8 text (a PDF, an image) or is gone."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def foreign_citations(root: Path, files: list[str]) -> list[str]:
    """``file:line: what`` for each line that cites what a reader of the repository cannot open."""
    found = []
    for name in files:
        text = text_of(root / name)
        for number, line in enumerate((text or "").splitlines(), 1):
            found += [f"{name}:{number}: {what}" for what, pattern in FOREIGN.items() if pattern.search(line)]
    return found


def test_the_code_cites_only_what_the_repository_holds() -> None:
    files = scanned_files(REPO)
    assert "legco_assets/core/records.py" in files and "Makefile" in files and len(files) > 100
    assert foreign_citations(REPO, files) == []


def test_a_foreign_citation_probe_is_caught(tmp_path: Path) -> None:
    """Each kind of citation is named by file and line; the word in its ordinary senses, a name
    that holds a number and the repository's own design file are not citations."""
    number = "iss" + "ue 27"
    (tmp_path / "cites.py").write_text(
        f"# as {number} asked\n"
        f"x = 1  # ({('iss' + 'ues #51').upper()} and 52)\n"
        f'"""See {"DES" + "IGN.md"}, from {"/" + "work" + "/"}shared."""\n',
        encoding="utf-8",
    )
    (tmp_path / "clean.py").write_text(
        "# the server issues a request; the issue is how; sweep = issue29_sweep\n"
        "# the chunk record: docs/design.md#chunk-record; core/work.py\n",
        encoding="utf-8",
    )
    (tmp_path / "paper.pdf").write_bytes(f"%PDF\0 {number}".encode())
    tracker, design, machine = FOREIGN
    assert foreign_citations(tmp_path, ["cites.py", "clean.py", "paper.pdf", "gone.py"]) == [
        f"cites.py:1: {tracker}",
        f"cites.py:2: {tracker}",
        f"cites.py:3: {design}",
        f"cites.py:3: {machine}",
    ]
