"""Every line pattern the project recognises, in one place.

Preprocessing (footers, headers) and structure detection (questions, answers, headings,
bullets, brackets) both read these, so each marker has exactly one regex.
"""

from __future__ import annotations

import re

# --- characters ---------------------------------------------------------------------------
CJK = r"\u2e80-\u2fdf\u3000-\u303f\u31c0-\u31ef\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
CJK_CHAR = re.compile(f"[{CJK}]")
# a space (or several) with CJK on both sides: letter-spaced Chinese
CJK_GAP = re.compile(f"(?<=[{CJK}])[ \u00a0\u3000]+(?=[{CJK}])")
# a CJK character followed by one space, used to measure how letter-spaced a page is
CJK_SPACED = re.compile(f"[{CJK}] (?=[{CJK}])")

# --- page furniture (footers, headers, page numbers) --------------------------------------
PAGE_LABEL = re.compile(r"^\(?[A-Z]{1,3}\)?\s?[-–]\s?\d{1,4}$")  # E-3, LC-12, (B)-2
PAGE_DATE = re.compile(
    r"^(?:\d{1,4}\s+)?(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{4}|\d{1,2}/\d{1,2}/\d{4}|\d{4}年\d{1,2}月(?:\d{1,2}日)?)$"
)
PAGE_NUMBER = re.compile(
    r"^(?:\d{1,4}(?:\s+\d{1,4})?|-\s*\d{1,4}\s*-|(?:page|p\.)\s*\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?|第\s*\d{1,4}\s*頁(?:\s*共\s*\d+\s*頁)?|\d{1,4}\s*/\s*\d{1,4})$",
    re.IGNORECASE,
)
FIRST_PAGE_HEADER = re.compile(r"^\([A-Z]{1,2}\)$")  # (E) in the top corner of page 1

# --- document structure -------------------------------------------------------------------
TOC_LEADER = re.compile(r"(?:\.{4,}|…{2,}|·{4,}|_{4,}|\s\.\s\.\s\.)\s*\d{1,4}\s*$")
