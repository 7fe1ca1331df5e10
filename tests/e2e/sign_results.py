#!/usr/bin/env python3
"""Signs a results JSON file as skillci's writer does (docs/security.md,
"Teacher answers, artifacts and the shared store"), for end-to-end suites
that edit a shard on purpose to test what merge does with it.

Usage: sign_results.py FILE [OUT]

The document is rewritten with json.dumps(indent=1) (an existing
"signature" member dropped), then the member

  ,\\n "signature": {\\n  "key": FPR,\\n  "mac": HEX\\n }\\n}\\n

is put at its end: HMAC-SHA-256, under the runner key, of
"skillci-results/1\\0" and the bytes before it followed by "\\n}\\n". The
key is the one skillci would use: SKILLCI_RUNNER_KEY (else
SKILLCI_CACHE_KEY) hashed as secret.c hashes it, else the key file
(SKILLCI_RUNNER_KEY_FILE, $XDG_CONFIG_HOME/skillci/runner.key,
$HOME/.config/skillci/runner.key).
"""
import hashlib
import hmac
import json
import os
import sys


def runner_key():
    for var in ("SKILLCI_RUNNER_KEY", "SKILLCI_CACHE_KEY"):
        v = os.environ.get(var)
        if v:
            return hashlib.sha256(b"skillci-runner-key\0" + v.encode()).digest()
    path = os.environ.get("SKILLCI_RUNNER_KEY_FILE")
    if not path:
        xdg = os.environ.get("XDG_CONFIG_HOME")
        path = (xdg + "/skillci/runner.key") if xdg and xdg.startswith("/") else \
            os.environ["HOME"] + "/.config/skillci/runner.key"
    return bytes.fromhex(open(path).read().strip())


def main():
    src = sys.argv[1]
    dst = sys.argv[2] if len(sys.argv) > 2 else src
    d = json.load(open(src, encoding="utf-8"))
    d.pop("signature", None)
    doc = (json.dumps(d, indent=1, ensure_ascii=False) + "\n").encode()
    assert doc.endswith(b"\n}\n")
    key = runner_key()
    fpr = hashlib.sha256(b"skillci-key-id/1" + key).hexdigest()[:16]
    mac = hmac.new(key, b"skillci-results/1\0" + doc, hashlib.sha256).hexdigest()
    out = doc[:-3] + (',\n "signature": {\n  "key": "%s",\n  "mac": "%s"\n }\n}\n'
                      % (fpr, mac)).encode()
    open(dst, "wb").write(out)


main()
