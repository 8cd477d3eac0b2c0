"""The revision layouts tests build paths with (never by hand)."""

from vba_assets.store.layout import RevisionLayout

#: The first revision of a case: where every test run writes.
REV1 = RevisionLayout("0001")
