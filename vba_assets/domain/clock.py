"""The wall clock and how its readings are written (events, retry times). Injectable everywhere.

Content artifacts never hold a clock reading (ARCHITECTURE 4, "content, not timing"); the lifecycle
log and retry times do.
"""

from datetime import UTC, datetime


def utc_now() -> datetime:
    """The default clock: now, timezone-aware UTC."""
    return datetime.now(UTC)


def format_timestamp(moment: datetime) -> str:
    """``2025-01-02T03:04:05.000006Z``: UTC, always with microseconds and ``Z``."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"the clock returned a naive datetime {moment!r}; make it timezone-aware")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
