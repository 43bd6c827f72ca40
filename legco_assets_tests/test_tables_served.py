"""Tables as data once stored: ``page_tables`` writes them (Parquet and JSON under the
paper's ``tables/``) and shows them with a WARN check; ``legco-assets serve`` answers them at
``/api/tables`` and through the MCP tool ``get_table`` (a real server on 127.0.0.1, the
official SDK's client); hits list the ``table_ids`` their chunk holds; the CLI prints them."""

from __future__ import annotations

import csv
import io
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import dagster as dg
import pytest
from mcp import Client

from legco_assets.core.sources import DocumentIndex
from legco_assets.core.tables.typed import from_parquet
from legco_assets.defs.assets import ALL_ASSETS

from .conftest import store_settings
from .runs import cli, dagster_resources
from .servers import SearchService, search_service

FIXTURES = Path(__file__).parent / "fixtures" / "pdfs"


@pytest.fixture(scope="module")
def service(served_store) -> Iterator[SearchService]:
    with search_service(store_settings(served_store)) as running:
        yield running


def get(service: SearchService, path: str, **params: Any) -> tuple[int, Any, str]:
    url = service.base + path + (("?" + urllib.parse.urlencode(params)) if params else "")
    try:
        with urllib.request.urlopen(url, timeout=60) as reply:
            body = reply.read().decode("utf-8")
            kind = reply.headers.get("Content-Type", "")
            return reply.status, (json.loads(body) if "json" in kind else body), kind
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), ""


