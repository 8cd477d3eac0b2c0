"""What an identity-reference capture (protocol v4; ARCHITECTURE 6.1 and 6.2) and an exact-name
capture (protocol v6; ARCHITECTURE 15) must be. Pure.

The asset check ``capture_provenance`` and ``vba verify`` (the candidate index verifier) both
re-check it from the package alone, without the database.
"""

import re

from vba_assets.domain.catalog.world import SearchResult
from vba_assets.domain.findings import Finding
from vba_assets.domain.resolution.models import CaptureArtifact, ProposedSearch
from vba_assets.errors import ErrorCode

#: An identity-reference capture's SQL: a parameterized fetch by identity.
_IDENTITY_SQL = re.compile(r"^SELECT\s.+\sFROM\s.+\sWHERE\s.+\s=\s.+\sORDER BY\s.+$", re.S)


def identity_capture_findings(
    identity: int, result: SearchResult, sid: str, artifact: str
) -> list[Finding]:
    """An identity-reference capture is the parameterized fetch of exactly the linked identity:
    no literal, no LIKE, the identity bound as a parameter, every row of that identity, never
    truncated (its rows are bounded by the identity, one per locale)."""
    found = []
    if (
        not _IDENTITY_SQL.match(result.sql)
        or "'" in result.sql
        or " LIKE " in result.sql.upper()
        or " LIMIT " in result.sql.upper()
    ):
        found.append(
            Finding(
                code=ErrorCode.CAPTURE_SQL_NOT_TEMPLATE,
                subject=sid,
                artifact=artifact,
                message="SQL is not the parameterized fetch-by-identity template",
            )
        )
    bound = result.parameters.get("identity")
    if (
        result.identity != identity
        or bound != identity
        or result.truncated
        or any(row.identity != identity for row in result.rows)
    ):
        found.append(
            Finding(
                code=ErrorCode.CAPTURE_IDENTITY_DIFFERS,
                subject=sid,
                artifact=artifact,
                message=f"the capture is not the fetch of identity {identity} (recorded identity "
                f"{result.identity!r}, bound {bound!r}, row identities "
                f"{sorted({str(row.identity) for row in result.rows})}, truncated "
                f"{result.truncated})",
            )
        )
    return found


#: Protocol v6: the fewest rows an exact-name query asks for (one more detects truncation).
#: The rows that carry ONE name are few next to the rows whose names contain a term, yet a
#: faction leader or raid boss has a copy per phase and event ("Thrall" 11 rows in the 3.3.5
#: data, "Lady Jaina Proudmoore" 17, "The Lich King" 24): at ``max_candidates`` (8) such a
#: capture was truncated and its grounded tie-breaks (zone, quest, link) could not run.
EXACT_NAME_ROWS = 32


def exact_row_limit(max_candidates: int) -> int:
    """The row limit of an exact-name capture (protocol v6): ``max_candidates``, and at least
    :data:`EXACT_NAME_ROWS`; bounded like every capture."""
    return max(max_candidates, EXACT_NAME_ROWS)


#: An exact-name capture's SQL: a parameterized equality with a limit (and, on an indexed SQLite
#: catalog, the trigram pre-filter's parameterized LIKE).
_EXACT_SQL = re.compile(r"^SELECT\s.+\sFROM\s.+\sWHERE\s.+\s=\s.+\sORDER BY\s.+\sLIMIT\s.+$", re.S)
#: The only parameters an exact-name query binds (SQLAlchemy adds SQLite's ``OFFSET 0``).
_EXACT_PARAMETERS = frozenset({"term", "row_limit", "index_pattern", "param_1"})


def exact_capture_findings(
    search: ProposedSearch,
    own: tuple[str, CaptureArtifact],
    exact: CaptureArtifact,
    max_candidates: int,
    sid: str,
    artifact: str,
) -> list[Finding]:
    """An exact-name capture (protocol v6) completes its search's own, truncated contains
    capture (``completes`` is that capture's sha256), for the same search, term and catalog,
    with the parameterized exact-name template: no literal, no escape clause, the term and
    ``exact_row_limit(max_candidates) + 1`` bound as parameters."""
    found = []
    own_sha, own_capture = own
    result = exact.result
    if exact.search != search or (result.term, result.catalog) != (search.term, search.catalog):
        found.append(
            Finding(
                code=ErrorCode.CAPTURE_SEARCH_DIFFERS,
                subject=sid,
                artifact=artifact,
                message="the exact-name capture's search differs from the plan",
            )
        )
    if (
        exact.completes != own_sha
        or search.reference is not None
        or own_capture.kind is not None
        or not own_capture.result.truncated
    ):
        found.append(
            Finding(
                code=ErrorCode.CAPTURE_EXACT_DIFFERS,
                subject=sid,
                artifact=artifact,
                message=f"an exact-name capture completes only the truncated contains capture of "
                f"its search; it names {exact.completes!r}, the search's capture is {own_sha} "
                f"(truncated {own_capture.result.truncated})",
            )
        )
    return found + exact_template_findings(result, search.term, max_candidates, sid, artifact)


def exact_template_findings(
    result: SearchResult, term: str, max_candidates: int, sid: str, artifact: str
) -> list[Finding]:
    """The result of an exact-name query (protocol v6: one that completes a truncated search, or
    a batched name's) has the parameterized exact-name template: no literal, no escape clause,
    ``term`` and ``exact_row_limit(max_candidates) + 1`` bound as parameters."""
    parameters = result.parameters
    if (
        _EXACT_SQL.match(result.sql)
        and "'" not in result.sql
        and " ESCAPE " not in result.sql.upper()
        and not set(parameters) - _EXACT_PARAMETERS
        and parameters.get("term") == term
        and parameters.get("row_limit") == exact_row_limit(max_candidates) + 1
    ):
        return []
    return [
        Finding(
            code=ErrorCode.CAPTURE_SQL_NOT_TEMPLATE,
            subject=sid,
            artifact=artifact,
            message="SQL is not the parameterized exact-name template (term and row limit "
            f"bound; parameters {sorted(parameters)})",
        )
    ]
