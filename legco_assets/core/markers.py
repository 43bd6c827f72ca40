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
TOC_LEADER = re.compile(r"(?:\.{3,}|…{2,}|·{4,}|_{4,}|\s\.\s\.\s\.)\s*\d{1,4}(?:\s*[-–]\s*\d{1,4})?\s*$")
TOC_TITLE = re.compile(r"^(?:目\s*錄|目\s*录|Table\s+of\s+Contents?|Contents)(?:\s+(?:Page|頁數|頁次|頁))?\s*$", re.IGNORECASE)
# a contents entry's reference: a page or paragraph number or range at the end of the line,
# after leaders (``…… 12``, ``12 - 14``, ``第 1 - 9 段``, ``paragraphs 1-9``)
TOC_ENTRY_REF = re.compile(
    r"(?:\s*(?:\.{2,}|…+|·{2,}|_{2,}))?\s*(?:第\s*|paras?\.?\s*|paragraphs?\s*|pp?\.\s*)?"
    r"(?P<first>\d{1,4})(?:\s*[-–至]\s*(?P<last>\d{1,4}))?\s*(?:段|頁)?\s*$",
    re.IGNORECASE,
)
# inside a table of contents only: an entry that ends with its page (``前言 2``, ``… 46 - 60``)
TOC_PAGE_REF = re.compile(r"\S\s*\d{1,3}(?:\s*[-–]\s*\d{1,3})?\s*$")

# questions and answers; ``id`` is the label as printed (A1, B 2, 12), ``text`` the rest of the line
ZH_QUESTION = re.compile(r"^問(?:題)?\s*(?P<id>[A-Za-z]{0,3}\s?\d{0,3})\s*[:：︰]\s*(?P<text>.*)$")
ZH_ANSWER = re.compile(r"^答(?:案|覆)?\s*(?P<id>[A-Za-z]{0,3}\s?\d{0,3})\s*[:：︰]\s*(?P<text>.*)$")
# ``Q7 …``, ``Q7. …``, ``Question 7: …``, ``O1 …`` (Others); unnumbered: ``Q: …`` / ``Q. …``
EN_QUESTION = re.compile(
    r"^(?P<letter>Q|O|Question)(?:\s?(?P<num>\d{1,3})(?:\s*[.:：)]\s*|\s+|$)|\s*(?:[:：]|\.(?=\s))\s*)"
    r"(?P<text>(?:[^\d\s].*)?)$"
)
EN_ANSWER = re.compile(
    r"^(?:A|Answer)(?:\s?(?P<num>\d{1,3})(?:\s*[.:：)]\s*|\s+|$)|\s*(?:[:：]|\.(?=\s))\s*)(?P<text>.*)$"
)
# ``1 新規定如何操作？`` / ``3 How to ascertain …`` / a bare ``3`` above the question text
NUMBERED_QUESTION = re.compile(r"^(?P<num>\d{1,2})(?:\s*[.．、)]\s*|\s+|$)(?P<text>(?:[^\d\s.．、)].*)?)$")
QUESTION_END = re.compile(r"[?？][」』”’\"')）]*\s*$")
# hansard: ``1. 林健鋒議員：…`` / ``1. MR JEFFREY LAM (in Chinese): …`` asks,
# ``勞工及福利局局長：主席，…`` / ``SECRETARY FOR … (in Chinese): President, …`` replies (text after the match)
HANSARD_QUESTION = re.compile(
    r"^(?P<num>\d{1,2})\s*[.．]\s*(?:[\u4e00-\u9fff]{2,6}議員\s*(?:[(（]譯文[)）])?\s*[:：]"
    r"|(?:MR|MS|MRS|MISS|DR|PROF|IR)\s+[A-Z][A-Z' .,-]*?\s*(?:\(in\s+\w+\))?\s*:)\s*(?P<text>.*)$"
)
HANSARD_REPLY = re.compile(
    r"^(?:[\u4e00-\u9fff]{2,20}(?:局長|司長|主席|署長|處長|秘書長)\s*(?:[(（]譯文[)）])?\s*[:：]"
    r"|(?:(?:UNDER|PERMANENT|CHIEF|FINANCIAL)\s+)?SECRETARY\b[A-Z ,'&-]*?\s*(?:\(in\s+\w+\))?\s*:)\s*(?=主席|President)"
)

