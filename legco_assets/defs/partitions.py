"""One dynamic partition per document; the key is the readable document id."""

import dagster as dg

documents_partitions = dg.DynamicPartitionsDefinition(name="documents")
