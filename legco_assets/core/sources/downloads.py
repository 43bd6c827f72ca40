"""Safe HTTP for the open-data feed: one client, retries with back-off, PDFs that are whole.

Why so careful: a public server answers 429 and 5xx under load and sometimes hangs, and an
error page served with status 200 under a ``.pdf`` URL would otherwise enter the inbox and
fail ingest later, far from its cause. So every request has a timeout and is retried with
exponential back-off (honouring ``Retry-After``) on timeouts, connection errors, 429 and 5xx;
a download is streamed to a hidden temporary file beside its target (the inbox scan passes
over hidden files) and becomes visible only once it is complete and starts with ``%PDF-``.
Failures are :class:`DownloadError` with a one-line reason.

The feed runs unattended, so its records must not be able to turn it against us: every
request (a record's ``HansardFileURL``, a ``nextLink``, each redirect) goes only to http(s)
URLs on the feed's own host or the allowed hosts (:class:`HostPolicy`,
``LEGCO_FEED_ALLOWED_HOSTS``), else it is refused with its reason and never sent; and a
download stops as soon as it passes ``LEGCO_MAX_FILE_MB`` (a default when unset), leaving
nothing behind.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..settings import Settings
from ..storage import StorePath, is_remote, write_whole
from .documents import file_sha256 as sha256_of

if TYPE_CHECKING:  # imported where a request is made: httpx pulls in click, rich and pygments
    # (~0.06 s), which every importer of ``sources`` (``legco-assets chunk``) would pay
    import httpx
    from tenacity import RetryCallState, Retrying

PDF_MAGIC = b"%PDF-"
MAX_WAIT_S = 60.0  # the longest pause between two tries, whatever Retry-After asks


class DownloadError(Exception):
    """A request that failed for good; ``str()`` is the one-line reason."""


class Refused(DownloadError):
    """A URL we will not request (scheme or host outside the policy); never retried."""


class TooLarge(DownloadError):
    """A reply past the size cap; never retried."""


DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class HostPolicy:
    """Where requests may go: ``host`` (default ports only), ``host:port``, ``*.domain``."""

    allowed: tuple[str, ...]

    @classmethod
    def of(cls, settings: Settings) -> HostPolicy:
        """The feed URL's own host and port, and ``LEGCO_FEED_ALLOWED_HOSTS``."""
        import httpx

        feed = httpx.URL(settings.feed_url)
        port = feed.port or DEFAULT_PORTS.get(feed.scheme, 0)
        return cls(
            (f"{feed.host}:{port}",)
            + tuple(h.strip().lower() for h in settings.feed_allowed_hosts if h.strip())
        )

    def refusal(self, url: str | httpx.URL) -> str | None:
        """Why ``url`` may not be requested, or None when it may."""
        import httpx

        try:
            parsed = httpx.URL(str(url))
        except (httpx.InvalidURL, TypeError, ValueError) as exc:
            return f"refused: not a URL ({exc})"
        if parsed.scheme not in DEFAULT_PORTS:
            return f"refused: only http(s) URLs are fetched, not {parsed.scheme or 'a relative URL'}"
        host = (parsed.host or "").lower()
        port = parsed.port or DEFAULT_PORTS[parsed.scheme]
        if not any(_host_matches(entry, host, port) for entry in self.allowed):
            return f"refused: host {host}:{port} is not the feed's host nor in LEGCO_FEED_ALLOWED_HOSTS"
        return None

    def check(self, request: httpx.Request) -> None:
        """httpx request hook: every request, redirects included, passes the policy first."""
        why = self.refusal(request.url)
        if why:
            raise Refused(f"{why} ({request.url})")


def _host_matches(entry: str, host: str, port: int) -> bool:
    name, _, wanted = entry.rpartition(":") if entry.rsplit(":", 1)[-1].isdigit() else (entry, "", "")
    if wanted and int(wanted) != port:
        return False
    if not wanted and port not in DEFAULT_PORTS.values():
        return False
    if name.startswith("*."):
        return host.endswith(name[1:])
    return host == name


@dataclass(frozen=True)
class Download:
    """A complete PDF in a hidden temporary file, not yet in its place."""

    url: str
    temp: Path
    sha256: str
    size: int


def http_client(settings: Settings) -> httpx.Client:
    """One pooled client (thread-safe) with the timeout and a User-Agent naming us."""
    import httpx

    return httpx.Client(
        timeout=httpx.Timeout(settings.feed_timeout_s),
        headers={"User-Agent": settings.feed_user_agent},
        follow_redirects=True,
        event_hooks={"request": [HostPolicy.of(settings).check]},
    )


def _transient(exc: BaseException) -> bool:
    import httpx

    if isinstance(exc, httpx.HTTPStatusError):
        status = exc.response.status_code
        return status == 429 or status >= 500
    return isinstance(exc, httpx.TransportError)  # timeouts, refused/reset connections, cut bodies


def _retry_after(exc: BaseException | None) -> float | None:
    import httpx

    if isinstance(exc, httpx.HTTPStatusError):
        value = exc.response.headers.get("retry-after", "")
        try:
            return max(0.0, float(value))
        except ValueError:
            return None
    return None


