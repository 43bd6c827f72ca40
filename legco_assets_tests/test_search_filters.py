"""Search filters (date range, kinds, speaker) applied inside ranking, on generated papers
chunked by the pipeline: the core retriever, ``/api/search`` on a real server, the MCP
``search`` tool through the official SDK client, and ``legco-assets query``."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from legco_assets.core.pipeline import chunk_paper
from legco_assets.core.search import (
    BadFilter,
    Mode,
    Retriever,
    SearchFilters,
    newest_first,
    open_collection,
    replace_document,
)
from legco_assets.core.settings import Settings, Strategy
from legco_assets.core.sources import slug

from .servers import SearchService, search_service

# (sitting date as printed, ISO date, the member asking about the minimum wage)
SITTINGS = [
    ("2013年1月9日", "2013-01-09", "林健鋒議員"),
    ("2013年2月21日", "2013-02-21", "李卓人議員"),
    ("2013年3月20日", "2013-03-20", "林健鋒議員"),
    ("2013年5月15日", "2013-05-15", "李卓人議員"),
    ("2012年11月21日", "2012-11-21", "林健鋒議員"),
]


# the sitting whose record also holds a debate: a member's long speech on a motion
DEBATE_SITTING = "2013-05-15"
DEBATER = "梁家傑議員"


def debate() -> str:
    """A members' motion as a Council record prints it: the mover's speech (longer than one
    chunk, so some chunks hold none of his labels), the President ending it, the Secretary's
    reply."""
    points = "".join(
        f"第{n}，港鐵票價調整機制須計及乘客的負擔能力，{'並' if n % 2 else '亦'}應把車站商場的租金收入撥回乘客。"
        for n in range(1, 61)
    )
    return (
        "議員議案\n\n檢討港鐵票價調整機制\n\n"
        f"{DEBATER}：主席，我動議通過印載於議程內的議案。{points}\n\n"
        f"主席：{DEBATER}，你的發言時限已到。\n\n"
        "運輸及房屋局局長：主席，政府會在今年內完成檢討票價調整機制，並會考慮議員的意見。\n\n"
    )


def hansard(printed: str, member: str, n: int, debated: bool = False) -> str:
    """A Council sitting's record as LegCo prints it: title block with the sitting date,
    written questions with the Secretary's replies, (``debated``) a motion's debate; the next
    meeting's date at the end."""
    return (
        f"立法會 ─ {printed}\n\n會議過程正式紀錄\n\n{printed}星期三\n\n上午11時正會議開始\n\n"
        "議員質詢的書面答覆\n\n最低工資的檢討\n\n"
        f"1. {member}：主席，法定最低工資實施至今已{n}年，最低工資委員會正檢討最低工資水平。"
        "就此，政府可否告知本會：(一) 最低工資對低薪僱員收入的影響為何；及(二) 最低工資的檢討何時完成？\n\n"
        f"勞工及福利局局長：主席，就{member}的提問，現答覆如下：(一) 最低工資實施後，低薪僱員的"
        f"工資上升了百分之{n + 5}。(二) 最低工資委員會會在今年內完成檢討最低工資水平。\n\n"
        "公共圖書館的開放時間\n\n"
        "2. 何秀蘭議員：主席，政府可否告知本會，公共圖書館會否延長開放時間？\n\n"
        "民政事務局局長：主席，康樂及文化事務署會在明年起延長六間主要圖書館的開放時間。\n\n"
        + (debate() if debated else "")
        + "下次會議\n\n主席：我現在宣布休會。本會在2025年5月21日星期三上午11時正續會。\n"
    )


GUIDE = (
    "最低工資條例簡明指南\n\n勞工處\n\n2013年3月版\n\n第一章 最低工資\n\n"
    "法定最低工資適用於所有僱員，僱主須向僱員支付不少於最低工資的工資。最低工資的水平每兩年檢討一次。\n"
)
FAQ = (
    "常見問題\n\n1 最低工資是甚麼？\n\n最低工資是僱主須向僱員支付的最低時薪，由法例訂明，最低工資委員會負責檢討。\n\n"
    "2 誰可獲最低工資保障？\n\n除留宿家庭傭工等外，所有僱員均受最低工資保障。\n"
)


