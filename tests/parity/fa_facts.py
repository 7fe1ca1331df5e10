#!/usr/bin/env python3
"""Prints, as JSON, the model-string facts of the fast-agent installed in
the running interpreter: its version, its provider names, its aliases
(presets, with the entries of its model catalog that the parser adds) and
the bare model names it gives a default provider. Run it with the python
of a virtual environment that tests/install-deps.sh made; gen_tables.py
turns the facts of every supported version into
runner/providers/model_tables.c.

Settings of the user's own fast-agent configuration (model overlays under
$HOME or the current folder) are kept out: HOME points at an empty
folder and the current folder is one."""
import importlib.metadata
import json
import os
import sys
import tempfile


def isolate():
    """HOME and the current folder an empty folder: no user overlay applies."""
    empty = tempfile.mkdtemp(prefix="fa-facts-")
    os.environ["HOME"] = empty
    for var in ("FAST_AGENT_HOME", "ENVIRONMENT_DIR", "HF_DEFAULT_PROVIDER"):
        os.environ.pop(var, None)
    os.chdir(empty)


def facts():
    """The facts of the fast-agent installed here (isolate() first)."""
    from fast_agent.llm.model_factory import ModelFactory
    from fast_agent.llm.provider_types import Provider

    out = {
        "version": importlib.metadata.version("fast-agent-mcp"),
        "providers": [p.value for p in Provider],
    }
    if hasattr(ModelFactory, "MODEL_ALIASES"):  # 0.4.x
        out["aliases"] = dict(ModelFactory.MODEL_ALIASES)
        out["bare"] = {k: p.value for k, p in ModelFactory.DEFAULT_PROVIDERS.items()}
        out["bare_case"] = "exact"
    else:
        out["aliases"] = dict(ModelFactory.get_runtime_presets())
        from fast_agent.llm.model_database import ModelDatabase
        # the provider fast-agent's own lookup gives each name of its model
        # database (names it retired give none)
        out["bare"] = {}
        for k in ModelDatabase.MODELS:
            prov = ModelDatabase.get_default_provider(k)
            if prov is not None:
                out["bare"][k] = prov.value
        out["bare_case"] = "lower"
    return out


def main():
    isolate()
    json.dump(facts(), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
