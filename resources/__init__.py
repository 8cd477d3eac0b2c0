"""IO adapters: the read-only world database and the model providers, plus their Dagster resources."""
