"""Dagster wiring only: partitions, assets, checks, sensors, jobs. Logic lives in vba_assets.domain."""
