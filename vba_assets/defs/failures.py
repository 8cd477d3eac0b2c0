"""Turn typed project errors into Dagster failures that read well in the UI."""

from collections.abc import Iterator
from contextlib import contextmanager

import dagster as dg

from vba_assets.errors import VbaError


@contextmanager
def as_dagster_failure() -> Iterator[None]:
    """Re-raise a :class:`VbaError` as :class:`dagster.Failure` with its code and detail as metadata."""
    try:
        yield
    except VbaError as exc:
        metadata: dict[str, dg.RawMetadataValue] = {"code": exc.code.value}
        metadata.update({f"detail.{k}": str(v) for k, v in sorted(exc.detail.items())})
        raise dg.Failure(description=str(exc), metadata=metadata) from exc
