"""A whole revision through ``vba trial run`` with a server that puts the API key everywhere it can.

For both HTTP providers: the key in the request-id header of every reply, ``\\u``-escaped in the
reply id, in a stop reason, in a rejected plan's search term (escaped twice for the OpenAI-style
body, whose output is JSON text inside a JSON string) and in free text. The revision still
completes (rejections are corrected), and the key occurs nowhere: not in any file of the
workspace, not in the command's output, not in any log record, not in ``vba verify`` or
``vba context show``, not in any request the server received after the first.
"""

import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.http_server import ReceivedRequest, Scripted, ScriptedHTTPServer
from tests.fakes.model_apis import anthropic_message, openai_completion
from tests.fakes.scripted_provider import ScriptedProvider, from_stage_context
from tests.integration.llm.conftest import ANTHROPIC_CANARY, OPENAI_CANARY
from tests.integration.llm.test_llm_canaries import PLACEHOLDER, body_text, decoded
from tests.layout import REV1
from tests.pipeline.support import QUEST, assess_exact, imported, interpret, plan_reply
from vba_assets.cli import main as vba
from vba_assets.config import load_project_config
from vba_assets.llm_config import LlmConfig
from vba_assets.pipeline.trial import run_trial

pytestmark = pytest.mark.usefixtures("canary_keys")

REPO = Path(__file__).resolve().parents[3]
CASE = "BUG-000020"
_STAGE = re.compile(r"\(model call ([123])")
STAGES = {"1": "resolution_plan", "2": "resolution_assessment", "3": "interpretation"}


def project_file(root: Path) -> Path:
    """The CI MariaDB config pointed at the embedded demo DB (same tables, same catalogs)."""
    text = (REPO / "config" / "project.mariadb-ci.toml").read_text()
    text = re.sub(r"(?m)^url = .*$", 'url = "embedded:demo"', text)
    text = re.sub(r"(?m)^password_env = .*$", "", text)
    text = re.sub(r"(?m)^workspace = .*$", f'workspace = "{root / "ws"}"', text)
    path = root / "project.toml"
    path.write_text(text)
    return path


def accepted_outputs(root: Path) -> dict[str, Any]:
    """What a valid model would answer for the sample case: a fixture run's accepted outputs."""
    workspace, package = imported(root)
    case_doc = package.read_json("case.json")
    run_trial(
        workspace,
        CASE,
        "0001",
        load_project_config(project_file(root)),
        LlmConfig(provider="heuristic"),
        stop_after="interpretation",
        max_dispatches=6,
        provider=ScriptedProvider(
            {
                "resolution_plan": [plan_reply(case_doc, QUEST)],
                "resolution_assessment": [from_stage_context(assess_exact)],
                "interpretation": [from_stage_context(interpret)],
            }
        ),
    )
    return {
        "resolution_plan": package.read_json(REV1.plan)["plan"],
        "resolution_assessment": package.read_json(REV1.assessment)["assessment"],
        "interpretation": package.read_json(REV1.interpretation)["interpretation"],
    }


def leaky_server(provider: str, key: str, outputs: dict[str, Any]) -> Callable[..., Scripted]:
    """Answers each request by its stage; the first plan and assessment replies are rejected."""
    seen: dict[str, int] = {}

    def answer(received: ReceivedRequest) -> Scripted:
        body = received.json()
        stage = STAGES[_STAGE.search(json.dumps(body))[1]]  # type: ignore[index]
        seen[stage] = seen.get(stage, 0) + 1
        output, stop, text = outputs[stage], "end_turn", f"the key is {PLACEHOLDER}"
        if stage == "resolution_plan" and seen[stage] == 1:  # rejected: a term not in its quote
            output = json.loads(json.dumps(output))
            output["searches"][0]["term"] = PLACEHOLDER
        if stage == "resolution_assessment" and seen[stage] == 1:
            stop = PLACEHOLDER  # an unknown stop reason: never accepted
        headers = {"request-id": key, "x-request-id": key}
        if provider == "anthropic":
            tools = body.get("tools") or []
            if tools:
                message = anthropic_message(
                    tool_name=tools[0]["name"], tool_input=output, text=text
                )
            else:  # JSON output mode: the output is the text
                message = anthropic_message(text=json.dumps(output), stop_reason="end_turn")
            message = {
                **message,
                "id": PLACEHOLDER,
                "stop_reason": stop if stop != "end_turn" else message["stop_reason"],
            }
            return Scripted(200, body_text(message, key), headers=headers)
        completion = openai_completion(json.dumps(output))
        choice = {
            **completion["choices"][0],
            "finish_reason": "stop" if stop == "end_turn" else stop,
        }
        completion = {**completion, "id": PLACEHOLDER, "choices": [choice]}
        return Scripted(
            200,
            body_text(completion, key, depth=2 if stage == "resolution_plan" else 1),
            headers=headers,
        )

    return answer


def llm_file(root: Path, provider: str, url: str) -> Path:
    path = root / "llm.toml"
    if provider == "anthropic":
        lines = ['provider = "anthropic"', 'model = "claude-test-model"', f'base_url = "{url}"']
        lines.append('api_key_env = "ANTHROPIC_API_KEY"')
    else:
        lines = ['provider = "openai_compatible"', 'model = "test-model"', f'base_url = "{url}/v1"']
        lines.append('api_key_env = "OPENAI_API_KEY"')
    path.write_text("\n".join([*lines, "timeout_s = 5", ""]))
    return path


def workspace_texts(root: Path) -> list[tuple[str, str]]:
    return [
        (str(path), path.read_bytes().decode("utf-8", "replace"))
        for path in root.rglob("*")
        if path.is_file()
    ]


@pytest.mark.parametrize(
    ("provider", "key"), [("anthropic", ANTHROPIC_CANARY), ("openai_compatible", OPENAI_CANARY)]
)
def test_a_revision_through_a_key_echoing_server_stores_and_prints_no_key(
    provider: str,
    key: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    outputs = accepted_outputs(tmp_path / "fixture")
    real = tmp_path / "real"
    imported(real)
    project = project_file(real)
    with ScriptedHTTPServer(check=leaky_server(provider, key, outputs)) as server:
        workspace = str(real / "ws")
        code = vba(
            [
                "trial", "run", "--workspace", workspace, "--project-config", str(project),
                "--llm-config", str(llm_file(real, provider, server.url)), "--case-id", CASE,
                "--stop-after", "interpretation", "--max-dispatches", "10",
            ]
        )  # fmt: skip
        out, err = capsys.readouterr()
        assert code == 0, out + err
        assert vba(["verify", "--workspace", workspace, "--json"]) == 0
        for stage in ("resolution_plan", "resolution_assessment", "interpretation"):
            assert vba(["context", "show", "--workspace", workspace, "--case-id", CASE,
                        "--revision", "0001", "--stage", stage]) == 0  # fmt: skip
        later_requests = [r.body.decode("utf-8") for r in server.requests[1:]]
    outputs_printed = capsys.readouterr()
    texts = [
        ("trial run output", out + err),
        ("later output", outputs_printed.out + outputs_printed.err),
    ]
    texts += [("logs", caplog.text)]
    texts += [(f"request {n}", body) for n, body in enumerate(later_requests, start=2)]
    texts += workspace_texts(real)
    assert len(later_requests) >= 4  # plan x2, assessment x2, interpretation: the paths ran
    leaks = [where for where, text in texts if key in decoded(text)]
    assert leaks == []
    records = "".join(text for where, text in texts if "/dispatches/" in where)
    assert "[REDACTED]" in decoded(records)  # the key was there, and was redacted
