"""A small client for the Dagster webserver's GraphQL API, with the reads the e2e tests need.

Only loopback URLs are used. Every read returns plain data classes so tests can assert on them and
print them in failure messages.
"""

import json
import urllib.request
from dataclasses import dataclass, field
from typing import Any

TERMINAL_RUN_STATUSES = frozenset({"SUCCESS", "FAILURE", "CANCELED"})
PARTITION_TAG = "dagster/partition"


class GraphQLError(RuntimeError):
    """The API answered with ``errors`` or an unexpected ``__typename``."""


class LocationLoadError(RuntimeError):
    """A code location failed to load (its Python error is in the message)."""


@dataclass(frozen=True)
class JobRef:
    """Where a job lives: code location, repository and job name."""

    location: str
    repository: str
    job: str

    def repository_selector(self) -> dict[str, str]:
        return {"repositoryLocationName": self.location, "repositoryName": self.repository}

    def pipeline_selector(self) -> dict[str, str]:
        return {**self.repository_selector(), "pipelineName": self.job}


@dataclass(frozen=True)
class RunSummary:
    """One run: id, status, its partition tag (if any) and all its tags."""

    run_id: str
    status: str
    partition: str | None
    creation_time: float
    tags: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CheckExecution:
    """The latest execution of one asset check on one partition."""

    partition: str
    status: str
    success: bool | None
    run_id: str


@dataclass(frozen=True)
class SensorTick:
    """One sensor tick with the log lines the sensor wrote during it."""

    tick_id: str
    status: str
    timestamp: float
    log_lines: list[tuple[str, str]] = field(default_factory=list)  # (level, message)
    error: str | None = None


