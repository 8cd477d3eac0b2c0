"""Turn typed project errors into Dagster failures that read well in the UI."""

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import Any

import dagster as dg

from vba_assets.defs.metadata import BLOCK_CODES, failure_metadata
from vba_assets.errors import VbaError


@contextmanager
def as_dagster_failure(
    context: dg.AssetExecutionContext | None = None,
    usage: Callable[[], Mapping[str, Any]] | None = None,
) -> Iterator[None]:
    """Re-raise a :class:`VbaError` as :class:`dagster.Failure` with its code, ``retry_at``, what
    to do and its detail as metadata.

    A lifecycle block (ARCHITECTURE 9) is also recorded as an observation of the asset partition,
    so the asset's page shows the blocked revision with its code and retry time next to its
    materializations. ``usage`` gives the numeric usage entries of the failed step (the tokens a
    blocked attempt spent, :mod:`vba_assets.defs.usage`); it is added to both.
    """
    try:
        yield
    except VbaError as exc:
        metadata = failure_metadata(exc.code, exc.detail)
        if usage is not None:
            # a package that cannot be read: the failure itself still shows
            with suppress(VbaError):
                metadata.update(usage())
        if context is not None and exc.code in BLOCK_CODES:
            context.log_event(
                dg.AssetObservation(
                    asset_key=context.asset_key,
                    partition=context.partition_key,
                    description=f"blocked: {exc.message}",
                    metadata={"blocked": exc.code.value, **metadata},
                )
            )
        raise dg.Failure(description=str(exc), metadata=metadata, allow_retries=False) from exc
