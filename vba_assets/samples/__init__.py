"""Packaged sample player reports (folder form), for demos and tests. See ``README.md`` here."""

from pathlib import Path

#: The folder holding one sub-folder per sample report.
SAMPLES_DIR = Path(__file__).resolve().parent


def sample_report_paths() -> list[Path]:
    """The sample report folders (each holds a ``report.json``), sorted by name."""
    return sorted(
        entry
        for entry in SAMPLES_DIR.iterdir()
        if entry.is_dir() and (entry / "report.json").is_file()
    )


def sample_report_path(case_id: str) -> Path:
    """The folder of one sample, e.g. ``sample_report_path("BUG-000020")``."""
    path = SAMPLES_DIR / case_id
    if not (path / "report.json").is_file():
        known = ", ".join(p.name for p in sample_report_paths())
        raise KeyError(f"no sample report {case_id!r}; the samples are {known}")
    return path
