"""The operator's catalog settings: which name column of which allowlisted table may be searched.

A domain model (pydantic, no IO): :mod:`vba_assets.config` builds it from the project config's
``[[entity_resolution.catalogs]]`` blocks and the embedded default; the controller's rules, the
prompts, the lookup tool and the heuristic provider read it.
"""

import re
from typing import Literal

from pydantic import Field, field_validator

from vba_assets.domain.base import StrictModel

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
_CATALOG_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class CatalogConfig(StrictModel):
    """One operator-selected searchable name column (ARCHITECTURE 12)."""

    name: str = Field(description="Catalog name the model may cite, e.g. 'creature_name'.")
    entity_type: str = Field(min_length=1, max_length=64, description="e.g. 'creature'.")
    kind: Literal["name", "localized_name"] = Field(
        default="name",
        description="'name' for the primary name column, 'localized_name' for translations.",
    )
    table: str
    identity_column: str
    name_column: str
    data_columns: list[str] = Field(default_factory=list)
    helper_name_patterns: list[str] = Field(
        default_factory=list,
        description="Regexes (case-insensitive) of technical helper entries (triggers, kill "
        "credits) that the heuristic assessment never selects.",
    )

    @field_validator("name")
    @classmethod
    def _catalog_name(cls, name: str) -> str:
        if not _CATALOG_NAME.fullmatch(name):
            raise ValueError("catalog names are lowercase identifiers ([a-z][a-z0-9_]*)")
        return name

    @field_validator("table", "identity_column", "name_column")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not _IDENTIFIER.fullmatch(value):
            raise ValueError(f"{value!r} is not a plain identifier")
        return value

    @field_validator("data_columns")
    @classmethod
    def _identifiers(cls, values: list[str]) -> list[str]:
        for value in values:
            if not _IDENTIFIER.fullmatch(value):
                raise ValueError(f"{value!r} is not a plain identifier")
        return values

    @field_validator("helper_name_patterns")
    @classmethod
    def _patterns_compile(cls, values: list[str]) -> list[str]:
        for value in values:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"{value!r} is not a valid regex: {exc}") from exc
        return values
