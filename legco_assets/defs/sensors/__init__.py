"""The sensors that start runs: ``inbox`` (a file dropped in LEGCO_INBOX), ``feed`` (LegCo's
Hansard open data) and ``strategy_chain`` (a sensor's paper chunked with every strategy of
LEGCO_SENSOR_STRATEGIES in turn)."""

from ..names import CONTENT_TAG, PARTITION_TAG
from .feed import feed_sensor, legco_feed_sensor
from .inbox import inbox_sensor
from .strategy_chain import (
    CHAINED_ASSETS,
    next_strategy,
    strategy_chain_after_failure_sensor,
    strategy_chain_sensor,
)

__all__ = [
    "CHAINED_ASSETS",
    "CONTENT_TAG",
    "PARTITION_TAG",
    "feed_sensor",
    "inbox_sensor",
    "legco_feed_sensor",
    "next_strategy",
    "strategy_chain_after_failure_sensor",
    "strategy_chain_sensor",
]
