"""PDFium's functions for the loops over a page's objects and characters, called without
ctypes converting each argument.

Why: pypdfium2 declares every function's argument types, so ctypes converts each argument
on every call, about half of what a call costs (a character's box: 0.7 µs declared, 0.35 µs
not). Reading a long paper and finding its tables make about half a million such calls, one
or more per page object, per character near a table, per text rectangle.

The functions here are pypdfium2's own (the same library, the same addresses, the same
return types), declared without argument types. So a caller passes exactly what C receives:
a handle as pypdfium2 returns it, a Python ``int`` where C takes an ``int``, and every
out-parameter by ``ctypes.byref``. A ctypes number passed as it is would reach C by value,
not as the pointer it expects. Only functions whose parameters are handles, ``int`` and
pointers are listed; the rest of the code calls pypdfium2's declared functions.
"""

from __future__ import annotations

import ctypes
from functools import cache
from types import SimpleNamespace
from typing import Any

# the functions of the hot loops; every parameter a handle, a C int or a pointer
NAMES = (
    "FPDFPage_CountObjects",
    "FPDFPage_GetObject",
    "FPDFPageObj_GetType",
    "FPDFTextObj_GetTextRenderMode",
    "FPDFTextObj_GetFont",
    "FPDFText_GetCharBox",
    "FPDFText_GetLooseCharBox",
    "FPDFText_GetRect",
    "FPDFText_CountRects",
    "FPDFText_IsGenerated",
    "FPDFText_GetFontSize",
    "FPDFText_GetFontWeight",
    "FPDFText_GetTextObject",
)


@cache
def bare_calls() -> SimpleNamespace:
    """The functions of :data:`NAMES`, without argument types (made once per process)."""
    import pypdfium2.raw as raw

    return SimpleNamespace(**{name: _bare(getattr(raw, name)) for name in NAMES})


def _bare(function: Any) -> Any:
    """A second handle on ``function``'s C function: same address and return type, no
    argument types."""
    copy = type(function)(ctypes.cast(function, ctypes.c_void_p).value)
    copy.restype = function.restype
    return copy