def papers(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for n, (printed, iso, member) in enumerate(SITTINGS, start=1):
        path = folder / f"hansard-{iso}-zh.txt"
        path.write_text(hansard(printed, member, n, debated=iso == DEBATE_SITTING), encoding="utf-8")
        made.append(path)
    for name, text in (("min-wage-guide-zh.txt", GUIDE), ("min-wage-faq-zh.txt", FAQ)):
        (folder / name).write_text(text, encoding="utf-8")
        made.append(folder / name)
    return made


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Any]:
    """The generated papers chunked by the pipeline (both strategies) and stored in Chroma."""
    home = tmp_path_factory.mktemp("filters")
    settings = Settings(data_dir=home / "data", inbox=home / "data" / "inbox")
    collection = open_collection(settings)
    for path in papers(home / "papers"):
        for strategy in Strategy:
            records = chunk_paper(path, strategy, settings, use_llm=False, check=False).records
            replace_document(collection, records, slug(path), strategy, records[0].metadata.content_sha256)
    return settings, collection


def test_every_chunk_carries_its_papers_date_and_kind(store) -> None:
    settings, collection = store
    scope = Retriever.open(settings, collection=collection, translate=False, rerank=False).scope("question")
    by_paper = {(r.document_id, r.metadata.date, r.metadata.kind) for r in scope.records}
    assert ("hansard-2013-01-09-zh", "2013-01-09", "hansard") in by_paper
    assert ("min-wage-guide-zh", "2013-03", "guide") in by_paper
    assert ("min-wage-faq-zh", None, "faq") in by_paper
    assert len({d for d, _, _ in by_paper}) == len(by_paper)  # one date and kind per paper


@pytest.mark.parametrize("mode", [Mode.hybrid, Mode.bm25, Mode.vector])
def test_filters_apply_inside_ranking(store, mode: Mode) -> None:
    """``k`` hits when ``k`` pass: the filters choose among every chunk, not among the
    unfiltered top ``k``."""
    settings, collection = store
    retriever = Retriever.open(settings, collection=collection, translate=False, rerank=False)
    filters = SearchFilters.of(date_from="2013-01-01", date_to="2013-03-31", kinds="hansard")
    hits = retriever.search("最低工資", 6, Strategy.question, mode, filters=filters)
    # every ranker of the mode picks among the passing chunks: k of them, where BM25 (which
    # gives only chunks that hold the words) has the three exchanges on the minimum wage in range
    assert len(hits) == (3 if mode is Mode.bm25 else 6)
    in_range = {"hansard-2013-01-09-zh", "hansard-2013-02-21-zh", "hansard-2013-03-20-zh"}
    assert {h.record.document_id for h in hits if "最低工資" in h.text} == in_range
    assert all(h.metadata.kind == "hansard" and "2013-01-09" <= h.metadata.date <= "2013-03-31" for h in hits)
    # a month-precise paper overlaps a range that covers part of its month
    guide = retriever.search(
        "最低工資", 3, Strategy.question, mode, filters=SearchFilters.of(date_from="2013-03-15")
    )
    assert "min-wage-guide-zh" in {h.record.document_id for h in guide}
    # an undated paper passes no date filter
    dated = retriever.search(
        "最低工資", 20, Strategy.question, mode, filters=SearchFilters.of(date_to="2099")
    )
    assert dated and "min-wage-faq-zh" not in {h.record.document_id for h in dated}


def test_without_filters_the_ranking_does_not_move(store) -> None:
    settings, collection = store
    retriever = Retriever.open(settings, collection=collection, translate=False, rerank=False)
    plain = retriever.search("最低工資的檢討何時完成", 8, Strategy.question)
    empty = retriever.search("最低工資的檢討何時完成", 8, Strategy.question, filters=SearchFilters())
    assert [(h.id, h.score) for h in plain] == [(h.id, h.score) for h in empty]


