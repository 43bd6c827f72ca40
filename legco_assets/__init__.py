"""legco-assets: LegCo papers to retrieval-ready chunks.

The package root imports nothing heavy: the ``chunk`` command must start without Dagster.
Dagster definitions live in :mod:`legco_assets.definitions`; the pure core in
:mod:`legco_assets.core`.
"""

__version__ = "0.1.0"
