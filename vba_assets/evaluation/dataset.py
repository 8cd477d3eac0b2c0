"""The evaluation dataset: one JSON object per line (``eval/devset.jsonl``; format in eval/README.md).

Pure (stdlib + pydantic). Every problem raises :class:`~vba_assets.errors.InputError` with
``ErrorCode.EVAL_DATASET_INVALID`` and a message that names the file, the line and the field, e.g.
``devset.jsonl line 12: mentions[0].surface: 'Hoger' does not occur in the title or body``.

Keys per line:

* ``id`` (case id, unique in the file), ``title`` and/or ``body`` (at least one non-empty);
* ``reported_at`` (ISO 8601 with ``Z`` or an offset; default :data:`DEFAULT_REPORTED_AT`);
* ``language`` (a label such as ``en``), ``tags`` (category labels), both optional;
* ``mentions``: each with ``surface`` (exact text of the title or body), ``role``
  (:data:`GOLD_ROLES`), ``gold_entry`` (integer or null) and an optional ``gold_name`` (the
  catalog name, English or localized, of ``gold_entry``; checked against the world DB by the tests);
* ``in_scope`` (optional gold scope: true, or false with ``scope_class``, one of the out-of-scope
  classes of the interpretation contract) and ``dates`` (optional gold time references: ``quote``,
  exact text of the title or body, and the reporter's local ``start`` and ``end`` day it resolves
  to against ``reported_at``; ``end`` defaults to ``start``).

Unknown keys (``note`` for example) are ignored at every level.
"""

import hashlib
import json
import typing
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
)

from vba_assets.domain.case.ids import CASE_ID_PATTERN
from vba_assets.domain.interpretation.models import OutOfScopeClass
from vba_assets.errors import ErrorCode, InputError

#: ``reported_at`` of a line that gives none (relative dates resolve against it).
DEFAULT_REPORTED_AT = "2026-01-15T12:00:00Z"
#: The roles a gold mention may have. A plan's ``location_context`` counts as ``other_context``.
GoldRole = Literal["affected_subject", "quest_giver", "other_context"]
GOLD_ROLES: tuple[GoldRole, ...] = typing.get_args(GoldRole)
#: Admission's limits (``vba_assets/domain/case/report.py``), checked early for a clearer message.
MAX_TITLE_CHARS = 300
MAX_BODY_CHARS = 200_000


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class GoldMention(_Lenient):
    """One creature the report names, and the entry it means (null: none can be determined)."""

    surface: StrictStr = Field(min_length=1, max_length=300)
    role: GoldRole
    gold_entry: StrictInt | None = Field(ge=1)
    gold_name: StrictStr | None = Field(default=None, min_length=1)


class GoldDate(_Lenient):
    """A time expression of the report and the reporter's local days it resolves to."""

    quote: StrictStr = Field(min_length=1, max_length=200)
    start: date
    end: date | None = None

    @property
    def last(self) -> date:
        return self.end or self.start


class EvalCase(_Lenient):
    """One line of the dataset: a player report and its gold mentions."""

    id: StrictStr
    title: StrictStr | None = Field(default=None, max_length=MAX_TITLE_CHARS)
    body: StrictStr | None = Field(default=None, max_length=MAX_BODY_CHARS)
    reported_at: StrictStr = DEFAULT_REPORTED_AT
    language: StrictStr | None = Field(default=None, min_length=1, max_length=16)
    #: The issue tracker a real report comes from (``owner/repo``); results are grouped by it.
    tracker: StrictStr | None = Field(default=None, min_length=1, max_length=200)
    tags: tuple[StrictStr, ...] = ()
    mentions: tuple[GoldMention, ...]
    in_scope: StrictBool | None = None
    scope_class: OutOfScopeClass | None = None
    dates: tuple[GoldDate, ...] = ()

    def contains(self, surface: str) -> bool:
        """Whether ``surface`` occurs exactly in the title or in the body."""
        return surface in (self.title or "") or surface in (self.body or "")

    def report_document(self) -> dict[str, Any]:
        """The ``report.json`` that admission accepts for this case."""
        return {
            "case_id": self.id,
            "title": self.title,
            "body": self.body,
            "reported_at": self.reported_at,
        }