def test_speaker_finds_one_members_exchanges(store) -> None:
    settings, collection = store
    retriever = Retriever.open(settings, collection=collection, translate=False, rerank=False)
    for asked in ("林健鋒", "林健鋒議員", "林健鋒議員, G.B.S., J.P."):
        hits = retriever.search("最低工資", 10, Strategy.question, filters=SearchFilters.of(speaker=asked))
        assert {h.metadata.asker_name for h in hits} == {"林健鋒"}
        assert {h.metadata.date for h in hits} == {"2013-01-09", "2013-03-20", "2012-11-21"}
    answered = retriever.search(
        "最低工資", 10, Strategy.question, filters=SearchFilters.of(speaker="勞工及福利局局長")
    )
    assert len(answered) == 5 and {h.metadata.answerer for h in answered} == {"勞工及福利局局長"}


@pytest.mark.parametrize("strategy", list(Strategy))
def test_every_chunk_names_who_speaks_in_it(store, strategy: Strategy) -> None:
    """A debate's chunks name the member speaking, mid-speech too; the President's lines
    name nobody; a paper without speeches names nobody."""
    settings, collection = store
    scope = Retriever.open(settings, collection=collection, translate=False, rerank=False).scope(strategy)
    speech = "乘客的負擔能力"  # words of his speech only
    debate = [
        r for r in scope.records if r.document_id == f"hansard-{DEBATE_SITTING}-zh" and speech in r.text
    ]
    assert len(debate) >= 3
    for record in debate:
        assert DEBATER in record.metadata.speakers  # every chunk of his speech, labelled or not
    assert any(f"{DEBATER}：" not in r.text for r in debate)  # a chunk that starts mid-speech
    reply = next(r for r in debate if "運輸及房屋局局長：" in r.text)
    assert reply.metadata.speakers[-1] == "運輸及房屋局局長"
    assert not any("主席" in name for r in scope.records for name in r.metadata.speakers or [])
    assert all(r.metadata.speakers is None for r in scope.records if r.document_id.startswith("min-wage"))
    if strategy is Strategy.question:  # an exchange names its asker and answerer
        exchange = next(r for r in scope.records if r.metadata.question_id == "2")
        assert exchange.metadata.speakers == ["何秀蘭議員", "民政事務局局長"]


@pytest.mark.parametrize("strategy", list(Strategy))
def test_speaker_finds_a_members_debate_speech(store, strategy: Strategy) -> None:
    settings, collection = store
    retriever = Retriever.open(settings, collection=collection, translate=False, rerank=False)
    for asked in ("梁家傑", "Hon 梁家傑議員"):
        hits = retriever.search("港鐵票價", 10, strategy, filters=SearchFilters.of(speaker=asked))
        assert hits and all(DEBATER in h.metadata.speakers for h in hits)
        assert {h.record.document_id for h in hits} == {f"hansard-{DEBATE_SITTING}-zh"}
        assert any(f"{DEBATER}：" not in h.text for h in hits)  # found mid-speech, by who speaks
    nobody = retriever.search("港鐵票價", 10, strategy, filters=SearchFilters.of(speaker="陳大文議員"))
    assert nobody == []


def test_sort_by_date_lists_newest_first(store) -> None:
    settings, collection = store
    retriever = Retriever.open(settings, collection=collection, translate=False, rerank=False)
    hits = newest_first(
        retriever.search("最低工資", 8, Strategy.question, filters=SearchFilters.of(kinds="hansard"))
    )
    dates = [h.metadata.date for h in hits]
    assert dates == sorted(dates, reverse=True) and dates[0] == "2013-05-15"


@pytest.mark.parametrize(
    "values, message",
    [
        ({"date_from": "2013-13"}, "date_from must be YYYY, YYYY-MM or YYYY-MM-DD"),
        ({"date_to": "last week"}, "date_to must be"),
        ({"date_from": "2013-04", "date_to": "2013-03-31"}, "is after date_to"),
        ({"kinds": "hansard,minutes"}, "unknown kind 'minutes'"),
    ],
)
def test_bad_filters_are_named(values: dict[str, str], message: str) -> None:
    with pytest.raises(BadFilter, match=message.replace("(", r"\(").replace(")", r"\)")):
        SearchFilters.of(**values)


