"""The code location's definitions for one :class:`Settings`: the asset graph, the jobs, the
sensors and the resources derived from those settings.

Why a function: the process entry builds its settings once and passes them here, so the
code location (``legco_assets.definitions``) and ``legco-assets ingest`` run the very same
definitions, each bound to its own process's settings; nothing is read at import.
"""

from __future__ import annotations

import dagster as dg

from legco_assets.core.settings import Settings

from .assets import ALL_ASSETS
from .forget import forget_document_job
from .jobs import JOBS
from .resources import resources_for
from .sensors import feed_sensor, inbox_sensor, strategy_chain_after_failure_sensor, strategy_chain_sensor


def build_definitions(settings: Settings) -> dg.Definitions:
    return dg.Definitions(
        assets=ALL_ASSETS,
        jobs=[*JOBS.values(), forget_document_job],
        sensors=[
            inbox_sensor,
            feed_sensor(settings.feed_interval_minutes),
            strategy_chain_sensor,
            strategy_chain_after_failure_sensor,
        ],
        resources=resources_for(settings),
    )
