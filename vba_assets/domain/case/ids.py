"""Case ids, revisions and package ids (ARCHITECTURE 3).

Validated here, before anything reaches the store or Dagster: Dagster silently accepts ``|`` and
``,`` in dynamic partition keys and then loses the partition.
"""

import re

from vba_assets.errors import ErrorCode, InputError

CASE_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
REVISION_PATTERN = re.compile(r"^[0-9]{4}$")
PACKAGE_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def validate_case_id(case_id: str) -> str:
    """Return ``case_id`` unchanged or raise :class:`InputError` naming the problem."""
    if (
        not isinstance(case_id, str)
        or not CASE_ID_PATTERN.fullmatch(case_id)
        or case_id in {".", ".."}
    ):
        raise InputError(
            ErrorCode.INVALID_CASE_ID,
            f"invalid case id {case_id!r}: use 1-64 characters of A-Z a-z 0-9 . _ -, "
            "starting with a letter or digit (e.g. BUG-000020)",
            case_id=str(case_id),
        )
    return case_id


def validate_revision(revision: str) -> str:
    """A revision is a 4-digit ordinal from ``0001``."""
    if (
        not isinstance(revision, str)
        or not REVISION_PATTERN.fullmatch(revision)
        or revision == "0000"
    ):
        raise InputError(
            ErrorCode.INVALID_REVISION,
            f"invalid revision {revision!r}: use a 4-digit ordinal such as 0001",
            revision=str(revision),
        )
    return revision


def format_revision(ordinal: int) -> str:
    if not 1 <= ordinal <= 9999:
        raise InputError(ErrorCode.INVALID_REVISION, f"revision ordinal {ordinal} out of range")
    return f"{ordinal:04d}"


def validate_package_id(package_id: str) -> str:
    if not isinstance(package_id, str) or not PACKAGE_ID_PATTERN.fullmatch(package_id):
        raise InputError(
            ErrorCode.INVALID_PACKAGE_ID,
            f"invalid package id {package_id!r}: use 1-128 characters of A-Z a-z 0-9 . _ -",
            package_id=str(package_id),
        )
    return package_id


def default_package_id(case_id: str) -> str:
    """The package id used when ``vba import`` is not given one."""
    return f"pkg-{validate_case_id(case_id)}"
