"""``vba eval --via dagster``: every evaluated case materialized through ``interpret_cases``.

ARCHITECTURE 15 ("One path"): the Dagster job is the product path, so the evaluation can run each
case the way the UI does. :class:`DagsterPath` is the Dagster implementation of
:class:`~vba_assets.evaluation.via.EvalPath`: one ephemeral instance per evaluation, the project's
own Definitions (:func:`vba_assets.defs.job.build_definitions`) with its real resources
configured from the evaluation's project and LLM config files, and one dynamic partition per case
(registered with :func:`vba_assets.defs.partitions.register`, its key built there). Each case is one
``execute_in_process`` run of the job; a step that fails re-raises the stage's
:class:`~vba_assets.errors.VbaError`, so the runner records the same error code as on the CLI path
and scores the artifacts the run wrote.

The one difference from a deployment is the workspace: like the CLI path, the evaluation writes to
its scratch workspace, not to the one its project config names (:class:`EvalProjectResource`).
"""

import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

import dagster as dg

from vba_assets.config import ProjectConfig, load_project_config
from vba_assets.defs.job import JOB_NAME, build_definitions
from vba_assets.defs.partitions import partition_key, register
from vba_assets.defs.resources import LlmResource, ProjectResource, WorldDatabaseResource
from vba_assets.errors import ConfigError, ErrorCode, VbaError
from vba_assets.evaluation.via import CaseRunner
from vba_assets.llm_config import LlmConfig, load_llm_config
from vba_assets.store import Workspace

#: What a project config's ``source`` is when it was not read from a file.
_EMBEDDED = "<embedded default>"
#: What an LLM config's ``source`` is when it was not read from a file.
_DEFAULT_LLM = "<default>"
#: Dagster's console log of each run, left for errors only (the runner prints one line per case;
#: the run's events are in the ephemeral instance).
_QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


class EvalProjectResource(ProjectResource):
    """The project resource, its workspace replaced by the evaluation's scratch workspace.

    Everything else (the configuration the stages freeze) is the file's, loaded by
    :class:`~vba_assets.defs.resources.ProjectResource`; the CLI path too runs the config with a
    scratch workspace and ignores the config's own ``workspace``.
    """

    workspace_root: str

    def workspace(self) -> Workspace:
        return Workspace(Path(self.workspace_root))


class EvalRunFailed(RuntimeError):
    """A run of the job failed or stopped without a stage error: a blocking check failed, or
    Dagster did.

    Not a property of the report (the CLI path runs no asset checks), so it stops the evaluation.
    """


class DagsterPath:
    """``--via dagster``: each case one in-process run of ``interpret_cases``, one run at a time
    (an instance is not shared between threads here, so ``--jobs`` only adds waiting).

    Args:
        instance: the Dagster instance the runs go to, left open (tests read its materializations);
            None: an ephemeral instance per evaluation, closed with the runner.
    """

    def __init__(self, instance: dg.DagsterInstance | None = None) -> None:
        self.instance = instance

    def open(
        self, workspace: Workspace, project: ProjectConfig, llm: LlmConfig
    ) -> AbstractContextManager[CaseRunner]:
        return _dagster_runner(workspace, project, llm, self.instance)


def config_files(project: ProjectConfig, llm: LlmConfig) -> tuple[str, str]:
    """The ``project_config`` and ``llm_config`` values of the resources: the files the configs
    were read from (empty for the embedded defaults).

    Raises:
        ConfigError: a config that is not what its file (or default) loads, e.g. one built in code:
            the resources can only read files.
    """
    project_file = "" if project.source == _EMBEDDED else project.source
    llm_file = "" if llm.source == _DEFAULT_LLM else llm.source
    loaded = load_project_config(project_file or None)
    if loaded.model_dump(exclude={"workspace"}) != project.model_dump(exclude={"workspace"}):
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            f"--via dagster reads the project config from its file, and {project.source} does not "
            "load as the config given",
            key="<file>",
        )
    if load_llm_config(llm_file or None) != llm:
        raise ConfigError(
            ErrorCode.CONFIG_INVALID,
            f"--via dagster reads the LLM config from its file, and {llm.source} does not load as "
            "the config given",
            key="<file>",
        )
    return project_file, llm_file


def eval_definitions(workspace: Workspace, project_file: str, llm_file: str) -> dg.Definitions:
    """The project's Definitions, its resources configured with the evaluation's files."""
    return build_definitions(
        project=EvalProjectResource(
            project_config=project_file, workspace_root=str(workspace.root)
        ),
        world_db=WorldDatabaseResource(project_config=project_file),
        llm=LlmResource(llm_config=llm_file),
    )


@contextmanager
def _dagster_runner(
    workspace: Workspace,
    project: ProjectConfig,
    llm: LlmConfig,
    given: dg.DagsterInstance | None,
) -> Iterator[CaseRunner]:
    project_file, llm_file = config_files(project, llm)
    job = eval_definitions(workspace, project_file, llm_file).resolve_job_def(JOB_NAME)
    lock = threading.Lock()
    with nullcontext(given) if given is not None else dg.DagsterInstance.ephemeral() as instance:

        def run(case_id: str, revision: str) -> None:
            key = partition_key(case_id, revision)
            with lock:
                register(instance, [(case_id, revision)])
                result = _execute(job, instance, key)
            _check_complete(result, key)

        yield run


def _execute(
    job: dg.JobDefinition, instance: dg.DagsterInstance, key: str
) -> dg.ExecuteInProcessResult:
    """One run of the job for one partition; a failed step raises the stage's error.

    In process, a step's :class:`dagster.Failure` is raised with the stage's :class:`VbaError` as
    its cause (:func:`vba_assets.defs.failures.as_dagster_failure`), and a resource that fails to
    start raises a Dagster error caused by it: that error is raised, as on the CLI path. A Dagster
    error with no stage error behind it (a failed blocking check) is :class:`EvalRunFailed`; any
    other exception of a step (a bug) is raised as it is, as on the CLI path.
    """
    try:
        return job.execute_in_process(
            partition_key=key, instance=instance, raise_on_error=True, run_config=_QUIET
        )
    except (dg.Failure, dg.DagsterError) as error:
        cause: BaseException | None = error
        while cause is not None and not isinstance(cause, VbaError):
            cause = cause.__cause__
        if cause is not None:
            raise cause from None
        raise EvalRunFailed(f"{key}: {type(error).__name__}: {error}") from error


def _check_complete(result: dg.ExecuteInProcessResult, key: str) -> None:
    """Raise :class:`EvalRunFailed` unless the run materialized every asset of the job."""
    expected = {a.to_user_string() for a in result.job_def.asset_layer.selected_asset_keys}
    written = {
        event.asset_key.to_user_string()
        for event in result.get_asset_materialization_events()
        if event.asset_key is not None
    }
    if not result.success or written != expected:
        failed = [e.check_name for e in result.get_asset_check_evaluations() if not e.passed]
        raise EvalRunFailed(
            f"{key}: the run materialized {sorted(written)} of {sorted(expected)} (success: "
            f"{result.success}; failed checks: {failed or 'none'})"
        )
