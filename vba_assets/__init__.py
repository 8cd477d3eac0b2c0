"""vba-assets: grounded case interpretation for game-server bug reports, as Dagster assets."""

__version__ = "0.1.0"
