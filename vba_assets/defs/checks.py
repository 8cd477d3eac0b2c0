"""The asset checks: one check definition per stage, evaluated on every partition.

Each stage's checks (:attr:`vba_assets.pipeline.registry.StageSpec.checks`) are one
``multi_asset_check`` of their own, not inline ``check_specs`` of the asset: an inline check can
only run with its asset (the UI shows ``REQUIRES_MATERIALIZATION``), while these can also be
executed alone, e.g. after an operator inspected or repaired an artifact. They only read the case
package; they never run a stage.

In a run of ``interpret_cases`` each stage's check step runs right after its asset; a failed
*blocking* check (ERROR severity) stops the downstream assets of that run, whose steps are then
shown as not executed. Every evaluation is per partition (``partitions_def``).
"""

from collections.abc import Iterator

import dagster as dg

from vba_assets.defs.metadata import findings_table
from vba_assets.defs.partitions import case_revision_partitions, parse_partition_key
from vba_assets.defs.resources import ProjectResource
from vba_assets.pipeline.checks import CheckOutcome, evaluate_safely
from vba_assets.pipeline.frozen_revision import load_frozen
from vba_assets.pipeline.registry import STAGE_SPECS, CheckSpec, StageSpec


def check_result(asset: str, check: CheckSpec, outcome: CheckOutcome) -> dg.AssetCheckResult:
    """One evaluation: passed, the findings table, their codes, why it did not apply."""
    findings = outcome.findings
    return dg.AssetCheckResult(
        asset_key=asset,
        check_name=check.name,
        passed=outcome.passed,
        severity=dg.AssetCheckSeverity.ERROR,
        description=check.description,
        metadata={
            "findings": findings_table(findings),
            "codes": ", ".join(sorted({f.code.value for f in findings})) or "none",
            "skipped": outcome.skipped or "no",
        },
    )


def stage_checks(spec: StageSpec) -> dg.AssetChecksDefinition:
    """The checks of one stage, executable with the asset or on their own."""
    specs = [
        dg.AssetCheckSpec(
            check.name,
            asset=spec.name,
            blocking=check.blocking,
            partitions_def=case_revision_partitions,
            description=check.description,
        )
        for check in spec.checks
    ]

    @dg.multi_asset_check(
        name=f"{spec.name}_checks",
        specs=specs,
        can_subset=True,
        description=f"Re-derives what the {spec.name} stage enforced, from the case package "
        "alone (also for an artifact reused from an earlier run).",
    )
    def _checks(
        context: dg.AssetCheckExecutionContext, project: ProjectResource
    ) -> Iterator[dg.AssetCheckResult]:
        if not context.has_partition_key:
            # the UI's check page cannot pass a partition yet (Dagster 1.13); say how instead
            raise dg.Failure(
                description=f"{spec.name}'s checks evaluate one case revision: run them with a "
                f"partition, e.g. dagster job execute -m vba_assets.definitions -j interpret_cases "
                f'-o {spec.name}_checks --tags \'{{"dagster/partition": "BUG-000020|0001"}}\'',
                allow_retries=False,
            )
        case_id, revision = parse_partition_key(context.partition_key)
        rev = load_frozen(project.workspace().case(case_id), revision)
        selected = {key.name for key in context.selected_asset_check_keys}
        for check in spec.checks:
            if check.name in selected:
                yield check_result(spec.name, check, evaluate_safely(check.evaluate, rev))

    return _checks


#: One check definition per stage that has checks, in pipeline order.
CHECKS: list[dg.AssetChecksDefinition] = [stage_checks(spec) for spec in STAGE_SPECS if spec.checks]