# -- the service -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def service(store) -> Iterator[SearchService]:
    """The server as it starts by default (token windows unless a request names a strategy)."""
    settings, _ = store
    assert settings.default_strategy is Strategy.token
    with search_service(settings) as running:
        yield running


def get(service: SearchService, path: str, **params: Any) -> tuple[int, Any]:
    url = service.base + path + "?" + urllib.parse.urlencode(params, doseq=True)
    try:
        with urllib.request.urlopen(url, timeout=60) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_api_search_filters(service: SearchService) -> None:
    params = {"q": "最低工資", "date_from": "2013-01-01", "date_to": "2013-03-31", "kind": "hansard"}
    status, data = get(service, "/api/search", k=6, strategy="question", **params)
    assert status == 200 and len(data["hits"]) == 6
    assert all(h["kind"] == "hansard" and "2013-01-01" <= h["date"] <= "2013-03-31" for h in data["hits"])
    # a speaker asked for without a strategy on a server whose default is token searches the
    # question strategy, where an exchange is one chunk
    _, member = get(service, "/api/search", q="最低工資", k=10, speaker="李卓人議員")
    assert member["strategy"] == "question" and not member["no_close_match"]
    assert member["hits"] and {h["asker"] for h in member["hits"]} == {"李卓人議員"}
    # token windows name their speakers too: a debate speech found by who makes it
    status, token = get(service, "/api/search", q="港鐵票價", k=10, strategy="token", speaker="梁家傑")
    assert status == 200 and token["strategy"] == "token" and token["hits"]
    assert all(DEBATER in h["speakers"] for h in token["hits"])
    _, newest = get(service, "/api/search", q="最低工資", k=5, kind=["hansard", "guide"], sort="date")
    dates = [h["date"] for h in newest["hits"]]
    assert dates == sorted(dates, reverse=True)


@pytest.mark.parametrize(
    "params, line",
    [
        ({"date_from": "2013-02-30"}, "date_from must be YYYY, YYYY-MM or YYYY-MM-DD, not '2013-02-30'"),
        ({"date_from": "2013-04", "date_to": "2013-03"}, "date_from 2013-04 is after date_to 2013-03"),
        ({"kind": "minutes"}, "unknown kind 'minutes'"),
    ],
)
def test_api_refuses_bad_filters_with_one_line(
    service: SearchService, params: dict[str, str], line: str
) -> None:
    status, data = get(service, "/api/search", q="最低工資", **params)
    assert status == 400 and data["detail"].startswith(line) and "\n" not in data["detail"]


# -- the MCP tools, through the official SDK client --------------------------------------------
async def mcp_session(url: str) -> dict[str, Any]:
    from mcp import Client

    async with Client(url) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        arguments = {"query": "最低工資", "k": 6, "strategy": "question", "kind": ["hansard"]}
        arguments |= {"date_from": "2013-01-01", "date_to": "2013-03-31"}
        found = await client.call_tool("search", arguments)
        member = await client.call_tool("search", {"query": "最低工資", "k": 10, "speaker": "李卓人"})
        listed = await client.call_tool("list_documents", {"kind": ["guide", "faq"]})
        backwards = await client.call_tool("search", {"query": "x", "date_from": "2014", "date_to": "2013"})
        unknown = await client.call_tool("search", {"query": "x", "kind": ["minutes"]})
        windows = await client.call_tool(
            "search", {"query": "港鐵票價", "strategy": "token", "speaker": "梁家傑"}
        )
        return {
            "windows": windows,
            "tools": tools,
            "found": found,
            "member": member,
            "listed": listed,
            "backwards": backwards,
            "unknown": unknown,
        }


