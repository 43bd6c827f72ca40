"""Dagster definitions: thin wrappers that call :mod:`legco_assets.core.pipeline`."""