# headings
# ``(A) 排水系統``, ``(1) …``, ``(II) …``, ``(一) …``, ``一、背景``, ``A. CAUSED BY …``
TOPIC_HEADING = re.compile(
    r"^(?:[(（]\s*(?P<label>[A-Z]|\d{1,2}|[IVXL]{1,6}|[一二三四五六七八九十]{1,3})\s*[)）]"
    r"|(?P<cn>[一二三四五六七八九十]{1,3})\s*、|(?P<letter>[A-Z])\.(?=\s))\s*(?P<text>\S.*)$"
)
CHAPTER_HEADING = re.compile(r"^(?:第[一二三四五六七八九十百\d]+\s*(?:部分|[章部篇節])|(?:Chapter|Part)\s+(?:\d{1,2}|[IVX]{1,5})\b)")
ANNEX_HEADING = re.compile(
    r"^(?:附\s*錄|附\s*件|附\s*表|Appendix|Annex(?:ure)?)\s*(?:[A-Z]|\d{1,2}|[IVX]{1,5}|[一二三四五六七八九十]{1,3})?(?:\s+\S.*|\s*[(（].*)?$",
    re.IGNORECASE,
)
CONTINUED = re.compile(r"[(（]\s*(?:cont(?:inued|'d|\.)?|續)\s*[)）]|[─—-]\s*續\s*$", re.IGNORECASE)
FAQ_TITLE = re.compile(
    r"^(?:Frequently\s+Asked\s+Questions|FAQs?|常見問題(?:解答)?|問與答|Questions?\s+and\s+Answers?)(?:\s+(?:on|about|regarding|for|關於)\b.*)?\s*[:：]?\s*$",
    re.IGNORECASE,
)
# a title line broken mid-phrase (``Liability for Compensation for`` / ``Work Injury …``)
TITLE_BREAK = re.compile(r"\b(?:of|for|and|the|to|in|on|an|a|or|with|by|under|from|at|as)\s*$|[,，、&(（-]\s*$", re.IGNORECASE)
# the label in front of a list item or numbered title (``1.``, ``(a)``, ``(iii)``, ``A.``)
LEADING_LABEL = re.compile(r"^\s*(?:[(（]?\s*(?:\d{1,3}|[A-Za-z]|[ivxIVX]{1,5})\s*[)）.．、]\s*)+")
# ``1. Background`` / ``2.1 現行機制``: a numbered section title (judged further by the caller)
NUMBERED_HEADING = re.compile(r"^(?P<num>\d{1,2})(?:\.\d{1,2})*[.．、]?\s+(?P<text>[A-Z\u4e00-\u9fff].*)$")
SPEAKING_NOTES = re.compile(
    r"^(?:發言要點|發言稿|講話要點|讲话要点|致辭要點|Speaking\s+(?:Notes?|Points))\s*[:：]?\s*$", re.IGNORECASE
)
# where the Q&A part starts: standby Q&A of a paper, or the questions part of a hansard
STANDBY_QA = re.compile(
    r"^(?:備用問答|備用問題(?:及答案|及答覆)?|Standby\s+(?:Questions?\s+and\s+Answers?|Q\s*(?:&|and)\s*As?|Questions?)"
    r"|議員質詢的(?:口頭|書面)答覆|(?:ORAL|WRITTEN)\s+ANSWERS\s+TO\s+QUESTIONS)\s*[:：]?\s*$",
    re.IGNORECASE,
)
# hansard order of business after (or before) the questions
HANSARD_BUSINESS = re.compile(
    r"^(?:提交文件|議案|議員議案|法案|政府法案|議員法案|下次會議|休會辯論|TABLING\s+OF\s+PAPERS|MOTIONS|MEMBERS'\s+MOTIONS"
    r"|BILLS|GOVERNMENT\s+BILLS|MEMBERS'\s+BILLS|NEXT\s+MEETING|ADJOURNMENT(?:\s+DEBATE)?)\s*$"
)

# text shapes used to judge headings and tables
SENTENCE_END = re.compile(r"[。．.!?！？;；][」』”’\"')）\]］】]*\s*$")
CLAUSE_END = re.compile(r"[,，、:：]\s*$")
CJK_CLAUSE_PUNCT = re.compile(r"[，。；：？！、]")
BULLET = re.compile(r"^\s*(?P<glyph>[⚫●•➢▪■◆◇○◦‧・►▶❖✓✔]|[-–](?=\s)|\(?[ivx]{1,4}[.)](?=\s))\s*(?P<text>\S.*)$")
NUMBERED_ITEM = re.compile(r"^\s*(?:\d{1,2}|[a-z])[.)．、]\s*\S")

# notes inside answers: internal references (droppable) and follow-ups (always kept)
INTERNAL_REF = re.compile(r"[\[［【]\s*(?:內部參考|内部参考|內部資料|Internal\s+reference)", re.IGNORECASE)
FOLLOW_UP = re.compile(r"[\[［【]\s*(?:如被追問|如被追问|If\s+pressed)", re.IGNORECASE)
BRACKET_CLOSE = re.compile(r"[\]］】]")
MARKDOWN_TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$", re.MULTILINE)