def content(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    return result.structured_content or json.loads(result.content[0].text)


def test_mcp_search_tool_takes_the_filters(service: SearchService) -> None:
    import anyio

    seen = anyio.run(mcp_session, service.base + "/mcp")
    search_tool = seen["tools"]["search"]
    schema = search_tool.input_schema["properties"]
    assert {"date_from", "date_to", "kind", "speaker", "sort"} <= set(schema)
    assert "pattern" in json.dumps(schema["date_from"]) and "hansard" in json.dumps(search_tool.input_schema)
    for tool in seen["tools"].values():
        assert tool.annotations.read_only_hint is True and tool.annotations.idempotent_hint is True
    hits = content(seen["found"])["hits"]
    assert len(hits) == 6 and all(
        h["kind"] == "hansard" and "2013-01" <= h["date"] <= "2013-03-31" for h in hits
    )
    assert {h["asker"] for h in content(seen["member"])["hits"]} == {"李卓人議員"}
    assert content(seen["member"])["strategy"] == "question"
    windows = content(seen["windows"])
    assert windows["strategy"] == "token" and windows["hits"]
    assert all(DEBATER in h["speakers"] for h in windows["hits"])
    listed = content(seen["listed"])["documents"]
    assert {(d["document_id"], d["kind"], d.get("date")) for d in listed} == {
        ("min-wage-guide-zh", "guide", "2013-03"),
        ("min-wage-faq-zh", "faq", None),
    }
    assert seen["backwards"].is_error and "is after date_to" in seen["backwards"].content[0].text
    assert seen["unknown"].is_error


def test_api_documents_show_and_filter_by_date_and_kind(service: SearchService) -> None:
    status, data = get(service, "/api/documents", date_from="2013-02", date_to="2013-03")
    shown = {(d["document_id"], d["date"], d["kind"]) for d in data["documents"]}
    assert status == 200 and shown == {
        ("hansard-2013-02-21-zh", "2013-02-21", "hansard"),
        ("hansard-2013-03-20-zh", "2013-03-20", "hansard"),
        ("min-wage-guide-zh", "2013-03", "guide"),
    }
    status, data = get(service, "/api/documents", kind="speech")
    assert status == 200 and data["documents"] == []
    status, data = get(service, "/api/documents", date_to="03/2013")
    assert status == 400 and "date_to must be" in data["detail"]


def test_the_search_page_filters_and_shows_the_date(service: SearchService) -> None:
    url = (
        service.base + "/?" + urllib.parse.urlencode({"q": "最低工資", "kind": "guide", "date_from": "2013"})
    )
    with urllib.request.urlopen(url, timeout=60) as reply:
        page = reply.read().decode()
    assert "2013-03 · guide" in page and "hansard-2013" not in page
    assert 'name="date_from"' in page and 'value="2013"' in page
    bad = service.base + "/?" + urllib.parse.urlencode({"q": "最低工資", "date_from": "2013-99"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(bad, timeout=60)
    assert refused.value.code == 400


def _page(service: SearchService, **params: str) -> str:
    with urllib.request.urlopen(service.base + "/?" + urllib.parse.urlencode(params), timeout=60) as reply:
        return reply.read().decode()


@pytest.mark.parametrize("strategy", list(Strategy))
def test_the_search_page_finds_who_spoke_and_shows_the_speakers(service: SearchService, strategy) -> None:
    page = _page(service, q="港鐵票價", strategy=strategy.value, speaker="梁家傑")
    assert 'name="speaker"' in page and 'value="梁家傑"' in page
    shown = re.findall(r'<div class="speakers">speaking: ([^<]*)</div>', page)
    assert shown and len(shown) == page.count('class="hit"'), shown
    assert all(DEBATER in names.split(" · ") for names in shown), shown
    nobody = _page(service, q="港鐵票價", strategy=strategy.value, speaker="陳大文議員")
    assert "No passage matches" in nobody and 'class="hit"' not in nobody


# -- legco-assets query / documents ------------------------------------------------------------
def test_cli_query_filters_and_documents(store, monkeypatch: pytest.MonkeyPatch) -> None:
    from .runs import cli_in_process, error_lines

    settings, _ = store
    monkeypatch.setenv("LEGCO_DATA_DIR", str(settings.data_dir))
    for name in ("LLM_BASE_URL", "LLM_MODEL_NAME", "CHROMA_HOST", "EMBEDDING_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    args = ["query", "最低工資", "--strategy", "question", "-k", "6", "--json"]
    code, out, _ = cli_in_process(
        *args, "--kind", "hansard", "--date-from", "2013-01", "--date-to", "2013-03"
    )
    hits = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(hits) == 6
    assert all("2013-01-01" <= h["metadata"]["date"] <= "2013-03-31" for h in hits)
    code, out, _ = cli_in_process(*args, "--speaker", "Hon 林健鋒", "--sort", "date")
    dates = [json.loads(line)["metadata"]["date"] for line in out.splitlines()]
    assert code == 0 and dates == sorted(dates, reverse=True) and dates[0] == "2013-03-20"
    code, out, _ = cli_in_process("query", "最低工資", "-k", "3", "--json", "--speaker", "林健鋒")
    found = [json.loads(line)["metadata"] for line in out.splitlines()]
    assert code == 0 and {(m["strategy_type"], m["asker_name"]) for m in found} == {("question", "林健鋒")}
    code, out, _ = cli_in_process("query", "港鐵票價", "--strategy", "token", "--json", "--speaker", "梁家傑")
    windows = [json.loads(line)["metadata"] for line in out.splitlines()]
    assert code == 0 and windows and all(DEBATER in m["speakers"] for m in windows)
    code, _, err = cli_in_process(*args, "--date-from", "2013-13")
    assert code == 1 and error_lines(err) == [
        "legco-assets: error: date_from must be YYYY, YYYY-MM or YYYY-MM-DD, not '2013-13'"
    ]
    code, out, _ = cli_in_process("documents")
    line = next(ln for ln in out.splitlines() if ln.startswith("min-wage-guide-zh") and " question " in ln)
    assert code == 0 and "2013-03" in line and "guide" in line


# -- the shared real corpus, where present -----------------------------------------------------
REAL_PAPERS = ["legco/session1213/12-13-cm0221-translate-c.txt", "legco/agenda_20140430-c.html"]


def test_real_papers_filtered_inside_ranking(tmp_path: Path) -> None:
    """A real Hansard (sitting of 21 February 2013) and a real agenda (30 April 2014): the
    Hansard's chunks answer a date range and ``kind=hansard`` with as many hits as asked, the
    agenda's answer ``kind=agenda``; none leaks through the other's filter."""
    from .conftest import CORPUS

    present = [CORPUS / name for name in REAL_PAPERS if (CORPUS / name).exists()]
    settings = Settings(data_dir=tmp_path / "data", inbox=tmp_path / "data" / "inbox")
    collection = open_collection(settings)
    for path in present:
        records = chunk_paper(path, Strategy.question, settings, use_llm=False, check=False).records
        replace_document(
            collection, records, slug(path), Strategy.question, records[0].metadata.content_sha256
        )
    retriever = Retriever.open(settings, collection=collection, translate=False, rerank=False)
    if len(present) < 2:
        assert len(present) == 0 or retriever.scope(Strategy.question).records
        return
    hansard = SearchFilters.of(date_from="2013-01-01", date_to="2013-03-31", kinds="hansard")
    hits = retriever.search("最低工資", 10, Strategy.question, filters=hansard)
    assert len(hits) == 10 and {(h.record.document_id, h.metadata.date) for h in hits} == {
        ("12-13-cm0221-translate-c", "2013-02-21")
    }
    agenda = retriever.search("最低工資", 5, Strategy.question, filters=SearchFilters.of(kinds=["agenda"]))
    assert len(agenda) == 5 and {h.metadata.date for h in agenda} == {"2014-04-30"}
    assert (
        retriever.search("最低工資", 5, Strategy.question, filters=SearchFilters.of(date_from="2015")) == []
    )
