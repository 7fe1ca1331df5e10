#!/usr/bin/env python3
"""Reads model strings, one a line on standard input, with the model
factory of the fast-agent installed in the running interpreter, and prints
for each one JSON object a line: {"in", "ok": true, "provider", "model",
"reasoning": {"kind", "value"}, and each setting} or {"in", "ok": false,
"error"}, the shape `skillci help models --parse` prints skillci's reading
in (tests/parity/parity.py compares the two).

It calls fast-agent's own parser (ModelFactory.parse_model_string, the
function fast-agent's model factory and upskill call) and nothing else:
no model is created and no network is used. The user's own fast-agent
settings (model overlays under $HOME, an environment folder) are kept out:
HOME and the current folder are an empty folder. With --facts, the first
line is {"facts": ...}, what fa_facts.py prints, from the same process."""
import importlib.metadata
import json
import os
import sys

SETTINGS = ("verbosity", "structured", "long_context", "transport", "service_tier",
            "web_search", "web_fetch", "temperature", "top_p", "top_k", "min_p",
            "presence_penalty", "repetition_penalty", "max_tokens")
FIELDS = {"verbosity": "text_verbosity", "structured": "structured_output_mode"}


def reading(config):
    out = {"provider": config.provider.value, "model": config.model_name}
    r = config.reasoning_effort
    out["reasoning"] = None if r is None else {"kind": r.kind, "value": r.value}
    for key in SETTINGS:
        out[key] = getattr(config, FIELDS.get(key, key), None)
    return out


def main():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import fa_facts

    fa_facts.isolate()
    from fast_agent.llm.model_factory import ModelFactory

    if "--version" in sys.argv:
        print(importlib.metadata.version("fast-agent-mcp"))
        return
    if "--facts" in sys.argv:  # the version's facts first, in the same process
        print(json.dumps({"facts": fa_facts.facts()}))
    for line in sys.stdin:
        name = line.rstrip("\r\n")
        try:
            obj = {"in": name, "ok": True}
            obj.update(reading(ModelFactory.parse_model_string(name)))
        except Exception as e:  # every refusal, whatever its class
            obj = {"in": name, "ok": False, "error": "%s: %s" % (type(e).__name__, e)}
        print(json.dumps(obj), flush=False)


if __name__ == "__main__":
    main()
