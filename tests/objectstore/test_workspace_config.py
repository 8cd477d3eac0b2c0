"""``[workspace]`` in the project file: a path (the default) or a bucket with a working copy."""

from pathlib import Path

import pytest

from vba_assets.config import load_project_config
from vba_assets.errors import ConfigError, ErrorCode
from vba_assets.store.opening import open_workspace

DATABASE = """
[database]
url = "sqlite:///world.sqlite"
allowlist = ["creature_template"]
snapshot_label = "snap"
"""

BUCKET = """
[workspace]
url = "s3://vba-cases/team/a"
path = "copy"
endpoint_url = "http://127.0.0.1:9100"
region = "eu-west-1"
access_key_id_env = "T_KEY"
secret_access_key_env = "T_SECRET"
lease_s = 20
"""


def _load(tmp_path: Path, text: str) -> object:
    path = tmp_path / "project.toml"
    path.write_text(text, encoding="utf-8")
    return load_project_config(path)


def test_a_plain_workspace_path_stays_the_local_store(tmp_path: Path) -> None:
    config = _load(tmp_path, 'workspace = "ws"\n' + DATABASE)
    assert config.workspace == tmp_path / "ws"  # type: ignore[attr-defined]
    assert config.bucket is None  # type: ignore[attr-defined]
    assert open_workspace(config).bucket is None  # type: ignore[arg-type]


def test_a_workspace_table_with_a_url_names_the_bucket(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _load(tmp_path, DATABASE + BUCKET)
    bucket = config.bucket  # type: ignore[attr-defined]
    assert config.workspace == tmp_path / "copy"  # type: ignore[attr-defined]
    assert (bucket.location.bucket, bucket.location.prefix) == ("vba-cases", "team/a")
    assert (bucket.endpoint_url, bucket.region, bucket.lease_s) == (
        "http://127.0.0.1:9100",
        "eu-west-1",
        20,
    )
    with pytest.raises(ConfigError) as unset:  # the variable is named, its value never shown
        open_workspace(config)  # type: ignore[arg-type]
    assert unset.value.detail["key"] == "workspace.access_key_id_env" and "T_KEY" in str(
        unset.value
    )
    monkeypatch.setenv("T_KEY", "key-id")
    monkeypatch.setenv("T_SECRET", "s3cr3t-value")
    workspace = open_workspace(config)  # type: ignore[arg-type]
    assert workspace.bucket is not None and str(workspace.bucket.url) == "s3://vba-cases/team/a"
    assert workspace.lease_s == 20 and workspace.root == tmp_path / "copy"
    assert "s3cr3t-value" not in repr(config) + repr(workspace.bucket)


def test_a_workspace_table_without_a_url_is_just_a_path(tmp_path: Path) -> None:
    config = _load(tmp_path, DATABASE + '[workspace]\npath = "elsewhere"\n')
    assert config.workspace == tmp_path / "elsewhere"  # type: ignore[attr-defined]
    assert config.bucket is None  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ('url = "https://vba-cases/x"', "bucket.url"),
        ('url = "s3://vba-cases"\nendpoint_url = "http://k:s@host"', "bucket.endpoint_url"),
        ('url = "s3://vba-cases"\naccess_key_id_env = "ONLY_ONE"', "bucket"),
        ('url = "s3://vba-cases"\nlease_s = 0', "bucket.lease_s"),
        ('url = "s3://vba-cases"\nsecret = "inline"', "bucket.secret"),
        ('region = "eu-west-1"', "workspace.url"),
    ],
)
def test_invalid_bucket_settings_name_the_key(tmp_path: Path, table: str, key: str) -> None:
    with pytest.raises(ConfigError) as refused:
        _load(tmp_path, DATABASE + "[workspace]\n" + table + "\n")
    assert refused.value.code is ErrorCode.CONFIG_INVALID
    assert refused.value.detail["key"] == key, refused.value


def test_bucket_is_not_a_top_level_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as refused:
        _load(tmp_path, 'workspace = "ws"\nbucket = "s3://x"\n' + DATABASE)
    assert refused.value.detail["key"] == "bucket"


def test_the_example_configs_bucket_block_loads_when_uncommented(tmp_path: Path) -> None:
    example = (Path(__file__).resolve().parents[2] / "config" / "project.example.toml").read_text()
    lines = example.splitlines()
    start = lines.index("# [workspace]")
    block = []
    for line in lines[start:]:
        if not line.startswith("# ") or line.startswith("#   "):
            break
        block.append(line[2:])
    text = example.replace('workspace = "../vba-workspace"\n', "")
    text = text.replace('prices = "prices.example.toml"', "")
    config = _load(tmp_path, text + "\n" + "\n".join(block) + "\n")
    bucket = config.bucket  # type: ignore[attr-defined]
    assert bucket is not None and bucket.url == "s3://vba-cases/team"
    assert bucket.session_token_env == "VBA_S3_SESSION_TOKEN" and bucket.lease_s == 60
