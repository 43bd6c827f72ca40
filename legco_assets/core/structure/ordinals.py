"""The value of a list or heading label: ``(三)`` is 3, ``(iv)`` is 4, ``十二`` is 12.

Structure detection (topic headings in sequence) and Council replies (a reply's parts in
the order of the question's) both count labels; they count them here, one way.
"""

from __future__ import annotations

CN_DIGITS = "一二三四五六七八九"
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50}
_ROMAN_DIGITS = "IVXL"


def cn_value(label: str) -> int:
    """``一`` .. ``九十九`` as a number (``十`` = 10, ``十二`` = 12, ``二十`` = 20)."""
    if label == "十":
        return 10
    if label.startswith("十"):
        return 10 + CN_DIGITS.index(label[1]) + 1
    if "十" in label:
        tens, _, units = label.partition("十")
        return (CN_DIGITS.index(tens) + 1) * 10 + (CN_DIGITS.index(units) + 1 if units else 0)
    return CN_DIGITS.index(label) + 1


def label_id(label: str) -> str:
    """The id a question or answer label carries (``問 A1：`` A1, ``問一：`` 1), spaces
    removed, letters upper case, Chinese numerals as digits: ``問一`` answers to ``答1``."""
    label = "".join(label.split()).upper()
    return str(cn_value(label)) if label and all(ch in CN_DIGITS + "十" for ch in label) else label


def roman_value(label: str) -> int:
    """A roman numeral of I, V, X, L in either case (``iv`` = 4, ``XII`` = 12)."""
    digits = [_ROMAN[ch] for ch in label.upper()]
    return sum(-v if n + 1 < len(digits) and digits[n + 1] > v else v for n, v in enumerate(digits))


def label_value(label: str) -> tuple[str, int] | None:
    """Style and ordinal of a heading label: ``B`` -> (letter, 2), ``III`` -> (roman, 3)."""
    if label.isdigit():
        return "digit", int(label)
    if label and all(ch in _ROMAN_DIGITS for ch in label) and len(label) > 1 or label in {"I", "V", "X"}:
        return "roman", roman_value(label)
    if len(label) == 1 and "A" <= label <= "Z":
        return "letter", ord(label) - 64
    if label and all(ch in CN_DIGITS + "十" for ch in label):
        return "cn", cn_value(label)
    return None
