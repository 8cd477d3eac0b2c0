"""Project configuration: the TOML files under ``config/`` and the embedded default.

Pure (stdlib + pydantic). Invalid configuration fails at load time with the key and the reason
(:class:`~vba_assets.errors.ConfigError`, ``detail['key']``). Relative paths in a file are resolved
against the directory of that file. No secret is ever stored here: the database password is read
from the environment variable named by ``database.password_env`` when a connection is opened.
"""

import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from vba_assets.domain.base import StrictModel
from vba_assets.domain.case.report_source import REPOSITORY_PATTERN
from vba_assets.domain.catalog.settings import CatalogConfig
from vba_assets.domain.limits import MAX_SEARCHES
from vba_assets.errors import ConfigError, ErrorCode
from vba_assets.workspace_config import BucketConfig, split_workspace_table

#: ``database.url`` value that selects the packaged demo world DB (SQLite, built on first use).
EMBEDDED_DEMO_URL = "embedded:demo"

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


class DatabaseConfig(StrictModel):
    """The read-only world database (ARCHITECTURE 10)."""

    url: str = Field(
        description="SQLAlchemy URL without a password (sqlite:///path, mysql+pymysql://user@host/db)"
        f" or '{EMBEDDED_DEMO_URL}' for the packaged demo database."
    )
    password_env: str | None = Field(
        default=None, description="Environment variable that holds the DB password, if any."
    )
    allowlist: list[str] = Field(description="Tables the project may read. Nothing else is read.")
    snapshot_label: str = Field(
        min_length=1, max_length=128, description="Operator label of the world data snapshot."
    )
    connect_timeout_s: float = Field(default=5.0, gt=0, le=300)
    read_timeout_s: float = Field(default=30.0, gt=0, le=3600)
    statement_timeout_s: float = Field(default=10.0, gt=0, le=3600)

    @field_validator("url")
    @classmethod
    def _no_password_in_url(cls, url: str) -> str:
        if url == EMBEDDED_DEMO_URL:
            return url
        if not re.match(r"^(sqlite|mysql\+pymysql|mariadb\+pymysql)://", url):
            raise ValueError(
                f"unsupported URL scheme; use sqlite:///, mysql+pymysql:// or '{EMBEDDED_DEMO_URL}'"
            )
        if re.match(r"^[a-z+]+://[^@]*:[^@]*@", url) or re.search(
            r"[?&](password|passwd)=", url, re.IGNORECASE
        ):
            raise ValueError("the URL must not contain a password; set password_env instead")
        return url

    @field_validator("allowlist")
    @classmethod
    def _valid_tables(cls, tables: list[str]) -> list[str]:
        if not tables:
            raise ValueError("at least one table must be allowlisted")
        for table in tables:
            if not _IDENTIFIER.fullmatch(table):
                raise ValueError(f"{table!r} is not a plain table identifier")
        if len(set(tables)) != len(tables):
            raise ValueError("duplicate table in allowlist")
        return tables

    @property
    def is_embedded(self) -> bool:
        return self.url == EMBEDDED_DEMO_URL

    def password(self) -> str | None:
        """The password from the environment, never stored in any artifact."""
        return os.environ.get(self.password_env) if self.password_env else None


class EntityResolutionConfig(StrictModel):
    """The optional ``[entity_resolution]`` block; absent means disabled."""

    max_searches: int = Field(default=4, ge=1, le=MAX_SEARCHES)
    max_candidates: int = Field(default=8, ge=1, le=200)
    max_invalid_responses: int = Field(default=3, ge=1, le=10)
    catalogs: list[CatalogConfig] = Field(min_length=1)

    @field_validator("catalogs")
    @classmethod
    def _unique_names(cls, catalogs: list[CatalogConfig]) -> list[CatalogConfig]:
        names = [c.name for c in catalogs]
        if len(set(names)) != len(names):
            raise ValueError("duplicate catalog name")
        return catalogs

    def catalog(self, name: str) -> CatalogConfig | None:
        return next((c for c in self.catalogs if c.name == name), None)


