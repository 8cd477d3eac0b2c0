"""The case asset's provenance metadata: where a tracker report came from, with a link.

Read from ``case.json``'s ``source`` block (:mod:`vba_assets.domain.case.report_source`); a case
without one gets no provenance metadata at all. The block is provenance, never evidence: it is
shown here, and nowhere in a model's context.
"""

from collections.abc import Mapping
from typing import Any

import dagster as dg


def source_metadata(case_doc: Mapping[str, Any]) -> dict[str, Any]:
    """``source_url`` (a link in the UI) and a one-line ``source``, or nothing."""
    source = case_doc.get("source")
    if not isinstance(source, Mapping):
        return {}
    author = source.get("author") or "unknown author"
    labels = ", ".join(source.get("labels") or []) or "no labels"
    return {
        "source_url": dg.MetadataValue.url(str(source["url"])),
        "source": (
            f"{source['tracker']} {source['repository']}#{source['number']} by {author}, "
            f"created {source['created_at']}, updated {source['updated_at']} ({labels})"
        ),
    }
