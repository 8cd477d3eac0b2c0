"""What every ``vba`` command resolves first: the project config, the workspace, the bucket."""

import argparse
from pathlib import Path
from typing import Any

from vba_assets.errors import ErrorCode

#: The exit code of a tracker sync or post that stopped before the end (the reason is printed).
TRACKER_STOPPED = 8


def project_of(args: argparse.Namespace) -> Any:
    """``--project-config``, else the embedded default (the demo world DB)."""
    from vba_assets.config import embedded_project_config, load_project_config

    if getattr(args, "project_config", None):
        return load_project_config(Path(args.project_config))
    return embedded_project_config(getattr(args, "workspace", None))


def workspace_of(args: argparse.Namespace) -> Any:
    """``--workspace`` (a local folder), else the project config's: local, or a bucket with a
    local working copy (``[workspace] url``)."""
    from vba_assets.store import Workspace
    from vba_assets.store.opening import open_workspace

    if getattr(args, "workspace", None):
        return Workspace(Path(args.workspace).resolve())
    return open_workspace(project_of(args))


def bucket_of(args: argparse.Namespace) -> Any:
    """The project config's bucket (``vba export`` / ``import-package``), or exit 3 without."""
    from vba_assets.errors import ConfigError
    from vba_assets.store.opening import open_bucket

    config = project_of(args)
    if config.bucket is None:
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            f"{config.source}: no [workspace] url = 's3://...': this command copies between a "
            "bucket and a folder",
            key="workspace.url",
        )
    return open_bucket(config.bucket)
