"""Expected failures reach the Dagster UI as their one-line reason, where people look.

Why: a bad file (not a PDF, encrypted, an HTML error page…) or a bad setting is the user's
to fix, not a bug: the run page should say what is wrong, with the file in the metadata,
and not offer a stack trace or retry a run that will fail the same way. The asset's
partition page is where a person looks first, and Dagster 1.13 writes there only "Run …
failed, and did not materialize this asset"; so the reason is also recorded on the failed
asset's partition as an observation (its description and ``failure`` metadata), which the
partition page lists among its events. Anything else (a bug) still fails with its traceback.
"""

import functools
from collections.abc import Callable
from typing import Any

import dagster as dg

from legco_assets.core.errors import ConfigError, DocumentError
from legco_assets.core.storage import store_error

from .names import FAILURE_TAG

FAILURE = "failure"  # the observation's metadata entry: the one-line reason the run failed


def reasons_as_failures(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a stage's :class:`DocumentError`, :class:`ConfigError`, missing upstream
    artifact or object-store outage (``core.storage.store_error``) into ``dg.Failure``
    (description = the reason, no retries), after recording the reason on the asset's
    partition (:func:`record_on_partition`). Put it under ``@dg.asset``: the wrapper keeps
    the function's signature, so Dagster sees the same context, config and resources."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except DocumentError as exc:
            reason, file = exc.reason, exc.path
        except (ConfigError, FileNotFoundError) as exc:
            reason, file = str(exc).strip().splitlines()[0], None
        except Exception as exc:  # an object store's outage is expected; anything else is a bug
            reason, file = store_error(exc), None
            if reason is None:
                raise
        record_on_partition(_context(args, kwargs), reason, file)
        raise failure(reason, file=file) from None

    return wrapper


def _context(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dg.AssetExecutionContext | None:
    found = kwargs.get("context", args[0] if args else None)
    return found if isinstance(found, dg.AssetExecutionContext) else None


def record_on_partition(context: dg.AssetExecutionContext | None, reason: str, file: str | None) -> None:
    """An observation of each asset the step was to materialise, on the run's partition, with
    the reason as its description and metadata: the partition page shows it beside "did not
    materialize" (under "View all historical events" and in the Events tab), and
    ``fetch_observations`` reads it back. The run log gets the reason as an ERROR line of its
    own too, and the run the tag ``legco/failure`` (the Runs list shows a run's tags)."""
    if context is None:
        return
    context.log.error(reason)  # the run log's line for it, above the step's failure and its stack
    context.instance.add_run_tags(context.run_id, {FAILURE_TAG: reason})  # the Runs list shows it
    if not context.has_partition_key:
        return
    metadata: dict[str, Any] = {FAILURE: reason, "run": dg.MetadataValue.text(context.run_id)}
    if file:
        metadata["file"] = dg.MetadataValue.path(file)
    for key in context.selected_asset_keys:
        context.log_event(
            dg.AssetObservation(
                asset_key=key,
                partition=context.partition_key,
                description=f"failed: {reason}",
                metadata=metadata,
            )
        )


def failure(reason: str, file: str | None = None) -> dg.Failure:
    metadata: dict[str, Any] = {"reason": reason}
    if file:
        metadata["file"] = dg.MetadataValue.path(file)
    return dg.Failure(description=reason, metadata=metadata, allow_retries=False)
