"""A colloquial Cantonese question's written-Chinese words, for the lexical rankers:
:func:`written_form`.

Why: Hong Kong readers ask in Cantonese as they speak it (``僱主幾時要出糧？``,
``侍產假有幾多日？``) while the papers are in written Chinese (``僱主須於何時支付工資``,
``多少天``). BM25 matches words, so a question's colloquial words (幾時, 出糧, 幾多)
find nothing, and the words that would (何時, 發薪, 多少) are not in it. The
question also gets a written rewriting of itself for BM25 and the dictionary; the embedder
reads the question as asked (a multilingual encoder has seen Cantonese).

Where a word is: the question is cut left to right into the longest words that are either
in :data:`COLLOQUIAL` or in CC-CEDICT (two characters or more), so a colloquial character
inside a written word is left alone (``係`` in ``關係``).

The list: no maintained Cantonese→written-Chinese word list installs from PyPI (OpenCC's
configurations convert scripts, not registers), so each entry was checked by hand against two
named dictionaries: CC-Canto (cantonese.org, 2016-01-15 edition, CC BY-SA 3.0, as shipped in
the ``pinyin_jyutping_sentence`` sdist) glosses the Cantonese word (or, where it has no entry
or only another sense, CC-CEDICT glosses it as Cantonese, dialect or colloquial), and
CC-CEDICT's gloss of the written word shares an English content word with it, up to
inflection (``出糧`` "payment of wages / salary" and ``發薪`` "to pay wages or salary").
Entries that failed the check were left out however likely (``人工``→``工資``: CC-Canto
"salary", CC-CEDICT "wages; pay"; it keeps ``薪金`` "salary; wage"; ``老細``→``僱主``,
``粒鐘``→``小時``, ``攞``→``拿``, ``工人姐``→``家庭傭工``). A written word of more than one
form keeps them all (``甚麼``, Hong Kong's, and ``什麼``, CC-CEDICT's). Written words
are in Hong Kong's forms (``甚麼``, which CC-CEDICT lists as a variant of ``什麼``).
"""

from __future__ import annotations

from .bm25_index import script_of
from .dictionary_translation import MAX_WORD, dictionary
from .variants import variant_fold

# colloquial word -> its written-Chinese words, the first one used in the rewriting
COLLOQUIAL: dict[str, tuple[str, ...]] = {
    "冇": ("沒有",),
    "有冇": ("有沒有",),
    "係": ("是",),
    "係咪": ("是否",),
    "唔係": ("不是",),
    "佢": ("他",),
    "佢哋": ("他們",),
    "我哋": ("我們",),
    "你哋": ("你們",),
    "畀": ("給",),
    # CC-Canto: "by (passive)", as CC-CEDICT's 給 "(grammatical equivalent of 被)"; Hong Kong
    # also writes it for 畀 "to give"
    "俾": ("給",),
    "幾多": ("多少",),
    "點樣": ("怎樣", "如何"),
    "點解": ("為甚麼", "為什麼"),
    "幾時": ("何時", "甚麼時候"),
    "幾耐": ("多久",),
    "邊個": ("誰",),
    "邊度": ("哪裏", "哪兒"),
    "出糧": ("發薪", "工資"),
    "人工": ("薪金",),
    "糧": ("薪金",),
    "老細": ("老闆",),
    "老闆": ("僱主",),
    "返工": ("上班",),
    "放工": ("下班",),
    "搵": ("找",),
    "唔": ("不",),
    "唔使": ("不用",),
    "使唔使": ("需要",),
    "咗": ("了",),
    "嘅": ("的",),
    # CC-CEDICT: "to be at, in or on (Cantonese); Mandarin equivalent: 在"
    "喺": ("在",),
    "嗰": ("那",),
    "嗰啲": ("那些",),
    "呢個": ("這個",),
    "呢啲": ("這些",),
    "啲": ("些",),
    "嘢": ("東西",),
    "做嘢": ("工作",),
    "睇": ("看",),
    "諗": ("想",),
    "而家": ("現在",),
    "屋企": ("家",),
    "咁": ("這樣",),
    "乜嘢": ("甚麼", "什麼"),
    "咩": ("甚麼",),
    "先至": ("才",),
    "琴日": ("昨天",),
    "聽日": ("明天",),
    "禮拜": ("星期",),
    "鐘頭": ("小時",),
    "大假": ("年假",),
    "入紙": ("申請", "提交"),
    "啱啱": ("剛剛",),
    "嗰陣": ("那時", "時候"),
    "打工仔": ("僱員",),
    "冇得": ("不能",),
    "點算": ("怎麼辦",),
    "得唔得": ("可以",),
    "唔准": ("不准",),
    "嚟": ("來",),
    "俾錢": ("付錢",),
    "仲": ("還",),
    "辭工": ("辭職",),
    "放假": ("休假",),
    "整親": ("受傷",),
    # CC-CEDICT: "(coll.) to fire sb" (CC-Canto glosses only the dish)
    "炒魷魚": ("解僱",),
}
_LONGEST = max(map(len, COLLOQUIAL))


def written_form(query: str) -> str:
    """The query with its colloquial words in written Chinese, followed by their other
    written words; ``""`` when it has none (or is not in Chinese script)."""
    if script_of(query) != "zh":
        return ""
    text = variant_fold(query)
    words = dictionary().glosses
    out: list[str] = []
    extra: list[str] = []
    i = 0
    while i < len(text):
        size, written = _word_at(text, i, words)
        if written:
            out.append(written[0])
            extra.extend(written[1:])
        else:
            out.append(text[i : i + size])
        i += size
    rewritten = "".join(out)
    if rewritten == text:
        return ""
    return " ".join([rewritten, *dict.fromkeys(extra)])


def _word_at(text: str, i: int, words: dict[str, list[str]]) -> tuple[int, tuple[str, ...]]:
    """The size of the longest word at ``i`` and, when it is colloquial, its written words."""
    for size in range(min(max(MAX_WORD, _LONGEST), len(text) - i), 0, -1):
        piece = text[i : i + size]
        if piece in COLLOQUIAL:
            return size, COLLOQUIAL[piece]
        if size > 1 and piece in words:
            return size, ()
    return 1, ()


def lexical_query(query: str) -> str:
    """What the lexical rankers search for ``query``: the query, and its written form on a
    line of its own when it has colloquial words (bigrams never span the two)."""
    written = written_form(query)
    return f"{query}\n{written}" if written else query