class DagsterGraphQL:
    """A client for ``<base_url>/graphql``."""

    def __init__(self, base_url: str, timeout_s: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s

    def query(self, document: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run one query; raise :class:`GraphQLError` if the answer carries errors."""
        body = json.dumps({"query": document, "variables": variables or {}}).encode("utf-8")
        request = urllib.request.Request(
            f"{self.base_url}/graphql",
            data=body,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
            answer = json.loads(response.read())
        if answer.get("errors"):
            raise GraphQLError(json.dumps(answer["errors"])[:2000])
        data: dict[str, Any] = answer["data"]
        return data

    def find_job(self, job: str) -> JobRef | None:
        """The job's location and repository; None while a location is still loading.

        Raises:
            LocationLoadError: a code location failed to load (e.g. the definitions do not import).
            GraphQLError: every location loaded and none holds the job.
        """
        data = self.query(_WORKSPACE)["workspaceOrError"]
        if data["__typename"] != "Workspace":
            raise GraphQLError(f"workspace: {data.get('message', data['__typename'])}")
        loading = False
        for entry in data["locationEntries"]:
            location = entry["locationOrLoadError"]
            if location is None:
                loading = True
                continue
            if location["__typename"] == "PythonError":
                raise LocationLoadError(
                    f"code location {entry['name']!r} failed to load: {location['message']}"
                )
            for repository in location["repositories"]:
                if job in {j["name"] for j in repository["jobs"]}:
                    return JobRef(location["name"], repository["name"], job)
        if loading:
            return None
        raise GraphQLError(f"no code location holds a job named {job!r}")

    def job_asset_checks(self, ref: JobRef) -> dict[str, list[str]]:
        """Every asset the job materializes, with the names of its asset checks."""
        nodes = self.query(_JOB_ASSETS, {"pipeline": ref.pipeline_selector()})["assetNodes"]
        assets: dict[str, list[str]] = {}
        for node in nodes:
            checks = node["assetChecksOrError"]
            names = [c["name"] for c in checks.get("checks", [])]
            assets["/".join(node["assetKey"]["path"])] = sorted(names)
        return assets

    def partition_keys(self, asset: str) -> list[str]:
        """Every registered partition key of a (singly) partitioned asset."""
        return [key for keys in self.partition_keys_by_dimension(asset).values() for key in keys]

    def partition_keys_by_dimension(self, asset: str) -> dict[str, list[str]]:
        """The registered keys of each dimension of a multi-partitioned asset."""
        data = self.query(_ASSET_PARTITIONS, {"key": {"path": asset.split("/")}})
        node = data["assetNodeOrError"]
        if node["__typename"] != "AssetNode":
            raise GraphQLError(f"asset {asset!r}: {node.get('message', node['__typename'])}")
        return {d["name"]: list(d["partitionKeys"]) for d in node["partitionKeysByDimension"]}

    def materialized_partitions(self, asset: str, partitions: list[str]) -> dict[str, str | None]:
        """For each partition, the run id of its latest materialization (None if it has none)."""
        data = self.query(
            _LATEST_MATERIALIZATIONS, {"key": {"path": asset.split("/")}, "partitions": partitions}
        )
        node = data["assetNodeOrError"]
        if node["__typename"] != "AssetNode":
            raise GraphQLError(f"asset {asset!r}: {node.get('message', node['__typename'])}")
        latest: dict[str, str | None] = dict.fromkeys(partitions)
        for event in node["latestMaterializationByPartition"]:
            if event is not None:
                latest[event["partition"]] = event["runId"]
        return latest

    def check_executions(self, asset: str, check: str) -> dict[str, CheckExecution]:
        """The latest execution of an asset check, per partition."""
        data = self.query(
            _CHECK_EXECUTIONS, {"key": {"path": asset.split("/")}, "check": check, "limit": 1000}
        )
        latest: dict[str, CheckExecution] = {}
        for execution in data["assetCheckExecutions"]:  # newest first
            partition = execution["partition"]
            if partition is None or partition in latest:
                continue
            evaluation = execution["evaluation"] or {}
            latest[partition] = CheckExecution(
                partition=partition,
                status=execution["status"],
                success=evaluation.get("success"),
                run_id=execution["runId"],
            )
        return latest

    def runs(self, job: str, limit: int = 1000) -> list[RunSummary]:
        """The job's runs, newest first."""
        return self._runs({"pipelineName": job}, limit)

    def runs_with_tag(self, key: str, value: str, limit: int = 1000) -> list[RunSummary]:
        """The runs carrying a tag (e.g. ``dagster/backfill`` = a backfill id), newest first."""
        return self._runs({"tags": [{"key": key, "value": value}]}, limit)

    def _runs(self, run_filter: dict[str, Any], limit: int) -> list[RunSummary]:
        data = self.query(_RUNS, {"filter": run_filter, "limit": limit})["runsOrError"]
        if data["__typename"] != "Runs":
            raise GraphQLError(f"runs: {data.get('message', data['__typename'])}")
        runs = []
        for run in data["results"]:
            tags = {tag["key"]: tag["value"] for tag in run["tags"]}
            runs.append(
                RunSummary(
                    run_id=run["runId"],
                    status=run["status"],
                    partition=tags.get(PARTITION_TAG),
                    creation_time=run["creationTime"],
                    tags=tags,
                )
            )
        return runs

    def run_failures(self, run_id: str) -> list[str]:
        """``step: message`` of every event of a run that carries an error (for failure messages).

        A step's failure gives its error; a run-level failure ("An exception was thrown during
        execution") gives the exception's class, message and the last lines of its stack, which
        the run failure event carries but its message does not.
        """
        data = self.query(_RUN_FAILURES, {"runId": run_id})["logsForRun"]
        failures = []
        for event in data.get("events", []):
            error = event.get("error")
            if event["__typename"] not in _FAILURE_EVENTS and not error:
                continue
            parts = [(event.get("message") or "").strip()]
            if error:
                cause = ((error.get("cause") or {}).get("message") or "").strip()
                parts.append(f"{error.get('className')}: {error['message'].strip()}")
                parts.append(f"caused by: {cause}" if cause else "")
                parts.extend("".join(error.get("stack") or []).strip().splitlines()[-_STACK_LINES:])
            failures.append(f"{event.get('stepKey') or 'run'}: {' | '.join(p for p in parts if p)}")
        return failures

    def sensor_ticks(self, ref: JobRef, sensor: str, limit: int = 50) -> list[SensorTick]:
        """The sensor's latest ticks, newest first, with their log lines."""
        selector = {**ref.repository_selector(), "sensorName": sensor}
        data = self.query(_SENSOR_TICKS, {"selector": selector, "limit": limit})["sensorOrError"]
        if data["__typename"] != "Sensor":
            raise GraphQLError(f"sensor {sensor!r}: {data.get('message', data['__typename'])}")
        return [
            SensorTick(
                tick_id=tick["tickId"],
                status=tick["status"],
                timestamp=tick["timestamp"],
                log_lines=[(e["level"], e["message"]) for e in tick["logEvents"]["events"]],
                error=(tick["error"] or {}).get("message"),
            )
            for tick in data["sensorState"]["ticks"]
        ]

    def launch_asset_backfill(
        self, assets: list[str], partitions: list[str], title: str = ""
    ) -> str:
        """Launch a backfill of ``assets`` over ``partitions`` (what the UI's Materialize
        dialog does); return its id."""
        params = {
            "assetSelection": [{"path": asset.split("/")} for asset in assets],
            "partitionNames": partitions,
            "fromFailure": False,
            "title": title or None,
        }
        data = self.query(_LAUNCH_BACKFILL, {"params": params})["launchPartitionBackfill"]
        if data["__typename"] != "LaunchBackfillSuccess":
            raise GraphQLError(f"backfill: {data.get('message', data['__typename'])}")
        backfill_id: str = data["backfillId"]
        return backfill_id

    def backfill(self, backfill_id: str) -> dict[str, Any]:
        """``{"status", "numPartitions", "partitionNames", "title", "error"}`` of a backfill."""
        data = self.query(_BACKFILL, {"id": backfill_id})["partitionBackfillOrError"]
        if data["__typename"] != "PartitionBackfill":
            raise GraphQLError(f"backfill {backfill_id}: {data.get('message', data['__typename'])}")
        result: dict[str, Any] = data
        return result

    def backfills(self, limit: int = 50) -> list[dict[str, Any]]:
        """The newest backfills: id, status, title, partition names."""
        data = self.query(_BACKFILLS, {"limit": limit})["partitionBackfillsOrError"]
        if data["__typename"] != "PartitionBackfills":
            raise GraphQLError(f"backfills: {data.get('message', data['__typename'])}")
        results: list[dict[str, Any]] = data["results"]
        return results

    def instance(self) -> dict[str, Any]:
        """Run queuing, the run queue's limits, the run launcher and the pool settings."""
        data: dict[str, Any] = self.query(_INSTANCE)["instance"]
        return data

    def sensor_status(self, ref: JobRef, sensor: str) -> str:
        """``RUNNING`` or ``STOPPED``."""
        selector = {**ref.repository_selector(), "sensorName": sensor}
        data = self.query(_SENSOR_TICKS, {"selector": selector, "limit": 1})["sensorOrError"]
        if data["__typename"] != "Sensor":
            raise GraphQLError(f"sensor {sensor!r}: {data.get('message', data['__typename'])}")
        status: str = data["sensorState"]["status"]
        return status

    def stop_sensor(self, ref: JobRef, sensor: str) -> str:
        """Stop ``sensor`` (the UI's toggle); return its new status (``STOPPED``)."""
        selector = {**ref.repository_selector(), "sensorName": sensor}
        data = self.query(_SENSOR_ID, {"selector": selector})["sensorOrError"]
        if data["__typename"] != "Sensor":
            raise GraphQLError(f"sensor {sensor!r}: {data.get('message', data['__typename'])}")
        stopped = self.query(_STOP_SENSOR, {"id": data["id"]})["stopSensor"]
        if stopped["__typename"] != "StopSensorMutationResult":
            raise GraphQLError(f"stop {sensor!r}: {stopped.get('message', stopped['__typename'])}")
        status: str = stopped["instigationState"]["status"]
        return status


_WORKSPACE = """
{ workspaceOrError { __typename
  ... on PythonError { message }
  ... on Workspace { locationEntries { name
    locationOrLoadError { __typename
      ... on PythonError { message }
      ... on RepositoryLocation { name repositories { name jobs { name } } } } } } } }
"""

_JOB_ASSETS = """
query ($pipeline: PipelineSelector!) { assetNodes(pipeline: $pipeline) {
  assetKey { path }
  assetChecksOrError { __typename ... on AssetChecks { checks { name } } } } }
"""

_ASSET_PARTITIONS = """
query ($key: AssetKeyInput!) { assetNodeOrError(assetKey: $key) { __typename
  ... on AssetNotFoundError { message }
  ... on AssetNode { partitionKeysByDimension { name partitionKeys } } } }
"""

_LATEST_MATERIALIZATIONS = """
query ($key: AssetKeyInput!, $partitions: [String!]!) {
  assetNodeOrError(assetKey: $key) { __typename
    ... on AssetNotFoundError { message }
    ... on AssetNode { latestMaterializationByPartition(partitions: $partitions) {
      partition runId } } } }
"""

_CHECK_EXECUTIONS = """
query ($key: AssetKeyInput!, $check: String!, $limit: Int!) {
  assetCheckExecutions(assetKey: $key, checkName: $check, limit: $limit) {
    partition status runId evaluation { success } } }
"""

_RUNS = """
query ($filter: RunsFilter, $limit: Int) { runsOrError(filter: $filter, limit: $limit) {
  __typename
  ... on PythonError { message }
  ... on Runs { results { runId status creationTime tags { key value } } } } }
"""

_FAILURE_EVENTS = ("ExecutionStepFailureEvent", "RunFailureEvent")
#: Stack lines of an error kept in a failure message (its innermost frames).
_STACK_LINES = 6
_RUN_FAILURES = """
query ($runId: ID!) { logsForRun(runId: $runId, limit: 1000) { __typename
  ... on EventConnection { events { __typename
    ... on MessageEvent { message }
    ... on StepEvent { stepKey }
    ... on ErrorEvent { error { className message stack cause { message } } } } } } }
"""

_SENSOR_TICKS = """
query ($selector: SensorSelector!, $limit: Int) { sensorOrError(sensorSelector: $selector) {
  __typename
  ... on PythonError { message }
  ... on SensorNotFoundError { message }
  ... on Sensor { sensorState { status ticks(limit: $limit) {
    tickId status timestamp error { message } logEvents { events { level message } } } } } } }
"""

_SENSOR_ID = """
query ($selector: SensorSelector!) { sensorOrError(sensorSelector: $selector) {
  __typename ... on PythonError { message } ... on SensorNotFoundError { message }
  ... on Sensor { id } } }
"""

_STOP_SENSOR = """
mutation ($id: String!) { stopSensor(id: $id) {
  __typename ... on PythonError { message } ... on UnauthorizedError { message }
  ... on StopSensorMutationResult { instigationState { status } } } }
"""

_LAUNCH_BACKFILL = """
mutation ($params: LaunchBackfillParams!) { launchPartitionBackfill(backfillParams: $params) {
  __typename
  ... on LaunchBackfillSuccess { backfillId }
  ... on PythonError { message }
  ... on InvalidStepError { invalidStepKey }
  ... on InvalidOutputError { invalidOutputName }
  ... on UnauthorizedError { message } } }
"""

_BACKFILL_FIELDS = "id status numPartitions partitionNames title error { message }"

_BACKFILL = (
    "query ($id: String!) { partitionBackfillOrError(backfillId: $id) { __typename "
    "... on PythonError { message } ... on BackfillNotFoundError { message } "
    "... on PartitionBackfill { " + _BACKFILL_FIELDS + " } } }"
)

_BACKFILLS = (
    "query ($limit: Int) { partitionBackfillsOrError(limit: $limit) { __typename "
    "... on PythonError { message } "
    "... on PartitionBackfills { results { " + _BACKFILL_FIELDS + " } } } }"
)

_INSTANCE = """
{ instance { runQueuingSupported runLauncher { name }
  runQueueConfig { maxConcurrentRuns tagConcurrencyLimitsYaml isOpConcurrencyAware }
  supportsConcurrencyLimits
  poolConfig { poolGranularity defaultPoolLimit } } }
"""
