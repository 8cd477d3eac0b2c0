from pathlib import Path

import pytest

from vba_assets.config import embedded_project_config, load_project_config
from vba_assets.errors import ConfigError, ErrorCode

REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "project.toml"
    path.write_text(text, encoding="utf-8")
    return path


BASE = """
workspace = "ws"
[database]
url = "sqlite:///world.sqlite"
allowlist = ["creature_template"]
snapshot_label = "snap"
"""

CATALOG = """
[entity_resolution]
[[entity_resolution.catalogs]]
name = "creature_name"
entity_type = "creature"
table = "{table}"
identity_column = "entry"
name_column = "name"
"""


def test_example_configs_load() -> None:
    for name in ["project.example.toml"]:
        config = load_project_config(REPO / "config" / name)
        assert config.catalogs, name
        assert all(c.table in config.database.allowlist for c in config.catalogs)


def test_relative_paths_resolve_against_the_config_file(tmp_path: Path) -> None:
    config = load_project_config(write(tmp_path, BASE))
    assert config.workspace == (tmp_path / "ws").resolve()
    assert config.database.url == f"sqlite:///{(tmp_path / 'world.sqlite').resolve()}"
    assert config.entity_resolution is None


def test_embedded_default_uses_the_demo_db(tmp_path: Path) -> None:
    config = embedded_project_config(tmp_path)
    assert config.database.is_embedded
    assert {c.name for c in config.catalogs} == {"creature_name", "creature_localized_name"}


@pytest.mark.parametrize(
    ("text", "key"),
    [
        (BASE.replace("sqlite:///world.sqlite", "mysql+pymysql://u:secret@h/db"), "database.url"),
        (BASE.replace("sqlite:///world.sqlite", "postgresql://h/db"), "database.url"),
        (
            BASE.replace("sqlite:///world.sqlite", "mysql+pymysql://u@h/db?password=secret"),
            "database.url",
        ),
        (
            BASE.replace("sqlite:///world.sqlite", "mysql+pymysql://u:pa/secret@h/db"),
            "database.url",
        ),
        (BASE.replace('["creature_template"]', "[]"), "database.allowlist"),
        (BASE.replace('["creature_template"]', '["bad name"]'), "database.allowlist"),
        (BASE + "\nsurprise = 1\n", "database.surprise"),
        ("surprise = 1\n" + BASE, "surprise"),
        (BASE + CATALOG.format(table="creature_template_locale"), "<root>"),
        (
            BASE + CATALOG.format(table="creature_template") + "max_searches = 0\n",
            "entity_resolution.catalogs.0.max_searches",
        ),
    ],
)
def test_invalid_config_names_the_key(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(ConfigError) as excinfo:
        load_project_config(write(tmp_path, text))
    assert excinfo.value.code is ErrorCode.CONFIG_INVALID
    assert excinfo.value.detail["key"] == key
    assert "secret" not in str(excinfo.value)


def test_missing_file_and_bad_toml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as excinfo:
        load_project_config(tmp_path / "nope.toml")
    assert excinfo.value.code is ErrorCode.CONFIG_NOT_FOUND
    with pytest.raises(ConfigError):
        load_project_config(write(tmp_path, "workspace = [unclosed"))


def test_operations_prices_resolve_against_the_file_and_a_webhook_must_be_http(
    tmp_path: Path,
) -> None:
    config = load_project_config(write(tmp_path, BASE + '[operations]\nprices = "p.toml"\n'))
    assert config.operations.prices == (tmp_path / "p.toml").resolve()
    assert config.operations.alert_webhook_url is None
    assert load_project_config(write(tmp_path, BASE)).operations.prices is None
    bad = BASE + '[operations]\nalert_webhook_url = "file:///etc/passwd"\n'
    with pytest.raises(ConfigError) as excinfo:
        load_project_config(write(tmp_path, bad))
    assert excinfo.value.detail["key"] == "operations.alert_webhook_url"
