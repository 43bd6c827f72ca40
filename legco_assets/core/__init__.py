"""The pure core: extraction, preprocessing, structure, tables, chunking, retrieval.

Nothing in this package imports Dagster, so the CLI and the tests use it directly and the
Dagster assets stay thin wrappers around it.
"""
