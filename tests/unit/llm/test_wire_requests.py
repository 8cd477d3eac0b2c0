"""What each provider actually sends, per protocol version: golden wire bodies of BUG-000020.

``tests/golden/wolpertinger_requests.json`` pins the provider-neutral requests (the replay keys);
this file pins the bodies each provider puts on the wire for them (``wire_request``, the body a
dispatch record keeps), for every provider configuration a revision can be frozen with. The pins
of protocol 1-3 were taken before protocol 4 changed any request shape and never move; protocol 4
pins are regenerated while it is open (``VBA_UPDATE_SNAPSHOTS=1``).
"""

import hashlib
from typing import Any

from resources.llm import ProviderOptions, build_provider
from tests.golden import assert_golden
from tests.unit.test_stage_requests import PROMPTS_OF, all_requests
from vba_assets.domain.canonical import canonical_bytes
from vba_assets.domain.prompting.requests import RequestParams
from vba_assets.llm_config import parse_llm_config, schema_dialect
from vba_assets.provider_registry import PROVIDERS

NAMES = ("resolution_plan", "resolution_assessment", "interpretation", "unresolved")


#: The response formats protocol 1-3 revisions were made with (the others are protocol 4's).
LEGACY_FORMATS = {"anthropic/tool_use", "openai_compatible/json_object", "openai_compatible/text"}
#: What a protocol 4 response format sends for a request made before protocol 4.
SAME_AS_BEFORE_4 = {
    "anthropic/strict_tool": "anthropic/tool_use",
    "anthropic/json_schema": "anthropic/tool_use",
    "openai_compatible/json_schema": "openai_compatible/json_object",
}


def provider_configs() -> dict[str, dict[str, Any]]:
    """Every (provider, response format) a config can select, for the network providers."""
    configs: dict[str, dict[str, Any]] = {}
    for spec in PROVIDERS.values():
        if not spec.network:
            continue
        for response_format in spec.response_formats:
            document: dict[str, Any] = {
                "provider": spec.name,
                "model": "test-model",
                "response_format": response_format,
            }
            if spec.requires_base_url:
                document["base_url"] = "http://127.0.0.1:9/v1"
            configs[f"{spec.name}/{response_format}"] = document
    return configs


def wire_bodies(
    protocol: int, document: dict[str, Any], frozen_with: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The bodies a provider built from ``document`` sends for a revision whose schema dialect
    was frozen from ``frozen_with`` (default: the same config)."""
    config = parse_llm_config(dict(document), source="test")
    frozen = parse_llm_config(dict(frozen_with or document), source="test")
    provider = build_provider(config, ProviderOptions(env={"ANTHROPIC_API_KEY": "unused"}))
    params = RequestParams(
        model="test-model", max_tokens=4096, temperature=0.0, dialect=schema_dialect(frozen)
    )
    return [
        provider.wire_request(request, request.messages)
        for request in all_requests(protocol, params)
    ]


def test_the_wolpertinger_wire_bodies_keep_their_golden_bytes() -> None:
    pins: dict[str, str] = {}
    for name, document in provider_configs().items():
        for protocol in PROMPTS_OF if name in LEGACY_FORMATS else [4, 5]:
            for stage, body in zip(NAMES, wire_bodies(protocol, document), strict=True):
                digest = hashlib.sha256(canonical_bytes(body)).hexdigest()
                pins[f"v{protocol}/{name}/{stage}"] = digest
    assert_golden("wolpertinger_wire_requests.json", pins)


def test_before_protocol_4_every_response_format_sends_what_its_revision_sent() -> None:
    """A revision frozen at protocol 1-3 keeps its wire bodies under a protocol 4 config."""
    configs = provider_configs()
    assert set(configs) == LEGACY_FORMATS | set(SAME_AS_BEFORE_4)
    for new, old in SAME_AS_BEFORE_4.items():
        for protocol in (1, 2, 3):
            frozen = configs[old]  # what a protocol 1-3 revision froze
            assert wire_bodies(protocol, configs[new], frozen) == wire_bodies(protocol, frozen)
