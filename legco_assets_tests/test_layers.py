"""The core's packages are the pipeline's stages, and their imports point one way.

Issue 27 grouped ``legco_assets/core`` by stage; this test keeps it so. It reads every core
module's imports (AST, nothing executed) and asserts that no module imports a package above
its own stage, and that code outside a package takes only the names its ``__init__``
exports, never one of its modules (``from ..structure import outline_of``, not
``from ..structure.outline import outline_of``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1] / "legco_assets" / "core"
# lowest first: a module may import its own package and anything listed before it
LAYERS = ["shared", "read", "sources", "structure", "tables", "chunking", "excerpts", "search", "pipeline", "evaluation"]
TOP_MODULES = {"pipeline": "pipeline"}  # the rest of core/*.py is shared


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
        assert LAYERS.index(layer) <= LAYERS.index(own), f"{own} imports {layer} ({'.'.join(target)}): an arrow up"
        into_other_package = target[0] in LAYERS and target[0] != own_package
        assert not (into_other_package and len(target) > 1), (
            f"imports the module {'.'.join(target)} of another package: import its names from {target[0]}"
        )
