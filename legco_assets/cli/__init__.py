"""The ``legco-assets`` command line: :func:`run` is the console script, :func:`main` runs one
command in this process; each command lives in its own module here."""

from .main import build_parser, main, run

__all__ = ["build_parser", "main", "run"]
