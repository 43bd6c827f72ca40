"""The code location: ``dagster dev`` (workspace.yaml) and ``dg`` load ``defs`` from here.

This module is the Dagster process's entry: it reads the settings from the environment once
and builds the definitions with them (:func:`~legco_assets.defs.location.build_definitions`).
"""

from __future__ import annotations

from legco_assets.core.settings import Settings
from legco_assets.defs.location import build_definitions

defs = build_definitions(Settings.from_env())