class OperationsConfig(StrictModel):
    """``[operations]``: what the Dagster deployment reports besides the cases (all optional)."""

    prices: Path | None = Field(
        default=None,
        description="A price table (config/prices.example.toml) for the assets' cost_usd "
        "metadata; its rows override genai-prices' list prices.",
    )
    alert_webhook_url: str | None = Field(
        default=None,
        pattern=r"^https?://[^\s]+$",
        description="POST each failed run's alert record (JSON) here; the record is always also "
        "written to <workspace>/alerts/.",
    )
    alert_timeout_s: float = Field(default=5.0, gt=0, le=60, description="Per POST attempt.")
    alert_attempts: int = Field(
        default=3,
        ge=1,
        le=5,
        description="POST attempts on a network error, 408, 429 or 5xx (backoff 0.5 s doubling; "
        "all attempts within 30 s).",
    )


class BudgetConfig(StrictModel):
    """``[budget]``: how much a stage may spend on its own text work before it stops (a block
    with ``STAGE_BUDGET_EXCEEDED``, resumable once the budget is raised)."""

    stage_cpu_s: float = Field(
        default=120.0,
        gt=0,
        le=86400,
        description="CPU seconds one stage may spend on text work (the heuristic provider, the "
        "controller's rules), in the thread that runs it; waits (model replies, queries) do not "
        "count. Normal reports use well under one second per stage.",
    )


#: The REST API of github.com (GitHub Enterprise Server: ``https://HOST/api/v3``).
GITHUB_API_URL = "https://api.github.com"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_API_URL = re.compile(r"https?://[A-Za-z0-9.\-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~%/\-]*)?")
#: Prefixes of GitHub's token formats: a ``token_env`` that starts with one is a pasted token.
_TOKEN_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")


def _label_names(labels: list[str]) -> list[str]:
    """``labels`` when each is a GitHub label name and none repeats (ignoring case)."""
    for label in labels:
        if not label.strip() or len(label) > 100 or "\n" in label:
            raise ValueError(f"{label!r} is not a label name")
    if len({label.casefold() for label in labels}) != len(labels):
        raise ValueError("duplicate label (names compare ignoring case)")
    return labels


class TrackerConfig(StrictModel):
    """One ``[[trackers]]`` block: an issue tracker that ``vba tracker sync`` and its sensor read.

    The token is never a field: ``token_env`` names the environment variable that holds it, read by
    :meth:`token` at each request, so no config object, record or error can carry it.
    """

    name: str = Field(
        pattern=r"^[a-z][a-z0-9_]{0,39}$",
        description="Short name: the sensor is tracker_<name>_sensor, the cursor lives in "
        "<workspace>/trackers/<name>/.",
    )
    kind: Literal["github"] = Field(description="The tracker's API (only GitHub's REST API).")
    repository: str = Field(description="owner/name of the repository whose issues are read.")
    api_url: str = Field(
        default=GITHUB_API_URL,
        description="REST API root: https://api.github.com, https://HOST/api/v3 for GitHub "
        "Enterprise Server, or a test server. No credentials, query or fragment.",
    )
    token_env: str | None = Field(
        default=None,
        description="Name of the environment variable that holds the token (unset: anonymous "
        "requests, 60 an hour on github.com; write_back needs a token).",
    )
    labels: list[str] | None = Field(
        default=None, description="Import only issues with one of these labels (None: all)."
    )
    include_comments: bool = Field(default=True, description="Comments become attachments.")
    write_back: Literal["off", "comment"] = Field(
        default="off",
        description="'comment': post the interpretation summary as one comment per revision.",
    )
    write_back_labels: list[str] = Field(
        default_factory=list,
        description="Labels added to an issue once its revision's comment is posted (write_back "
        "= 'comment'; e.g. ['vba-interpreted']). GitHub adds a label the issue already has as a "
        "no-op.",
    )
    interval_s: int = Field(default=60, ge=10, le=86400, description="The sensor's interval.")
    max_wait_s: float = Field(
        default=30.0,
        ge=0,
        le=3600,
        description="The longest rate-limit or retry wait inside one sync; a longer one stops the "
        "sync with a recorded reason (the next one resumes from the cursor).",
    )
    timeout_s: float = Field(default=30.0, gt=0, le=300, description="Per HTTP request.")

    @field_validator("repository")
    @classmethod
    def _repository(cls, repository: str) -> str:
        if not REPOSITORY_PATTERN.fullmatch(repository):
            raise ValueError("must be owner/name as GitHub spells it")
        return repository

    @field_validator("api_url")
    @classmethod
    def _api_url(cls, url: str) -> str:
        if not _API_URL.fullmatch(url):
            raise ValueError(
                "must be http(s)://host[:port][/path] without credentials, query or fragment"
            )
        return url.rstrip("/")

    @field_validator("token_env")
    @classmethod
    def _token_env(cls, name: str | None) -> str | None:
        if name is not None and (
            not _ENV_NAME.fullmatch(name) or name.lower().startswith(_TOKEN_PREFIXES)
        ):
            raise ValueError(
                "must be the NAME of an environment variable that holds the token, never the "
                "token itself"
            )
        return name

    @field_validator("labels")
    @classmethod
    def _labels(cls, labels: list[str] | None) -> list[str] | None:
        if labels is None:
            return None
        if not labels:
            raise ValueError("an empty list imports nothing; leave labels out to import all")
        return _label_names(labels)

    @field_validator("write_back_labels")
    @classmethod
    def _write_back_labels(cls, labels: list[str]) -> list[str]:
        return _label_names(labels)

    @model_validator(mode="after")
    def _write_back_needs_token(self) -> "TrackerConfig":
        if self.write_back != "off" and self.token_env is None:
            raise ValueError("write_back needs token_env (posting a comment needs a token)")
        if self.write_back_labels and self.write_back == "off":
            raise ValueError("write_back_labels needs write_back = 'comment' (they mark a post)")
        return self

    def token(self) -> str | None:
        """The token from the environment at this moment (None: unset or no ``token_env``)."""
        value = os.environ.get(self.token_env) if self.token_env else None
        return value or None


