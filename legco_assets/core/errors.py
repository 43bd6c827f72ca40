"""Errors a user sees: one line naming the file and the reason."""

from __future__ import annotations


class DocumentError(Exception):
    """A document cannot be processed; ``str()`` is the one-line message users read."""

    def __init__(self, path: object, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class ConfigError(ValueError):
    """A setting (environment variable) has a value the project cannot use."""
