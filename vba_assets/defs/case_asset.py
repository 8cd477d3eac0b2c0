"""The ``case`` asset: the deterministic case.json of one case, per (case, revision) partition."""

from typing import Any

import dagster as dg

from resources.dagster_resources import ProjectResource
from vba_assets.defs.failures import as_dagster_failure
from vba_assets.defs.partitions import case_revision_partitions, parse_partition_key
from vba_assets.defs.previews import case_preview_markdown
from vba_assets.store import sha256_hex

CASE_CHECK_SOURCES = "case_sources_readable"


@dg.asset(
    partitions_def=case_revision_partitions,
    group_name="case_interpretation",
    kinds={"json"},
    description="case.json: the deterministic CaseBuilder output with canonical sources S1..Sn.",
    check_specs=[
        dg.AssetCheckSpec(
            CASE_CHECK_SOURCES,
            asset="case",
            blocking=True,
            partitions_def=case_revision_partitions,
            description="case.json is canonical, its hash matches the package record, and at "
            "least one source is readable by the model.",
        )
    ],
)
def case(context: dg.AssetExecutionContext, project: ProjectResource) -> dg.MaterializeResult:
    with as_dagster_failure():
        case_id, revision = parse_partition_key(context.partition_key)
        package = project.workspace().case(case_id)
        case_bytes = package.read_bytes("case.json")
        case_doc: dict[str, Any] = package.read_json("case.json")  # verifies canonical form
        recorded = package.read_json("package.json").get("case_json_sha256")
    ref_sha = sha256_hex(case_bytes)
    readable = [s["alias"] for s in case_doc.get("sources", []) if s.get("readable")]
    problems = []
    if recorded != ref_sha:
        problems.append(f"package.json records case.json sha256 {recorded}, file has {ref_sha}")
    if not readable:
        problems.append("no source is readable by the model")
    return dg.MaterializeResult(
        data_version=dg.DataVersion(ref_sha),
        metadata={
            "case_id": case_id,
            "revision": revision,
            "sha256": ref_sha,
            "sources": len(case_doc.get("sources", [])),
            "readable_sources": ", ".join(readable) or "none",
            "path": dg.MetadataValue.path(str(package.root / "case.json")),
            "preview": dg.MetadataValue.md(case_preview_markdown(case_doc)),
        },
        check_results=[
            dg.AssetCheckResult(
                check_name=CASE_CHECK_SOURCES,
                passed=not problems,
                severity=dg.AssetCheckSeverity.ERROR,
                metadata={"problems": "; ".join(problems) or "none"},
            )
        ],
    )