# -- page_tables: stored, shown, checked ------------------------------------------------------------
def test_page_tables_stores_each_table_as_parquet_and_json_and_warns_on_an_untyped_column(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    key = DocumentIndex(data / "documents").register(FIXTURES / "paper_l_faq.pdf")
    selection = [
        a for a in ALL_ASSETS if a.key.to_user_string() in ("source_document", "page_text", "page_tables")
    ]
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("documents", [key])
        result = dg.materialize(
            ALL_ASSETS,
            selection=selection,
            partition_key=key,
            instance=instance,
            resources=dagster_resources(data),
        )
    assert result.success
    [materialized] = [
        e.materialization
        for e in result.get_asset_materialization_events()
        if e.asset_key.path == ["page_tables"]
    ]
    meta = materialized.metadata
    assert meta["typed_tables"].value == 10
    assert f"{key}:table:5" in meta["typed_table_list"].value and "currency" in meta["typed_table_list"].value
    assert "Number of homes (integer)" in meta["typed_preview"].value
    [check] = result.get_asset_check_evaluations()
    assert check.check_name == "tables_typed" and not check.passed
    assert check.severity == dg.AssetCheckSeverity.WARN
    assert f"{key}:table:9" in check.metadata["problems"].value  # "$100,000 and 2 years"
    folder = data / "documents" / key / "tables"
    index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    assert [t["id"] for t in index["tables"]] == [f"{key}:table:{n}" for n in range(1, 11)]
    frame = from_parquet((folder / "5.parquet").read_bytes())
    assert list(frame["Monthly rate ($)"]) == [1675, 4390, 2065, 4130, 3815]  # pages 17 and 18 joined
    printed = json.loads((folder / "5.json").read_text(encoding="utf-8"))
    assert printed["pages"] == [17, 18] and printed["rows"][1][1] == "$4,390"


# -- the API --------------------------------------------------------------------------------------
def test_a_papers_tables_and_those_matching_words_are_listed(service: SearchService) -> None:
    status, data, _ = get(service, "/api/tables", document="sample-en-qa")
    assert status == 200 and [t["id"] for t in data["tables"]] == ["sample-en-qa:table:1"]
    assert data["tables"][0]["types"] == ["text", "currency", "date"]
    _, found, _ = get(service, "/api/tables", q="工程費用")
    assert [t["id"] for t in found["tables"]] == ["sample-zh-qa:table:1"]
    _, none, _ = get(service, "/api/tables", q="monthly rate nothing-here")
    assert none["tables"] == []


def test_a_table_is_typed_records_beside_the_printed_text_and_csv(service: SearchService) -> None:
    status, table, _ = get(service, "/api/tables/sample-en-qa:table:1")
    assert status == 200 and table["id"] == "sample-en-qa:table:1"
    first = table["records"][0]
    assert first["Monthly rate ($)"] == 1675 and first["Monthly rate ($) (printed)"] == "$1,675"
    assert first["Effective date"] == "2025-02-01"
    assert table["column_details"][1] == {
        "name": "Monthly rate ($)",
        "type": "currency",
        "unit": "$",
        "header": ["Monthly rate ($)"],
    }
    status, text, kind = get(service, "/api/tables/sample-en-qa:table:1.csv")
    assert status == 200 and kind.startswith("text/csv")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["Category", "Monthly rate ($)", "Effective date"] and rows[1][1] == "$1,675"


@pytest.mark.parametrize(
    "table_id", ["sample-en-qa:table:9", "nope:table:1", "sample-en-qa:tables:1", "sample-en-qa:table:0"]
)
def test_an_unknown_table_is_404_in_one_line(service: SearchService, table_id: str) -> None:
    status, body, _ = get(service, "/api/tables/" + urllib.parse.quote(table_id, safe=":"))
    assert status == 404 and body == {"detail": "no such table"}


def test_a_hit_whose_chunk_holds_a_table_lists_its_id(service: SearchService) -> None:
    _, data, _ = get(service, "/api/search", q="水浸黑點 工程費用", k=10, strategy="question", mode="bm25")
    holding = [h for h in data["hits"] if h["table_ids"]]
    assert holding and {tuple(h["table_ids"]) for h in holding} == {("sample-zh-qa:table:1",)}
    assert all("| 地區 |" in h["text"] for h in holding)
    assert all(not h["table_ids"] for h in data["hits"] if "|---" not in h["text"])


def test_a_token_window_lists_the_tables_it_overlaps(service: SearchService) -> None:
    """A window records the typed tables it overlaps (one that starts in a table's rows has
    no header line in its text): the hit lists them, and the header rides in its metadata."""
    _, data, _ = get(service, "/api/search", q="水浸黑點 工程費用", k=10, strategy="token", mode="bm25")
    named = [h for h in data["hits"] if "sample-zh-qa:table:1" in h["table_ids"]]
    assert named, [h["table_ids"] for h in data["hits"]]
    _, chunk, _ = get(service, "/api/chunks/" + urllib.parse.quote(named[0]["id"], safe=":"))
    assert "sample-zh-qa:table:1" in chunk["metadata"]["table_ids"]
    assert "| 地區 |" in chunk["metadata"]["table_header"]


# -- MCP --------------------------------------------------------------------------------------------
async def _tool(target: str) -> dict[str, Any]:
    async with Client(target) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        found = await client.call_tool("get_table", {"id": "sample-zh-qa:table:1"})
        missing = await client.call_tool("get_table", {"id": "sample-zh-qa:table:7"})
        return {"tools": tools, "found": found, "missing": missing}


def test_get_table_over_mcp(service: SearchService) -> None:
    seen = anyio.run(_tool, service.base + "/mcp")
    assert "get_table" in seen["tools"]
    found = seen["found"]
    assert not found.is_error
    table = found.structured_content or json.loads(found.content[0].text)
    assert table["id"] == "sample-zh-qa:table:1" and table["types"][-1] == "currency"
    assert table["records"][0]["工程費用（千元）"] == 38450
    assert table["records"][0]["工程費用（千元） (printed)"] == "38 450"
    assert seen["missing"].is_error and "no such table" in seen["missing"].content[0].text


# -- the CLI ----------------------------------------------------------------------------------------
def test_the_cli_lists_shows_and_prints_csv(served_store: Path) -> None:
    listed = cli("tables", "sample-en-qa", home=served_store)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("sample-en-qa:table:1  p.4  5×3")
    assert "currency ($)" in listed.stdout
    shown = cli("tables", "sample-en-qa", "1", home=served_store)
    assert "| Old Age Allowance | 1675 | 2025-02-01 |" in shown.stdout
    as_csv = cli("tables", "sample-en-qa", "--csv", home=served_store)
    assert as_csv.stdout.splitlines()[:2] == [
        "# sample-en-qa:table:1",
        "Category,Monthly rate ($),Effective date",
    ]
    missing = cli("tables", "no-such-paper", home=served_store)
    assert missing.returncode != 0 and len(missing.stderr.strip().splitlines()) == 1
