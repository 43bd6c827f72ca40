"""What the assets of every stage share: the run's strategy tag, a stage's data version,
check results and Markdown tables for the UI."""

import functools
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import dagster as dg

from legco_assets.core.artifacts import Artifacts
from legco_assets.core.markdown_tables import to_markdown
from legco_assets.core.quality import ABOUT, BLOCKING
from legco_assets.core.records import PATH_SEPARATOR
from legco_assets.core.settings import Settings, Strategy

from ..failures import reasons_as_failures
from ..lineage import digest
from ..names import STRATEGY_TAG
from ..partitions import documents_partitions
from ..results import check_results as check_results  # the stages import them from here
from ..results import not_run as not_run
from ..results import not_run_metadata as not_run_metadata

COUNCIL_COLUMNS = ["kind", "asker", "parent"]  # a Hansard's questions: main | supplementary | written


def tag_strategy(context: dg.AssetExecutionContext, strategy: Strategy) -> None:
    """Tag the run with the strategy its config chunks with. The CLI and the sensors tag
    their runs when they launch them, and so do the per-strategy jobs; a run launched from
    an asset's page (Materialize, or its launchpad) has only its run config, so the asset
    that reads the config tags its run: every run that chunks says how, in the Runs list."""
    if context.run.tags.get(STRATEGY_TAG) != strategy.value:
        context.instance.add_run_tags(context.run_id, {STRATEGY_TAG: strategy.value})


def paper_asset(
    group: str, kinds: set[str], code_version: str, checks_may_not_run: bool = False, **spec: Any
) -> Callable[[Callable[..., Any]], dg.AssetsDefinition]:
    """``@dg.asset`` for one stage of one paper: every asset of the graph is partitioned by
    document, sits in its stage's group with a code version (the UI shows what a code change
    made stale), and shows the core's expected failures as their one-line reason
    (:func:`reasons_as_failures`). ``spec`` is the rest of ``dg.asset``'s arguments.

    ``checks_may_not_run``: some of its checks cannot run for some papers (no records, no gold
    questions, no counterpart). Dagster 1.13's ``@asset`` must yield a result for every check
    spec, so such an asset is a one-asset ``@multi_asset`` with ``can_subset=True`` (its check
    outputs optional) whose body yields its ``MaterializeResult`` leaving those checks out:
    Dagster then records each of them as planned and, the run having succeeded, skipped for
    the partition (not executed in the UI), neither passed nor failed."""

    def decorate(fn: Callable[..., Any]) -> dg.AssetsDefinition:
        body = reasons_as_failures(fn)
        if not checks_may_not_run:
            return dg.asset(
                partitions_def=documents_partitions,
                group_name=group,
                kinds=kinds,
                code_version=code_version,
                **spec,
            )(body)
        check_specs = spec.pop("check_specs")

        @functools.wraps(fn)
        def yielding(context: dg.AssetExecutionContext, *args: Any, **kwargs: Any) -> Iterator[Any]:
            # yielded, not returned: a returned result must carry every check
            yield from _selected(context, body(context, *args, **kwargs))

        return dg.multi_asset(
            name=fn.__name__,
            specs=[
                dg.AssetSpec(fn.__name__, group_name=group, kinds=kinds, code_version=code_version, **spec)
            ],
            check_specs=check_specs,
            partitions_def=documents_partitions,
            can_subset=True,
        )(yielding)

    return decorate


def _selected(context: dg.AssetExecutionContext, result: dg.MaterializeResult) -> Iterator[Any]:
    """What a subsettable asset's run selected of ``result``: the checks selected (a check
    run alone from its page gets its result, and no materialisation it did not ask for)."""
    key = context.asset_key
    checks = [
        c
        for c in result.check_results
        if dg.AssetCheckKey(key, c.check_name) in context.selected_asset_check_keys
    ]
    if key not in context.selected_asset_keys:
        yield from (dg.AssetCheckResult(asset_key=key, **_fields(c)) for c in checks)
        return
    yield dg.MaterializeResult(
        metadata=result.metadata, check_results=checks, data_version=result.data_version, tags=result.tags
    )


def _fields(check: dg.AssetCheckResult) -> dict[str, Any]:
    return {
        "check_name": check.check_name,
        "passed": check.passed,
        "severity": check.severity,
        "description": check.description,
        "metadata": check.metadata,
    }


