#!/usr/bin/env python3
"""Rebuilds the seed corpora in tests/fuzz/corpus/NAME/ from the project's
own test inputs and documentation examples (run from the repository root
when those change; the corpora are committed). Targets that read a leading
mode byte (skill, config, extract) get each seed under every mode."""
import glob
import hashlib
import json
import os
import re
import shutil

ROOT = os.getcwd()
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")


def put(target, data, modes=None):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    for m in (modes if modes is not None else [None]):
        blob = data if m is None else bytes([m]) + data
        name = hashlib.sha1(blob).hexdigest()
        with open(os.path.join(d, name), "wb") as f:
            f.write(blob)


def fences(path, langs):
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r"```(\w*)\n(.*?)```", text, re.S):
        if m.group(1) in langs:
            yield m.group(2)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    # SKILL.md: the validation corpus and the example skills.
    for f in sorted(glob.glob("tests/corpus/**/SKILL.md", recursive=True) +
                    glob.glob("tests/corpus/**/skill.md", recursive=True) +
                    glob.glob("skills/*/SKILL.md")):
        put("skill", open(f, "rb").read()[:16384], [0, 3])
    # Test files: the example skills' skill_meta.json, the documented formats.
    for f in sorted(glob.glob("skills/*/skill_meta.json") +
                    glob.glob("tests/corpus/**/skill_meta.json", recursive=True)):
        put("tests", open(f, "rb").read())
    for block in fences("docs/tests-format.md", {"json", ""}):
        if block.lstrip()[:1] in "[{":
            put("tests", block)
    put("tests", '{"cases": [{"input": "x", "verifiers": [{"type": "contains", "value": "y"}],'
                 ' "files": {"a.txt": "hi"}}]}')
    put("tests", '[{"input": "x", "expected": {"contains": ["y"]}, "files": ["ref.txt", "../out"]}]')
    put("tests", '{"skill_name": "x", "evals": [{"id": 1, "prompt": "p", "expected_output": "o",'
                 ' "files": ["ref.txt"], "expectations": ["e"]}]}')
    put("tests", '{"tests": [{"input": "k", "fixture": "softmax"}]}')
    # skillci.yml / upskill.config.yaml.
    for f in sorted(glob.glob("skills/*.yml") + glob.glob("*.yml")):
        put("config", open(f, "rb").read(), [0, 1])
    for block in fences("docs/config.md", {"yaml", "yml", ""}):
        put("config", block, [0, 1])
    put("config", """version: 1
models: [anthropic.claude-sonnet-4-5, "openai.gpt-5?reasoning=high"]
runs: 3
max_turns: 2
fixtures: fixtures
skills_dir: skills
arch: sm_90
concurrency: 8
per_provider: {anthropic: 4, openai: 2}
request_timeout: 120
kernel_timeout: 30
cache: {dir: .skillci/cache, mode: refresh}
store: .skillci/results.db
judge: {model: anthropic.claude-haiku-4-5, rubric: "be fair"}
gate: {pass_rate_drop: 5, alpha: 0.05, tokens_rise: 20, require_lift: true}
skills:
  - skill: skills/cuda-kernels
    tests: [skills/cuda-kernels/extra.json]
    fixtures: [softmax, gemm]
reports: {junit: r.xml, markdown: r.md, html: r.html, json: r.json}
""", [0])
    put("config", "model: sonnet\ntest_gen_model: haiku\nmax_refine_attempts: 3\nruns_dir: runs\n", [1])
    # Fixture specs.
    for f in sorted(glob.glob("fixtures/*/spec.json")):
        put("spec", open(f, "rb").read())
    # Answers: bare sources and the same wrapped in Markdown answers.
    srcs = sorted(glob.glob("fixtures/*/solution.cu") + glob.glob("fixtures/*/baseline.cu") +
                  glob.glob("tests/kernels/*.cu"))
    for f in srcs:
        src = open(f, "rb").read()[:8192]
        put("extract", src, [1, 3])
        md = b"Here is the kernel.\n\n```cuda\n" + src + b"```\n\nAnd a note.\n"
        put("extract", md, [0, 2])
    put("extract", "```\n__global__ void k(float *x) {}\n```\n```cpp\n__global__ void k(int) {}\n```\n", [2])
    # Provider bodies: answers and errors as the APIs send them.
    put("anthropic", json.dumps({"id": "msg_1", "type": "message", "role": "assistant",
                                 "content": [{"type": "thinking", "thinking": "t"},
                                             {"type": "text", "text": "hello"}],
                                 "usage": {"input_tokens": 10, "output_tokens": 5,
                                           "cache_read_input_tokens": 2,
                                           "cache_creation_input_tokens": 1}}))
    put("anthropic", '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')
    put("anthropic", '{"content": [], "usage": {"input_tokens": -1}}')
    put("openai", json.dumps({"id": "c1", "object": "chat.completion",
                              "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"},
                                           "finish_reason": "stop"}],
                              "usage": {"prompt_tokens": 12, "completion_tokens": 3,
                                        "prompt_tokens_details": {"cached_tokens": 4}}}))
    put("openai", '{"choices": [{"message": {"content": null}}]}')
    put("openai", '{"error": {"type": "invalid_request_error", "message": "bad"}}')
    put("openai", '{"error": "plain"}')
    put("openai", '{"detail": "Not found"}')
    # PTX as NVRTC writes it (tests/fuzz/ptx/: fixture kernels and the
    # planted scan dodges, made with NVRTC where the toolkit is), and the
    # shapes the parser must follow; the leading byte picks the rules.
    ptx_head = ".version 9.0\n.target sm_90\n.address_size 64\n"
    ptx_entry = ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b64 %rd<8>;\n"
    snippets = [
        ".global .align 4 .u32 n;\n" + ptx_entry + "\tmov.u64 %rd1, n;\n\tcvta.global.u64 %rd2, %rd1;\n"
        "\tatom.add.u32 %r1, [%rd2], 1;\n}\n",
        ".const .align 4 .b8 t[8];\n" + ptx_entry + "\t/* } // */ cvta.const.u64 %rd1, t;\n\tst.u32 [%rd1], 1;\n}\n",
        ptx_entry + "\t{ .reg .b64 %rd1; mov.u64 %rd1, %globaltimer; }\n\t.pragma \"}\";\n\tnanosleep.u32 5;\n}\n",
        ".func (.param .b64 func_retval0) f(.param .b64 f_param_0)\n{\n\tld.param.u64 %rd1, [f_param_0];\n"
        "\tst.param.b64 [func_retval0+0], %rd1;\n\tret;\n}\n.global .u32 g;\n" + ptx_entry +
        "\tmov.u64 %rd1, g;\n\t{ .param .b64 p0; st.param.b64 [p0+0], %rd1; .param .b64 r0;\n"
        "\tcall.uni (r0), f, (p0);\n\tld.param.b64 %rd2, [r0+0]; }\n\tst.global.u32 [%rd2], 1;\n}\n",
        ptx_entry + "\tcvt.rna.tf32.f32 %r1, %f1;\n\tmov.b32 %f2, %r1;\n\tsub.f32 %f3, %f1, %f2;\n"
        "\tcvt.rna.tf32.f32 %r2, %f3;\n\tcvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;\n\tdp4a.s32.s32 %r3, %r1, %r2, 0;\n}\n",
        ptx_entry + "\tmov.u32 %r1, %gridid;\n\tmov.u32 %r2, %pm0_64;\n#define X 1\n}\n",
    ]
    for snip in snippets:
        put("ptx", ptx_head + snip, [0, 2, 3, 4 | 16, 8 | 16])
    for f in sorted(glob.glob("tests/fuzz/ptx/*.ptx")):
        put("ptx", open(f, "rb").read()[:65535], [0, 2 | 16, 8 | 16])
    # Results files: the golden inputs.
    for f in sorted(glob.glob("tests/golden/inputs/*.json")):
        put("results", open(f, "rb").read())


if __name__ == "__main__":
    main()
