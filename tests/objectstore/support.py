"""Project files for the bucket tests: the CI catalogs on the embedded demo world DB."""

import re
from pathlib import Path

import pytest

from vba_assets.objectstore import ObjectStore

REPO = Path(__file__).resolve().parents[2]
KEY_ENV = "VBA_TEST_S3_ACCESS_KEY_ID"
SECRET_ENV = "VBA_TEST_S3_SECRET_ACCESS_KEY"


def project_file(
    folder: Path, working_copy: Path, store: ObjectStore | None = None, *, lease_s: float = 30
) -> Path:
    """A project config whose workspace is ``working_copy`` alone, or with ``store`` the bucket
    with ``working_copy`` as this host's working copy."""
    text = (REPO / "config" / "project.mariadb-ci.toml").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^url = .*$", 'url = "embedded:demo"', text, count=1)
    text = re.sub(r"(?m)^password_env = .*$", "", text)
    if store is None:
        text = re.sub(r"(?m)^workspace = .*$", f'workspace = "{working_copy}"', text)
    else:
        text = re.sub(r"(?m)^workspace = .*$", "", text)
        text += (
            f'\n[workspace]\npath = "{working_copy}"\nurl = "{store.url}"\n'
            f'endpoint_url = "{store.endpoint_url}"\nregion = "us-east-1"\n'
            f'access_key_id_env = "{KEY_ENV}"\nsecret_access_key_env = "{SECRET_ENV}"\n'
            f"lease_s = {lease_s}\n"
        )
    path = folder / f"project-{working_copy.name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def set_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """The moto credentials in the variables the project files name."""
    monkeypatch.setenv(KEY_ENV, "testing-key-id")
    monkeypatch.setenv(SECRET_ENV, "testing-secret")
