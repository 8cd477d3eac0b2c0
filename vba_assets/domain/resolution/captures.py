"""What an identity-reference capture must be (protocol v4; ARCHITECTURE 6.1 and 6.2). Pure.

The asset check ``capture_provenance`` and ``vba verify`` (the candidate index verifier) both
re-check it from the package alone, without the database.
"""

import re

from vba_assets.domain.catalog.world import SearchResult
from vba_assets.domain.findings import Finding
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
