"""The e2e GraphQL client's queries against the pinned Dagster's schema, without a server.

A query the webserver would reject fails only when it is sent, and some are sent only when a test
already fails (:meth:`DagsterGraphQL.run_failures`): this validates every one offline.
"""

from typing import Any

import pytest
from dagster_graphql.schema import create_schema
from graphql import parse, validate

from tests.e2e import graphql as client_module
from tests.e2e.graphql import DagsterGraphQL

QUERIES = {
    name: value
    for name, value in vars(client_module).items()
    if name.isupper()
    and isinstance(value, str)
    and value.lstrip().startswith(("{", "query", "mutation"))
}


def test_the_client_has_its_queries() -> None:
    assert {
        "_RUN_FAILURES",
        "_RUNS",
        "_BACKFILL",
        "_LAUNCH_BACKFILL",
        "_WORKSPACE",
        "_INSTANCE",
    } <= set(QUERIES)


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_every_query_is_valid_against_the_dagster_schema(name: str) -> None:
    schema = create_schema().graphql_schema
    assert validate(schema, parse(QUERIES[name])) == []


class _Answering(DagsterGraphQL):
    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__("http://127.0.0.1:1")
        self.data = data

    def query(self, document: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.data


def test_run_failures_name_the_exception_behind_a_run_failure() -> None:
    events = [
        {"__typename": "RunStartEvent", "message": "Started execution of run."},
        {
            "__typename": "ExecutionStepFailureEvent",
            "stepKey": "resolution_plan",
            "message": "Execution of step failed.",
            "error": {
                "className": "ModelError",
                "message": "bad reply\n",
                "stack": [],
                "cause": None,
            },
        },
        {
            "__typename": "RunFailureEvent",
            "message": "An exception was thrown during execution.",
            "error": {
                "className": "InternalError",
                "message": "(psycopg2.errors.InFailedSqlTransaction) aborted",
                "stack": ['  File "a.py", line 1, in claim\n', "    conn.execute(update)\n"],
                "cause": {"message": "UniqueViolation: duplicate key\n"},
            },
        },
    ]
    failures = _Answering({"logsForRun": {"events": events}}).run_failures("run-1")

    assert failures == [
        "resolution_plan: Execution of step failed. | ModelError: bad reply",
        "run: An exception was thrown during execution. | InternalError: (psycopg2.errors."
        "InFailedSqlTransaction) aborted | caused by: UniqueViolation: duplicate key"
        ' | File "a.py", line 1, in claim |     conn.execute(update)',
    ]