def _retrying(settings: Settings) -> Retrying:
    from tenacity import Retrying, retry_if_exception, stop_after_attempt

    def wait(state: RetryCallState) -> float:
        backoff = settings.feed_backoff_s * 2 ** (state.attempt_number - 1)
        asked = _retry_after(state.outcome.exception() if state.outcome else None)
        return min(MAX_WAIT_S, max(backoff, asked or 0.0))

    return Retrying(
        stop=stop_after_attempt(settings.feed_retries + 1),
        wait=wait,
        retry=retry_if_exception(_transient),
        reraise=True,
    )


def reason(exc: BaseException, settings: Settings) -> str:
    """The one line a user reads for a failed request."""
    import httpx

    tries = f" ({settings.feed_retries + 1} tries)" if _transient(exc) and settings.feed_retries else ""
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out after {settings.feed_timeout_s:g}s{tries}"
    if isinstance(exc, httpx.HTTPStatusError):
        response = exc.response
        return f"HTTP {response.status_code} {response.reason_phrase}{tries}".rstrip()
    if isinstance(exc, httpx.TransportError):
        return f"cannot reach the server ({type(exc).__name__}: {exc}){tries}"
    return str(exc) or type(exc).__name__


def with_retries(settings: Settings, call: Callable[[], Any]) -> Any:
    """Run ``call`` with the retry policy; the last failure is raised as DownloadError."""
    import httpx

    try:
        return _retrying(settings)(call)
    except (httpx.HTTPError, DownloadError) as exc:
        raise DownloadError(reason(exc, settings)) from exc


def get_json(
    client: httpx.Client, url: str, settings: Settings, params: Mapping[str, str] | None = None
) -> Any:
    """GET a JSON document; DownloadError when it cannot be had or is not JSON."""

    def once() -> Any:
        response = client.get(url, params=params, headers={"Accept": "application/json"})
        response.raise_for_status()
        return response

    response = with_retries(settings, once)
    try:
        return response.json()
    except ValueError:
        start = response.text[:40].strip().replace("\n", " ")
        raise DownloadError(f"not JSON (the reply starts with {start!r})") from None


def _temp_name(target: StorePath) -> Path:
    """Where a download streams to: hidden beside a local ``target``; for an inbox in an
    object store, a local temp file (the object is written whole by :func:`commit`)."""
    name = f".{target.name}.{os.getpid()}.{threading.get_ident()}.part"
    return Path(tempfile.gettempdir()) / f"legco-feed{name}" if is_remote(target) else target.with_name(name)


def clear_partial(folder: StorePath) -> int:
    """Remove the temporary files of a poll that was killed mid-download (call it while
    holding the poll lock, when no download of ours is running)."""
    if is_remote(folder):  # nothing partial is ever written there
        return 0
    stale = list(folder.glob(".*.part")) if folder.is_dir() else []
    for path in stale:
        path.unlink(missing_ok=True)
    return len(stale)


def download_pdf(client: httpx.Client, url: str, target: StorePath, settings: Settings) -> Download:
    """Stream ``url`` to a hidden temporary file beside ``target``; only a complete reply
    that starts with ``%PDF-`` comes back (``commit`` puts it in place)."""
    temp = _temp_name(target)
    temp.parent.mkdir(parents=True, exist_ok=True)

    limit = settings.download_max_bytes
    why = HostPolicy.of(settings).refusal(url)
    if why:
        raise Refused(why)

    def once() -> Download:
        digest = hashlib.sha256()
        size = 0
        head = b""
        with client.stream("GET", url) as response:
            response.raise_for_status()
            kind = response.headers.get("content-type", "no content type").split(";")[0]
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                raise TooLarge(
                    f"{_too_large(limit)}: the server declares {int(declared)} bytes; not downloaded"
                )
            with temp.open("wb") as handle:
                for block in response.iter_bytes():
                    if size + len(block) > limit:
                        raise TooLarge(
                            f"{_too_large(limit)}: stopped after {size + len(block)} bytes, nothing kept"
                        )
                    if len(head) < len(PDF_MAGIC):
                        head += block[: len(PDF_MAGIC) - len(head)]
                        if not PDF_MAGIC.startswith(head):
                            raise DownloadError(
                                f"not a PDF (the reply does not start with %PDF-; it is {kind})"
                            )
                    digest.update(block)
                    handle.write(block)
                    size += len(block)
        if head != PDF_MAGIC:
            raise DownloadError(f"not a PDF (the reply is {size} bytes; it is {kind})")
        return Download(url, temp, digest.hexdigest(), size)

    try:
        return with_retries(settings, once)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def _too_large(limit: int) -> str:
    return f"larger than LEGCO_MAX_FILE_MB ({limit / 1024 / 1024:g} MB)"


def file_sha256(path: StorePath) -> str | None:
    """The bytes' sha256 of a file in place, None when there is none yet."""
    return sha256_of(path) if path.is_file() else None


def commit(download: Download, target: StorePath) -> bool:
    """Move the download into place atomically (into an object store: one PUT of the whole
    file); a target with the same bytes is left untouched (same mtime, so the inbox sensor
    sees nothing new). True when written."""
    if file_sha256(target) == download.sha256:
        download.temp.unlink(missing_ok=True)
        return False
    if is_remote(target):
        write_whole(target, download.temp.read_bytes())
        download.temp.unlink(missing_ok=True)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(download.temp, target)
    return True


def discard(download: Download) -> None:
    download.temp.unlink(missing_ok=True)
