#!/usr/bin/env python3
"""Writes runner/providers/model_tables.c, the alias and bare-name tables
of every supported fast-agent version, from the facts fa_facts.py printed
for each (one JSON file per version, oldest first):

    for v in 0.4.53 0.6.7 0.10.48; do
        ~/.cache/skillci/fast-agent/$v/bin/python tests/parity/fa_facts.py > /tmp/$v.json
    done
    python3 tests/parity/gen_tables.py /tmp/0.4.53.json /tmp/0.6.7.json /tmp/0.10.48.json \
        > runner/providers/model_tables.c

A version's bit is SC_FA_V<major>_<minor>_<patch> of model_tables.h, which
names the versions in the same order. Aliases whose names skillci refuses
as model names (blanks, quotes, backslashes, non-ASCII: fast-agent's
display names such as "Grok 4.7 (X Search)") are left out, and listed in
the file's head. tests/e2e/test_parity.sh checks the result against
fast-agent's own parser."""
import json
import sys


def bit(version):
    return "SC_FA_V" + version.replace(".", "_")


def mask(versions, order):
    return " | ".join(bit(v) for v in order if v in versions)


def name_ok(name):
    return all(" " < ch < "\x7f" and ch not in "\"\\" for ch in name)


def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main(paths):
    facts = [json.load(open(p)) for p in paths]
    order = [f["version"] for f in facts]
    presets, bare, skipped = {}, {}, set()
    for f in facts:
        for name, target in f["aliases"].items():
            if not name_ok(name):
                skipped.add(name)
                continue
            presets.setdefault((name, target), set()).add(f["version"])
        for name, provider in f["bare"].items():
            bare.setdefault((name, provider), set()).add(f["version"])
    out = sys.stdout
    out.write("/*\n * The model-string facts of each supported fast-agent version (%s):\n"
              % ", ".join(order))
    out.write(" * its aliases (ModelFactory's presets and the catalog entries its parser\n"
              " * adds) and the bare model names it gives a default provider. Generated\n"
              " * by tests/parity/gen_tables.py from each version's own tables; do not\n"
              " * edit by hand. tests/e2e/test_parity.sh checks the parser against\n"
              " * fast-agent's own.\n")
    if skipped:
        out.write(" *\n * Left out (display names that are no model name here):\n")
        for name in sorted(skipped):
            out.write(" *   %s\n" % name)
    out.write(" */\n#include \"common.h\"\n#include \"providers/model_tables.h\"\n\n")
    out.write("const struct sc_fa_preset sc_fa_presets[] = {\n")
    for (name, target), vs in sorted(presets.items(), key=lambda kv: (kv[0][0].lower(), kv[0][0], kv[0][1])):
        out.write("\t{ %s, %s, %s },\n" % (cstr(name), cstr(target), mask(vs, order)))
    out.write("};\nconst size_t sc_fa_npresets = SC_ARRAY_SIZE(sc_fa_presets);\n\n")
    out.write("const struct sc_fa_bare sc_fa_bare[] = {\n")
    for (name, provider), vs in sorted(bare.items()):
        out.write("\t{ %s, %s, %s },\n" % (cstr(name), cstr(provider), mask(vs, order)))
    out.write("};\nconst size_t sc_fa_nbare = SC_ARRAY_SIZE(sc_fa_bare);\n")


if __name__ == "__main__":
    main(sys.argv[1:])