def check_spec(asset: str, name: str, description: str, blocking: bool = False) -> dg.AssetCheckSpec:
    """A check of one paper: partitioned as its asset is, so each result belongs to its
    paper in the UI (and a later pass of another paper never hides this one's failure).
    ``partitions_def`` on a check is a preview in Dagster 1.13; its warning says nothing a
    person running the CLI could act on, so it is not printed."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.PreviewWarning)
        return dg.AssetCheckSpec(
            name, asset=asset, description=description, blocking=blocking, partitions_def=documents_partitions
        )


def paper_check_specs(asset: str, names: list[str]) -> list[dg.AssetCheckSpec]:
    """The specs of the core's checks (``quality.ABOUT`` says what each looks at; only the
    integrity checks of ``quality.BLOCKING`` block)."""
    return [check_spec(asset, name, ABOUT[name], blocking=name in BLOCKING) for name in names]


_CUT = "…" + PATH_SEPARATOR  # where short_path left out the outer headings
_ELIDED = PATH_SEPARATOR + "…" + PATH_SEPARATOR  # where short_path left out middle headings
_MIN_OUTER = 10  # fewer characters of the outermost heading say nothing: show the innermost alone


def short_path(path: str, limit: int = 60) -> str:
    """A section path of at most ``limit`` characters for a preview column, elided in the
    middle: the outermost heading (the chapter: where in the paper) and the innermost (what
    the chunk is about) are kept, the headings between them dropped from the outside in
    (`` > … > ``), and an outermost heading too long for the rest cut after a word
    (``Chapter 1: Application … > Continuous Contract of Employment``). When even that leaves
    too little of the outermost, the innermost headings alone, cut at a `` > `` boundary with
    a leading ``…``; an innermost heading longer than the limit keeps its end from a word
    boundary (a CJK heading, without spaces, from any character)."""
    if len(path) <= limit:
        return path
    parts = path.split(PATH_SEPARATOR)
    if len(parts) > 1:
        outer, middle, inner = parts[0], parts[1:-1], parts[-1]
        kept: list[str] = []
        while len(kept) < len(middle):
            trial = [middle[-len(kept) - 1], *kept]
            if len(_joined(outer, trial, inner, len(middle) - len(trial))) > limit:
                break
            kept = trial
        shown = _joined(outer, kept, inner, len(middle) - len(kept))
        if len(shown) <= limit:
            return shown
        rest = (_ELIDED if middle else PATH_SEPARATOR) + inner
        room = limit - len(rest) - 2  # " …" after the cut
        if room >= _MIN_OUTER:
            return _word_prefix(outer, room) + " …" + rest
    return _innermost(parts, limit)


def _joined(outer: str, kept: list[str], inner: str, dropped: int) -> str:
    """The outermost heading, ``…`` for ``dropped`` middle headings, the ``kept`` ones, the innermost."""
    return PATH_SEPARATOR.join([outer, *(["…"] if dropped else []), *kept, inner])


def _word_prefix(text: str, room: int) -> str:
    """The start of ``text`` in ``room`` characters, ending at a word's end when it has spaces."""
    head = text[:room]
    if text[room : room + 1] not in ("", " ") and " " in head:
        head = head.rsplit(" ", 1)[0]
    return head.rstrip()


def _innermost(parts: list[str], limit: int) -> str:
    """The innermost headings that fit after a leading ``… > ``."""
    kept = parts[-1]
    for part in reversed(parts[:-1]):
        if len(part) + len(PATH_SEPARATOR) + len(kept) + len(_CUT) > limit:
            break
        kept = part + PATH_SEPARATOR + kept
    if kept != parts[-1] or len(kept) + len(_CUT) <= limit:
        return _CUT + kept
    if len(kept) < limit:  # the innermost heading fits, but not with " > " before it
        return "…" + kept
    tail = kept[-(limit - 1) :]
    if kept[-len(tail) - 1] != " " and " " in tail:  # the cut fell inside a word
        tail = tail.split(" ", 1)[1]
    return "…" + tail


def shown_of(shown: int, total: int, what: str, where_all: str) -> str:
    """The line above a preview that lists a subset: ``first 60 of 150 chunks (legco-assets
    chunks DOC for all)``; empty when it lists everything."""
    return f"first {shown} of {total} {what} ({where_all})\n\n" if total > shown else ""


def md_table(header: list[str], rows: list[list[Any]]) -> str:
    return to_markdown(header, [[str(c) for c in row] for row in rows])


def written_version(settings: Settings, document_id: str, *names: str) -> dg.DataVersion:
    """The data version of a stage: a hash of the files it wrote for this paper (lineage.py)."""
    art = Artifacts(settings, document_id)
    return digest(art.path(name) for name in names)
