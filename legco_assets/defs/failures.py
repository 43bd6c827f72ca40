"""Expected failures reach the Dagster UI as their one-line reason.

Why: a bad file (not a PDF, encrypted, an HTML error page…) or a bad setting is the user's
to fix, not a bug: the run page should say what is wrong, with the file in the metadata,
and not offer a stack trace or retry a run that will fail the same way. Anything else
(a bug) still fails with its traceback.
"""

import functools
from collections.abc import Callable
from typing import Any

import dagster as dg

from legco_assets.core.errors import ConfigError, DocumentError


def reasons_as_failures(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a stage's :class:`DocumentError`, :class:`ConfigError` or missing upstream
    artifact into ``dg.Failure`` (description = the reason, no retries). Put it under
    ``@dg.asset``: the wrapper keeps the function's signature, so Dagster sees the same
    context, config and resources."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except DocumentError as exc:
            raise failure(exc.reason, file=exc.path) from None
        except (ConfigError, FileNotFoundError) as exc:
            raise failure(str(exc).strip().splitlines()[0]) from None

    return wrapper


def failure(reason: str, file: str | None = None) -> dg.Failure:
    metadata: dict[str, Any] = {"reason": reason}
    if file:
        metadata["file"] = dg.MetadataValue.path(file)
    return dg.Failure(description=reason, metadata=metadata, allow_retries=False)
