"""Fixtures of the Dagster tests: a fresh PostgreSQL database per test (``postgres`` marker)."""

import os
import secrets
from collections.abc import Iterator

import pytest

PG_VARS = ("DAGSTER_PG_HOST", "DAGSTER_PG_PORT", "DAGSTER_PG_USER", "DAGSTER_PG_PASSWORD")


@pytest.fixture
def pg_database() -> Iterator[str]:
    """A fresh PostgreSQL database for this test's Dagster instance, dropped afterwards."""
    missing = [var for var in (*PG_VARS, "DAGSTER_PG_DB") if not os.environ.get(var)]
    if missing:
        message = f"PostgreSQL is not configured ({', '.join(missing)} unset): run deploy/postgres_setup.sh"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI requires this test to run: {message}")
        pytest.skip(message)
    import psycopg2

    name = f"vba_test_{secrets.token_hex(4)}"
    connection = psycopg2.connect(
        host=os.environ["DAGSTER_PG_HOST"],
        port=int(os.environ["DAGSTER_PG_PORT"]),
        user=os.environ["DAGSTER_PG_USER"],
        password=os.environ["DAGSTER_PG_PASSWORD"],
        dbname=os.environ["DAGSTER_PG_DB"],
    )
    connection.autocommit = True
    try:
        with connection.cursor() as cursor:
            cursor.execute(f'CREATE DATABASE "{name}"')
        yield name
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.close()
