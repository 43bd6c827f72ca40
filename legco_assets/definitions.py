"""The code location: ``dagster dev`` (workspace.yaml) and ``dg`` load ``defs`` from here."""

from __future__ import annotations

import dagster as dg

from legco_assets.defs.assets import ALL_ASSETS
from legco_assets.defs.jobs import JOBS
from legco_assets.defs.resources import resources_from_env
from legco_assets.defs.sensors import inbox_sensor, legco_feed_sensor, strategy_chain_after_failure_sensor, strategy_chain_sensor

defs = dg.Definitions(
    assets=ALL_ASSETS,
    jobs=list(JOBS.values()),
    sensors=[inbox_sensor, legco_feed_sensor, strategy_chain_sensor, strategy_chain_after_failure_sensor],
    resources=resources_from_env(),
)