class ProjectConfig(StrictModel):
    """Everything an operator configures for one deployment."""

    workspace: Path = Field(
        description="Root folder of case packages and the inbox (with a bucket: the working copy)."
    )
    bucket: BucketConfig | None = Field(
        default=None, description="[workspace] url = 's3://...': case packages in a bucket."
    )
    database: DatabaseConfig
    entity_resolution: EntityResolutionConfig | None = None
    operations: OperationsConfig = Field(default_factory=OperationsConfig)
    budget: BudgetConfig = Field(default_factory=BudgetConfig)

    trackers: list[TrackerConfig] = Field(
        default_factory=list, description="[[trackers]] blocks: issue trackers cases come from."
    )
    source: str = Field(default="<embedded default>", description="Where this config came from.")

    @model_validator(mode="after")
    def _catalog_tables_allowlisted(self) -> "ProjectConfig":
        if self.entity_resolution:
            for index, catalog in enumerate(self.entity_resolution.catalogs):
                if catalog.table not in self.database.allowlist:
                    raise ValueError(
                        f"entity_resolution.catalogs[{index}].table {catalog.table!r} is not in "
                        "database.allowlist"
                    )
        names = [tracker.name for tracker in self.trackers]
        if len(set(names)) != len(names):
            raise ValueError("trackers: duplicate name")
        repositories = [tracker.repository.lower() for tracker in self.trackers]
        if len(set(repositories)) != len(repositories):
            # a case id is derived from owner/name alone: two blocks would write the same cases
            raise ValueError("trackers: two blocks read the same repository")
        return self

    def tracker(self, name: str) -> TrackerConfig:
        """The ``[[trackers]]`` block called ``name``.

        Raises:
            ConfigError: CONFIG_INVALID when there is none (the message lists the names).
        """
        for tracker in self.trackers:
            if tracker.name == name:
                return tracker
        known = ", ".join(t.name for t in self.trackers) or "none configured"
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            f"{self.source}: no [[trackers]] block named {name!r} ({known})",
            key="trackers",
            source=self.source,
        )

    @property
    def catalogs(self) -> list[CatalogConfig]:
        return list(self.entity_resolution.catalogs) if self.entity_resolution else []


def first_error_key(exc: ValidationError) -> str:
    """The dotted location of a validation error's first problem (``<root>`` for the document)."""
    error = exc.errors()[0]
    return ".".join(str(part) for part in error["loc"]) or "<root>"


