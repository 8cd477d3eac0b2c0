"""The revision pipeline: stages, frozen inputs, dispatch records and checks (no Dagster import).

Shared by the Dagster assets (``vba_assets/defs``) and the headless ``vba trial run``.
"""
