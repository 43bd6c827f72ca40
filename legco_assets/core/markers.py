"""Every line pattern the project recognises, in one place.

Preprocessing (footers, headers) and structure detection (questions, answers, headings,
bullets, brackets) both read these, so each marker has exactly one regex.

Each pattern is compiled when first used (``markers.NAME`` then finds the compiled pattern,
as any module attribute). Why: compiling all of them took 30 ms of every start, before
``legco-assets chunk`` can fork its reader, whose pages need only a few; the patterns a
process never uses (the structure rules in a process that only reads pages) are never
compiled.
"""

from __future__ import annotations

import re
from typing import NamedTuple


class _Source(NamedTuple):
    pattern: str
    flags: int


def _deferred(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern to compile on first use (:func:`__getattr__`); typed as what it becomes."""
    return _Source(pattern, flags)  # type: ignore[return-value]


# --- characters ---------------------------------------------------------------------------
CJK = r"\u2e80-\u2fdf\u3000-\u303f\u31c0-\u31ef\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
CJK_CHAR = _deferred(f"[{CJK}]")
# a run of anything else (:func:`cjk_count`)
NON_CJK_RUN = re.compile(f"[^{CJK}]+")  # compiled now: cjk_count below reads it as a global


def cjk_count(text: str) -> int:
    """How many of ``text``'s characters are CJK: its length less its other runs' (a match
    per run of other characters, where ``CJK_CHAR.findall`` made a string per CJK one)."""
    return len(text) - sum(map(len, NON_CJK_RUN.findall(text)))


# a space (or several) with CJK on both sides: letter-spaced Chinese
CJK_GAP = _deferred(f"(?<=[{CJK}])[ \u00a0\u3000]+(?=[{CJK}])")
# a CJK character followed by one space, used to measure how letter-spaced a page is
CJK_SPACED = _deferred(f"[{CJK}] (?=[{CJK}])")

# --- page furniture (footers, headers, page numbers) --------------------------------------
PAGE_LABEL = _deferred(r"^\(?[A-Z]{1,3}\)?\s?[-–]\s?\d{1,4}$")  # E-3, LC-12, (B)-2
PAGE_DATE = _deferred(
    r"^(?:\d{1,4}\s+)?(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{4}|\d{1,2}/\d{1,2}/\d{4}|\d{4}年\d{1,2}月(?:\d{1,2}日)?)$"
)
PAGE_NUMBER = _deferred(
    r"^(?:\d{1,4}(?:\s+\d{1,4})?|-\s*\d{1,4}\s*-|(?:page|p\.)\s*\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?|第\s*\d{1,4}\s*頁(?:\s*共\s*\d+\s*頁)?|\d{1,4}\s*/\s*\d{1,4})$",
    re.IGNORECASE,
)
FIRST_PAGE_HEADER = _deferred(r"^\([A-Z]{1,2}\)$")  # (E) in the top corner of page 1

# a roster line's honours after the name: "…, G.B.S., J.P.", "…議員, 大紫荊勳賢, J.P." (the
# name is what comes before the first comma; names themselves carry none)
ROSTER_HONOURS = _deferred(r"\s*[,，]\s.*$")
ROSTER_WORD = _deferred(r"[A-Z]{4,}")  # a title word a list of names repeats (HONOURABLE, SECRETARY)

# --- document structure -------------------------------------------------------------------
TOC_LEADER = _deferred(r"(?:\.{3,}|…{2,}|·{4,}|_{4,}|\s\.\s\.\s\.)\s*\d{1,4}(?:\s*[-–]\s*\d{1,4})?\s*$")
TOC_TITLE = _deferred(
    r"^(?:目\s*錄|目\s*录|Table\s+of\s+Contents?|Contents)"
    r"(?:\s+(?:Pages?|頁數|頁次|頁|段落|段|Paras?\.?|Paragraphs?))?\s*$",
    re.IGNORECASE,
)
# a contents entry's reference: a page or paragraph number or range at the end of the line,
# after leaders (``…… 12``, ``12 - 14``, ``第 1 - 9 段``, ``paragraphs 1-9``)
TOC_ENTRY_REF = _deferred(
    r"(?:\s*(?:\.{2,}|…+|·{2,}|_{2,}))?\s*(?:第\s*|paras?\.?\s*|paragraphs?\s*|pp?\.\s*)?"
    r"(?P<first>\d{1,4})(?:\s*[-–至]\s*(?P<last>\d{1,4}))?\s*(?:段|頁)?\s*$",
    re.IGNORECASE,
)
# inside a table of contents only: an entry that ends with its page (``前言 2``, ``… 46 - 60``)
TOC_PAGE_REF = _deferred(r"\S\s*\d{1,3}(?:\s*[-–]\s*\d{1,3})?\s*$")

# questions and answers; ``id`` is the label as printed (A1, B 2, 12), ``text`` the rest of the line
# the label ends with a colon, or after a number with a full stop (``問1.`` / ``答1.``: FAQ
# pages, often in a table cell of their own)
# ``問1.``, ``問 A1：``, ``問題：``, ``問一：``, ``【問】``; the id in digits, letters or Chinese
# numerals
_ZH_LABEL_END = (
    r"\s*(?P<id>[A-Za-z]{0,3}\s?\d{0,3}|[一二三四五六七八九十]{1,3})"
    r"(?(open)\s*[】］〔〕\]]\s*[:：︰]?|(?:\s*[:：︰]|(?<=\d)\s*[.．](?!\d)))"
    r"\s*(?P<text>.*)$"
)
ZH_QUESTION = _deferred(r"^(?P<open>[【［〔\[])?問(?:題)?" + _ZH_LABEL_END)
# answers: ``答1.``, ``答覆：``, and a paper's response to Members' questions (``回應：``,
# ``政府當局的回應：``)
ZH_ANSWER = _deferred(r"^(?P<open>[【［〔\[])?(?:答(?:案|覆)?|(?:政府(?:當局)?的?)?回[應覆])" + _ZH_LABEL_END)
# ``Q7 …``, ``Q7. …``, ``Q.7 …``, ``[Q7] …``, ``Question 7: …``, ``Question No. 7: …``, ``O1 …``
# (Others); unnumbered: ``Q: …`` / ``Q. …``; the answers' labels alike
_EN_LABEL_END = (
    r"(?:(?:\.|\s+No\.?)?\s?(?P<num>\d{1,3})(?(open)[\]］】]\s*|(?:\s*[.:：)]\s*|\s+|$))"
    r"|(?(open)[\]］】]\s*|\s*(?:[:：]|\.(?=\s))\s*))"
)
EN_QUESTION = _deferred(
    r"^(?P<open>[\[［【])?(?P<letter>Q|O|Question)" + _EN_LABEL_END + r"(?P<text>(?:[^\d\s].*)?)$"
)
EN_ANSWER = _deferred(
    r"^(?P<open>[\[［【])?(?:A|Ans|Answer|Reply|Response|(?:The\s+)?Administration['’]s\s+(?:response|reply))"
    + _EN_LABEL_END
    + r"(?P<text>.*)$"
)
# ``1 新規定如何操作？`` / ``3 How to ascertain …`` / a bare ``3`` above the question text
NUMBERED_QUESTION = _deferred(r"^(?P<num>\d{1,2})(?:\s*[.．、)]\s*|\s+|$)(?P<text>(?:[^\d\s.．、)].*)?)$")
QUESTION_END = _deferred(r"[?？][」』”’\"')）]*\s*$")
# hansard speaker turns, as printed at the start of a line: a member (``林健鋒議員：``,
# ``郭榮鏗議員(譯文)：``, ``MR JEFFREY LAM (in Chinese):``), an official (``勞工及福利局局長：``,
# ``SECRETARY FOR SECURITY:``) or the President (``主席：``, ``PRESIDENT (in Cantonese):``)
# the label between name and colon, with any spacing the text layer gives (``(譯文 )``, ``( in Cantonese)``)
_TRANSLATED = r"(?:\s*[(（]\s*譯\s*文\s*[)）])?"
_IN_LANGUAGE = r"(?:\s*[(（]\s*in\s+[A-Za-z]+\s*[)）])?"
_ZH_MEMBER = r"[\u4e00-\u9fff]{2,6}議員"
_EN_MEMBER = (
    r"(?:MR|MS|MRS|MISS|DR|PROF|IR|SR|REVD)\s+[A-Z][A-Z' .,-]*?"  # IR/SR: engineer, surveyor; REVD CANON …
)
_ZH_OFFICIAL = r"[\u4e00-\u9fff]{2,20}(?:局長|司長|主席|署長|處長|秘書長|專員)"
# DEPUTY FINANCIAL SECRETARY
_EN_OFFICIAL = r"(?:(?:DEPUTY|UNDER|PERMANENT|CHIEF|FINANCIAL)\s+){0,2}SECRETARY\b[A-Z ,'&-]*?"
_ZH_PRESIDENT = r"(?:代理|全委會)?副?主席"
_EN_PRESIDENT = r"(?:DEPUTY\s+)?(?:PRESIDENT|CHAIRMAN)"
_COLONS = "[:：︰]"
_COLON = rf"\s*{_COLONS}"
# the colon a speaker's label ends with: a line without one opens no turn
LABEL_COLON = _deferred(_COLONS)
# hansard: ``1. 林健鋒議員：…`` / ``1. MR JEFFREY LAM (in Chinese): …`` asks,
# ``勞工及福利局局長：主席，…`` / ``SECRETARY FOR … (in Chinese): President, …`` replies (text after the
# match; a long title may leave ``President, …`` to the next line; a reply need not open by
# addressing the President: ``勞工及福利局局長：青少年上網…``). The President's own lines
# (``代理主席：``, ``全委會主席：``) look like an official's label and never reply.
HANSARD_QUESTION = _deferred(
    rf"^(?P<num>\d{{1,2}})\s*[.．]\s*(?:{_ZH_MEMBER}\s*{_TRANSLATED}{_COLON}"
    rf"|{_EN_MEMBER}\s*{_IN_LANGUAGE}{_COLON})\s*(?P<text>.*)$"
)
HANSARD_REPLY = _deferred(
    rf"^(?!{_ZH_PRESIDENT}\s*{_TRANSLATED}{_COLON})"
    rf"(?:{_ZH_OFFICIAL}\s*{_TRANSLATED}{_COLON}|{_EN_OFFICIAL}\s*{_IN_LANGUAGE}{_COLON})\s*"
)
# any speaker's turn, numbered (a question) or not; the group that matched says who speaks
SPEAKER_TURN = _deferred(
    rf"^(?:\d{{1,2}}\s*[.．]\s*)?(?:(?P<member>{_ZH_MEMBER}|{_EN_MEMBER})|(?P<president>{_ZH_PRESIDENT}|{_EN_PRESIDENT})"
    rf"|(?P<official>{_ZH_OFFICIAL}|{_EN_OFFICIAL}))\s*(?:{_TRANSLATED}|{_IN_LANGUAGE})(?:{_COLON})\s*"
)
# the President asking whether a supplementary was answered: the member's next turn follows it up
NOT_ANSWERED = _deferred(r"未獲答覆|沒有回答|not\s+been\s+answered|not\s+answered", re.IGNORECASE)
# the heading over a hansard's questions, oral or written
QUESTIONS_HEADING = _deferred(
    r"^議員質詢的(?:口頭|書面)答覆$|^(?:ORAL|WRITTEN)\s+ANSWERS\s+TO\s+QUESTIONS$", re.IGNORECASE
)
# the part of a hansard holding written replies (its level-1 heading)
WRITTEN_REPLIES = _deferred(r"書面答覆|WRITTEN\s+ANSWERS", re.IGNORECASE)
# a reply's (or a question's) own part at the start of a line: ``(一)``, ``(1)``, ``(a)``,
# ``(一)及(二)``, ``(1) and (2)``; ``labels`` is the run of labels, ``text`` the rest
REPLY_PART = _deferred(
    r"^(?P<labels>[(（]\s*(?:[一二三四五六七八九十]{1,3}|\d{1,2}|[a-zA-Z]|[ivx]{1,4})\s*[)）]"
    r"(?:\s*(?:及|和|至|、|,|and|to|&)\s*[(（]\s*(?:[一二三四五六七八九十]{1,3}|\d{1,2}|[a-zA-Z]|[ivx]{1,4})\s*[)）])*)"
    r"\s*(?P<text>.*)$"
)
PART_LABEL = _deferred(r"[(（]\s*([一二三四五六七八九十]{1,3}|\d{1,2}|[a-zA-Z]|[ivx]{1,4})\s*[)）]")

# a question put but not yet answered: a Council agenda names who will reply instead of replying
REPLY_PENDING = _deferred(
    r"^(?:Public\s+officers?\s+to\s+reply|負責答覆的(?:政府)?官員)\s*[:：︰]", re.IGNORECASE
)
# a member's question as a Council agenda prints it, numbered, ``*`` when for written reply:
# ``3. Hon James TIEN to ask: (Translation)``, ``*7. Dr Hon LEUNG Ka-lau to ask:``, ``1. 譚耀宗議員問：``,
# ``1. Hon CHAN Kwok-wai to ask: (Oral reply) (Translation)``
AGENDA_QUESTION = _deferred(
    r"^(?P<star>\*)?\s*(?P<num>\d{1,2})\s*[.．]\s*"
    r"(?:(?P<asker>(?:(?:Dr|Prof|Ir|Sr|Revd|Canon|Mr|Mrs|Ms|Miss)\s+){0,3}Hon\s+\S.{0,40}?)\s+to\s+ask\s*[:：]"
    r"|(?P<asker_zh>[\u4e00-\u9fff]{2,6}議員)問\s*[:：︰])"
    r"(?:\s*\((?:Translation|Oral\s+reply|Written\s+reply)\)|\s*[(（]\s*譯\s*文\s*[)）])*\s*(?P<text>.*)$"
)

# headings
# ``(A) 排水系統``, ``(1) …``, ``(II) …``, ``(一) …``, ``一、背景``, ``A. CAUSED BY …``, ``III. Bills``
TOPIC_HEADING = _deferred(
    r"^(?:[(（]\s*(?P<label>[A-Z]|\d{1,2}|[IVXL]{1,6}|[一二三四五六七八九十]{1,3})\s*[)）]"
    r"|(?P<cn>[一二三四五六七八九十]{1,3})\s*、|(?P<letter>[A-Z]|[IVX]{2,5})\.(?=\s))\s*(?P<text>\S.*)$"
)
CHAPTER_HEADING = _deferred(
    r"^(?:第[一二三四五六七八九十百\d]+\s*(?:部分|[章部篇節])|(?:Chapter|Part)\s+(?:\d{1,2}|[IVX]{1,5})\b)"
)
ANNEX_HEADING = _deferred(
    r"^(?:附\s*錄|附\s*件|附\s*表|Appendix|Annex(?:ure)?)\s*(?:[A-Z]|\d{1,2}|[IVX]{1,5}|[一二三四五六七八九十]{1,3})?(?:\s+\S.*|\s*[(（].*)?$",
    re.IGNORECASE,
)
# a Hansard's appendix: the label line that opens it (``附錄I``, ``附錄 II``, ``Appendix I``,
# ``附件``, ``Annex``), alone on its line; ``label`` is its number, if any
APPENDIX_LABEL = _deferred(
    r"^(?P<kind>附\s*錄|附\s*件|Appendix|Annex|APPENDIX|ANNEX)\s*(?P<label>[IVX]{1,5}|\d{1,2}|[A-Z]|[一二三四五六七八九十]{1,3})?\s*$"
)
# a reply pointing at one, in brackets inside the turn: ``(附錄I)``, ``(附件)``, ``(Appendix I)``, ``(Annex)``
APPENDIX_REFERENCE = _deferred(
    r"[(（]\s*(?:見|see\s+)?(?P<kind>附\s*錄|附\s*件|Appendix|Annex)\s*(?P<label>[IVX]{1,5}|\d{1,2}|[A-Z]|[一二三四五六七八九十]{1,3})?\s*[)）]",
    re.IGNORECASE,
)
# the appendix's own title naming the question it answers: ``勞工及福利局局長就林健鋒議員對第一項質詢的
# 補充質詢所作書面答覆`` / ``…就林健鋒議員的第三項質詢所作書面答覆`` / ``Written answer by the Secretary
# for Labour and Welfare to Mr Jeffrey LAM's supplementary question to Question 1`` (whitespace
# removed from the Chinese first: the title wraps over lines)
APPENDIX_TITLE_ZH = _deferred(
    r"^(?P<answerer>\S{2,30}?)就(?P<member>\S{2,12}?議員)(?:對|的)?第(?P<number>[一二三四五六七八九十\d]{1,3})項"
    r"(?:口頭)?質詢(?P<supplementary>的補充質詢)?所作(?:的)?書面答覆"
)
APPENDIX_TITLE_EN = _deferred(
    r"^Written\s+answers?\s+by\s+(?:the\s+)?(?P<answerer>.+?)\s+to\s+(?P<member>.+?)['’]s?\s+"
    r"(?P<supplementary>supplementary\s+)?questions?\s+(?:to|on)\s+Question\s+(?P<number>\d{1,2})\b",
    re.IGNORECASE,
)
# A bill's amendments are written as instructions on lines of their own: ``廢除`` / ``Repeal``,
# ``代以`` / ``Substitute``, ``加入`` / ``Add`` (alone, or before the quoted words or the
# paragraph they act on). Short and bare, they look like titles; they never are.
DRAFTING_INSTRUCTION = _deferred(r"^\s*(?:廢除|代以|加入|Repeal|Substitute|Add)\s*(?:$|[(（“\"「])")
# A table's unit printed in brackets at the start of its header line, under the table's title:
# ``($ billion) 2019-20 …``, ``(HK$ million)``, ``('000)``, ``(%)``, ``（百萬元）``, ``(港元)``.
UNIT_NOTE = _deferred(
    r"^\s*[(（]\s*(?:(?:HK|US|RMB)?\$\s*(?:'000|millions?|billions?|thousands?|m|bn)?|(?:in\s+)?(?:'000|millions?|"
    r"billions?|thousands?|per\s+cent|%)|[港美]?(?:千|萬|百萬|億)?元|%)\s*[)）]",
    re.IGNORECASE,
)
# A note's own heading, the title of a boxed aside: ``IMPORTANT NOTE``, ``Note:``, ``Notes: …``,
# ``N.B.``, ``註：``, ``備註``; alone or before a colon (``Notes on the Accounts`` is a section).
NOTE_HEADING = _deferred(
    r"^\s*(?:(?:important\s+)?notes?|n\.\s?b\.?|(?:重要)?(?:註|注|備註|附註))\s*(?:[:：︰]|$)", re.IGNORECASE
)
CONTINUED = _deferred(r"[(（]\s*(?:cont(?:inued|['’]d|\.)?|續)\s*[)）]|[─—-]\s*續\s*$", re.IGNORECASE)
FAQ_TITLE = _deferred(
    r"^(?:Frequently\s+Asked\s+Questions|FAQs?|[\u4e00-\u9fff「」《》〈〉]{0,16}?(?:常見問題(?:解答)?|問與答)|Questions?\s+and\s+Answers?)"
    r"(?:\s+(?:on|about|regarding|for|關於)\b.*|\s*[-–—:：]\s*\S.*)?\s*[:：]?\s*$",
    re.IGNORECASE,
)
# a title line broken mid-phrase (``Liability for Compensation for`` / ``Work Injury …``)
TITLE_BREAK = _deferred(
    r"\b(?:of|for|and|the|to|in|on|an|a|or|with|by|under|from|at|as)\s*$|[,，、&(（-]\s*$", re.IGNORECASE
)
# the label in front of a list item or numbered title (``1.``, ``(a)``, ``(iii)``, ``A.``)
LEADING_LABEL = _deferred(r"^\s*(?:[(（]?\s*(?:\d{1,3}|[A-Za-z]|[ivxIVX]{1,5})\s*[)）.．、]\s*)+")
# ``1. Background`` / ``2.1 現行機制``: a numbered section title (judged further by the caller)
NUMBERED_HEADING = _deferred(r"^(?P<num>\d{1,2})(?:\.\d{1,2})*[.．、]?\s+(?P<text>[A-Z\u4e00-\u9fff].*)$")
SPEAKING_NOTES = _deferred(
    r"^(?:發言要點|發言稿|講話要點|讲话要点|致辭要點|Speaking\s+(?:Notes?|Points))\s*[:：]?\s*$",
    re.IGNORECASE,
)
# where the Q&A part starts: standby Q&A of a paper, or the questions part of a hansard
STANDBY_QA = _deferred(
    r"^(?:備用問答|備用問題(?:及答案|及答覆)?|Standby\s+(?:Questions?\s+and\s+Answers?|Q\s*(?:&|and)\s*As?|Questions?)"
    r"|議員質詢的(?:口頭|書面)答覆|(?:ORAL|WRITTEN)\s+ANSWERS\s+TO\s+QUESTIONS)\s*[:：]?\s*$",
    re.IGNORECASE,
)
# hansard order of business after (or before) the questions
HANSARD_BUSINESS = _deferred(
    r"^(?:提交文件|議案|議員議案|法案|政府法案|議員法案|下次會議|休會辯論|TABLING\s+OF\s+PAPERS|MOTIONS|MEMBERS'\s+MOTIONS"
    r"|BILLS|GOVERNMENT\s+BILLS|MEMBERS'\s+BILLS|NEXT\s+MEETING|ADJOURNMENT(?:\s+DEBATE)?)\s*$"
)

# web page furniture: a "back to top" link, a server's error page (HTML input)
# a web page's skip link ("Skip to main content", 跳至主要內容): an in-page link for screen
# readers and keyboards, not the paper
SKIP_LINK = _deferred(
    r"^\s*(?:skip|jump)\s+(?:to|over)\s+(?:the\s+)?(?:main\s+)?(?:content|navigation|menu)\b.*$|^\s*跳(?:至|到|過|去)(?:主要|主)?(?:內容|内容|正文|選單|導航)\s*$",
    re.IGNORECASE,
)
BACK_TO_TOP = _deferred(
    r"^[↑▲^⇧\s]*(?:back\s+to\s+(?:the\s+)?top|(?:go\s+to\s+)?top(?:\s+of\s+(?:the\s+)?page)?|返回頁首|回到頁首|回頁首|頁首"
    r"|返回頂部|回到頂部|返回页首|回到顶部|返回頂端|回頂端)[↑▲^⇧\s]*$",
    re.IGNORECASE,
)
# a government press release's sign-off (``Ends/Wednesday, July 9, 2014``, ``完``) and the
# lines the news system prints after it (date, ``Issued at HKT 14:31``, ``香港時間14時31分``, ``NNNN``)
PRESS_RELEASE_END = _deferred(r"^(?:Ends\s*/\s*\w+day\b.*|完)$")
PRESS_RELEASE_TRAILER = _deferred(
    r"^(?:Issued\s+at\s+HKT\s+\d{1,2}:\d{2}|香港時間\d{1,2}時\d{1,2}分|NNNN"
    r"|\d{4}年\d{1,2}月\d{1,2}日\s*[（(]星期[一二三四五六日天][)）])$"
)
# the headline of the Government's release of a Council question and its reply:
# ``LCQ5: Public rental housing``, ``立法會五題：公共租住房屋``
LCQ_TITLE = _deferred(r"^(?:LCQ\s?\d{1,2}|立法會[一二三四五六七八九十]{1,3}題)\s*[:：]\s*\S")
# its first line, naming who asked and who replied, and whether in writing: ``Following is a
# question by the Hon Alice Mak and a written reply by the Secretary for Transport and Housing,
# Professor Anthony Cheung Bing-leung, in the Legislative Council today (July 9):`` /
# ``以下是今日（七月九日）在立法會會議上麥美娟議員的提問和運輸及房屋局局長張炳良的書面答覆：``
LCQ_INTRO = _deferred(
    r"^Following\s+is\s+a\s+question\s+by\s+(?P<asker>.+?)\s+and\s+an?\s+(?P<written>written\s+)?reply\s+by\s+"
    r"(?:the\s+)?(?P<answerer>.+?)(?:,\s+[^,]+)?,?\s+(?:in|at)\s+the\s+Legislative\s+Council\b"
    r"|^以下是.{0,20}?在立法會(?:會議上)?(?P<asker_zh>\S{2,8}?議員)的提問和"
    r"(?P<answerer_zh>\S{2,20}?(?:局長|司長|署長|處長|秘書長|專員|主席))\S{0,6}?的(?P<written_zh>書面)?答覆[:：]"
)
ERROR_PAGE = _deferred(
    r"\b(?:[45]\d\d\s*[-–:]?\s*)?(?:(?:page|file)\s+not\s+found|not\s+found|forbidden|access\s+denied|bad\s+request"
    r"|internal\s+server\s+error|service\s+(?:temporarily\s+)?unavailable|bad\s+gateway|gateway\s+time-?out)\b"
    r"|\b(?:HTTP\s+)?(?:error\s+)?[45]\d\d\b\s*(?:error)?$|找不到(?:網頁|頁面|該頁)|(?:網頁|頁面)(?:不存在|未能找到)|系統錯誤",
    re.IGNORECASE,
)

# text shapes used to judge headings and tables
SENTENCE_END = _deferred(r"[。．.!?！？;；][」』”’\"')）\]］】]*\s*$")
CLAUSE_END = _deferred(r"[,，、:：]\s*$")
CJK_CLAUSE_PUNCT = _deferred(r"[，。；：？！、]")
BULLET = _deferred(
    r"^\s*(?P<glyph>[⚫●•➢▪■◆◇○◦‧・►▶❖✓✔]|[-–](?=\s)|\(?[ivx]{1,4}[.)](?=\s))\s*(?P<text>\S.*)$"
)
NUMBERED_ITEM = _deferred(r"^\s*(?:\d{1,2}|[a-z])[.)．、]\s*\S")

# notes inside answers: internal references (droppable) and follow-ups (always kept)
INTERNAL_REF = _deferred(r"[\[［【]\s*(?:內部參考|内部参考|內部資料|Internal\s+reference)", re.IGNORECASE)
FOLLOW_UP = _deferred(r"[\[［【]\s*(?:如被追問|如被追问|If\s+pressed)", re.IGNORECASE)
BRACKET_CLOSE = _deferred(r"[\]］】]")
# a line drawn across a text page (``------``, ``______``, ``======``): a break, not text
RULE_LINE = _deferred(r"^[-_=*~─━―]{8,}$")
# the date a web page or leaflet was last revised, printed on a line of its own at its end
# (``Last revision date: 27 March 2024``, ``Last updated: May 2025``, ``最後更新日期：2024年3月27日``)
REVISION_STAMP = _deferred(
    r"^(?:(?:last|date\s+of\s+last)\s+(?:revised|revision|updated?|modified|reviewed?)(?:\s+(?:date|on))?|revised\s+on"
    r"|(?:本頁)?最後(?:更新|修訂|修改|覆檢)(?:日期)?|(?:修訂|更新)日期)\s*[:：︰]?\s*(?=[^\n]{0,40}\d)[^\n]{1,40}$",
    re.IGNORECASE,
)
# a leaflet's or page's closing note on where to ask, set as a label: ``Enquiries: 2345 6789``,
# ``查詢：勞工處``, ``查詢熱線︰…`` (not ``For enquiries, please call …``, which an answer may end with)
ENQUIRY_NOTE = _deferred(
    r"^(?:Enquir(?:y|ies)|General\s+enquir(?:y|ies)|查詢(?:熱線|電話)?)\s*[:：︰]\s*\S", re.IGNORECASE
)
# an Administration paper's sign-off: the body that wrote it on a line of its own, then the
# month (``Labour and Welfare Bureau`` / ``May 2025``, ``勞工及福利局`` / ``2025年5月``)
SIGN_OFF_BODY = _deferred(
    r"^(?:[A-Z][A-Za-z&,'’ -]{2,80}\s"
    r"(?:Bureau|Department|Office|Commission|Secretariat|Authority|Branch|Division)"
    r"|[\u4e00-\u9fff]{1,20}(?:局|署|處|辦公室|委員會|秘書處))$"
)
SIGN_OFF_DATE = _deferred(
    r"^(?:(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{4}"
    r"|\d{4}\s*年\s*\d{1,2}\s*月)$"
)
MARKDOWN_TABLE_RULE = _deferred(r"^\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)+\|?\s*$", re.MULTILINE)


# English month names and their printed abbreviations -> 1..12: a paper's date line and a
# table's date cell read months alike
MONTHS: dict[str, int] = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}


# the deferred patterns leave the module's namespace, so that the first ``markers.NAME`` asks
# :func:`__getattr__`, which compiles the pattern and puts it there
_DEFERRED: dict[str, _Source] = {
    name: value for name, value in globals().items() if isinstance(value, _Source)
}
for _name in _DEFERRED:
    del globals()[_name]
del _name


def __getattr__(name: str) -> re.Pattern[str]:
    source = _DEFERRED.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    compiled = re.compile(source.pattern, source.flags)
    globals()[name] = compiled
    return compiled