def parse_project_config(data: dict[str, Any], *, base_dir: Path, source: str) -> ProjectConfig:
    """Validate a parsed TOML document. Relative ``workspace`` and sqlite paths use ``base_dir``."""
    try:
        data = split_workspace_table(dict(data))
    except ConfigError as exc:
        raise ConfigError(
            exc.code, f"{source}: {exc.message}", key=exc.detail.get("key"), source=source
        ) from None
    if "workspace" in data and isinstance(data["workspace"], str):
        data["workspace"] = str((base_dir / data["workspace"]).resolve())
    operations = data.get("operations")
    if isinstance(operations, dict) and isinstance(operations.get("prices"), str):
        data["operations"] = {
            **operations,
            "prices": str((base_dir / operations["prices"]).resolve()),
        }
    database = data.get("database")
    if isinstance(database, dict) and isinstance(database.get("url"), str):
        url = database["url"]
        prefix = "sqlite:///"
        if url.startswith(prefix) and not url.startswith(prefix + "/"):
            database = dict(database)
            database["url"] = prefix + str((base_dir / url[len(prefix) :]).resolve())
            data["database"] = database
    data["source"] = source
    try:
        return ProjectConfig.model_validate(data)
    except ValidationError as exc:
        key = first_error_key(exc)
        reason = exc.errors()[0]["msg"]
        raise ConfigError(
            ErrorCode.CONFIG_INVALID, f"{source}: {key}: {reason}", key=key, source=source
        ) from None


def read_toml(path: Path, *, what: str) -> dict[str, Any]:
    """Parse a UTF-8 TOML file; a missing or malformed file is a :class:`ConfigError`."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(
            ErrorCode.CONFIG_NOT_FOUND, f"{what} file not found: {path}", key="<file>"
        ) from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(
            ErrorCode.CONFIG_INVALID, f"{path}: not valid UTF-8 TOML: {exc}", key="<file>"
        ) from None


def load_project_config(path: Path | str | None = None) -> ProjectConfig:
    """Load a project config file, or the embedded default when ``path`` is None."""
    if path is None:
        return embedded_project_config()
    path = Path(path)
    data = read_toml(path, what="config")
    return parse_project_config(data, base_dir=path.parent.resolve(), source=str(path))


#: The creature catalogs of the demo world DB; also the shape the example config documents.
DEMO_CATALOGS: list[dict[str, Any]] = [
    {
        "name": "creature_name",
        "entity_type": "creature",
        "kind": "name",
        "table": "creature_template",
        "identity_column": "entry",
        "name_column": "name",
        "data_columns": ["subname", "minlevel", "maxlevel", "rank", "faction", "npcflag"],
        "helper_name_patterns": [
            r"\btrigger\b",
            r"kill ?credit",
            r"\bcredit marker\b",
            r"\bbunny\b",
            r"^\[(?:ph|dnd|dnt|unused)\]",
            r"^\((?:ph)\)",
            r"\bdummy\b",
        ],
    },
    {
        "name": "creature_localized_name",
        "entity_type": "creature",
        "kind": "localized_name",
        "table": "creature_template_locale",
        "identity_column": "entry",
        "name_column": "Name",
        "data_columns": ["locale", "Title"],
        "helper_name_patterns": [],
    },
]

#: The demo catalogs' tables, the spawn markers, and (grounded tie-breaks, protocol v6) the quest
#: tables whose titles the quest relations of a capture record, and the zone names its zone
#: markers record.
DEMO_ALLOWLIST = [
    "creature_template",
    "creature_template_locale",
    "creature_queststarter",
    "creature_questender",
    "creature_spawn_markers",
    "quest_template",
    "quest_template_locale",
    "zone_names",
]


def embedded_project_config(workspace: Path | str | None = None) -> ProjectConfig:
    """The default used by every ``vba`` command without ``--project-config``.

    Workspace: ``workspace`` argument, else ``$VBA_WORKSPACE``, else ``./vba-workspace``.
    """
    root = workspace or os.environ.get("VBA_WORKSPACE") or "vba-workspace"
    data: dict[str, Any] = {
        "workspace": str(Path(root).resolve()),
        "database": {
            "url": EMBEDDED_DEMO_URL,
            "allowlist": DEMO_ALLOWLIST,
            "snapshot_label": "demo-wotlk-3.3.5",
        },
        "entity_resolution": {"catalogs": DEMO_CATALOGS},
    }
    return parse_project_config(data, base_dir=Path.cwd(), source="<embedded default>")
