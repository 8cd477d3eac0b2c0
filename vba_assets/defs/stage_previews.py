"""Read a stage's artifacts and render its UI preview."""

from vba_assets.context_show import accepted_manifest_markdown
from vba_assets.defs import previews
from vba_assets.pipeline.artifacts import load_captures, load_plan
from vba_assets.pipeline.revision import RevisionEnv
from vba_assets.pipeline.stages import StageResult


def stage_preview(env: RevisionEnv, stage: StageResult) -> str:
    """The stage's preview; a model stage's adds the context manifest of its accepted request."""
    preview = _stage_preview(env, stage)
    table = None
    if stage.status == "accepted" and stage.relpath:
        table = accepted_manifest_markdown(env.package, stage.relpath)
    return f"{preview}\n\n{table}" if table else preview


def _stage_preview(env: RevisionEnv, stage: StageResult) -> str:
    if stage.status == "disabled":
        return (
            "entity resolution **disabled**: no `[entity_resolution]` block in the project config"
        )
    read = env.package.read_json
    if stage.stage == "resolution_plan":
        return previews.plan_markdown(read(f"{env.er_dir}/plan.json"))
    if stage.stage == "resolution_captures":
        plan = load_plan(env)
        captures = load_captures(env)
        ids = [f"Q{n}" for n in range(1, len(plan.searches) + 1)] if plan else []
        return previews.captures_markdown(
            [(sid, captures[sid][0], captures[sid][1].model_dump(mode="json")) for sid in ids]
        )
    if stage.stage == "candidate_index":
        return previews.candidates_markdown(read(f"{env.er_dir}/candidates.json"))
    if stage.stage == "resolution_assessment":
        context = f"{env.er_dir}/context.json"
        return previews.assessment_markdown(
            read(f"{env.er_dir}/assessment.json"),
            read(context) if env.package.exists(context) else None,
        )
    return previews.interpretation_markdown(read(f"{env.rev_dir}/interpretation.json"))