@dataclass(frozen=True)
class Dataset:
    """A validated dataset and the sha256 of its exact bytes (recorded with every result)."""

    source: str
    sha256: str
    cases: tuple[EvalCase, ...]

    def __len__(self) -> int:
        return len(self.cases)


def _fail(source: str, line: int, field: str, reason: str) -> InputError:
    where = f"{source} line {line}" + (f": {field}" if field else "")
    return InputError(
        ErrorCode.EVAL_DATASET_INVALID, f"{where}: {reason}", source=source, line=line, field=field
    )


def _field_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "<line>"


def _check_case(case: EvalCase, source: str, line: int) -> None:
    if not CASE_ID_PATTERN.fullmatch(case.id) or case.id in {".", ".."}:
        raise _fail(source, line, "id", f"{case.id!r} is not a case id (1-64 of A-Z a-z 0-9 . _ -)")
    if not (case.title or "").strip() and not (case.body or "").strip():
        raise _fail(source, line, "title", "title and body are both empty")
    try:
        moment = datetime.fromisoformat(case.reported_at.replace("Z", "+00:00"))
    except ValueError:
        raise _fail(source, line, "reported_at", f"{case.reported_at!r} is not ISO 8601") from None
    if moment.utcoffset() is None:
        raise _fail(source, line, "reported_at", "needs 'Z' or a UTC offset")
    for index, mention in enumerate(case.mentions):
        field = f"mentions[{index}]"
        if not case.contains(mention.surface):
            raise _fail(
                source,
                line,
                f"{field}.surface",
                f"{mention.surface!r} does not occur in the title or body",
            )
        if mention.gold_name is not None and mention.gold_entry is None:
            raise _fail(source, line, f"{field}.gold_name", "given without a gold_entry")
    if case.in_scope is False and case.scope_class is None:
        raise _fail(source, line, "scope_class", "an out-of-scope case names its scope_class")
    if case.scope_class is not None and case.in_scope is not False:
        raise _fail(source, line, "scope_class", "given without in_scope false")
    for index, gold in enumerate(case.dates):
        if not case.contains(gold.quote):
            raise _fail(
                source, line, f"dates[{index}].quote", f"{gold.quote!r} is not in the title or body"
            )
        if gold.last < gold.start:
            raise _fail(source, line, f"dates[{index}].end", "ends before it starts")


def parse_dataset(data: bytes, source: str) -> Dataset:
    """Validate JSONL bytes. Blank lines are skipped; everything else must be a case object."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _fail(source, text_line(data, exc.start), "", "not valid UTF-8") from None
    cases: list[EvalCase] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise _fail(source, number, "", f"not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise _fail(source, number, "", "must be a JSON object")
        try:
            case = EvalCase.model_validate(obj)
        except ValidationError as exc:
            error = exc.errors()[0]
            raise _fail(source, number, _field_path(tuple(error["loc"])), error["msg"]) from None
        _check_case(case, source, number)
        if case.id in seen:
            raise _fail(source, number, "id", f"{case.id!r} repeats line {seen[case.id]}")
        seen[case.id] = number
        cases.append(case)
    if not cases:
        raise _fail(source, 0, "", "the dataset holds no case")
    return Dataset(source=source, sha256=hashlib.sha256(data).hexdigest(), cases=tuple(cases))


def text_line(data: bytes, offset: int) -> int:
    """1-based line number of byte ``offset``."""
    return data.count(b"\n", 0, offset) + 1


def load_dataset(path: Path | str) -> Dataset:
    """Read and validate a dataset file (see the module docstring)."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(
            ErrorCode.EVAL_DATASET_INVALID,
            f"cannot read dataset {path.name!r}: {exc.strerror or exc}",
            source=path.name,
        ) from None
    return parse_dataset(data, path.name)
