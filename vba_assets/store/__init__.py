"""The case-package artifact store (ARCHITECTURE 4). Pure Python, no Dagster import."""
