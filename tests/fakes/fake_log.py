#!/usr/bin/env python3
"""Reads the fake model server's request log (JSONL) for shell tests.

Usage:
    fake_log.py LOG INDEX FIELD...    one line per FIELD of request INDEX
    fake_log.py LOG --count           the number of requests logged
    fake_log.py --mask KEY            what the log holds for that key

INDEX counts from 0; negative counts from the end (-1: the last request).
FIELD is a dotted path into the logged request: path, query.api-version,
headers.x-api-key, body.model, body.reasoning.effort, body.messages.0.role.
A string prints as is, anything else as JSON; a missing field prints
"<missing>".
"""
import hashlib
import json
import sys


def mask(value):
    if value.startswith("Bearer "):
        value = value[len("Bearer "):]
    return "sha256:" + hashlib.sha256(value.encode()).hexdigest()[:12]


def get(obj, path):
    for part in path.split("."):
        if isinstance(obj, list):
            try:
                obj = obj[int(part)]
            except (ValueError, IndexError):
                return "<missing>"
        elif isinstance(obj, dict) and part in obj:
            obj = obj[part]
        else:
            return "<missing>"
    return obj


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--mask":
        print(mask(sys.argv[2]))
        return 0
    with open(sys.argv[1]) as f:
        reqs = [json.loads(line) for line in f if line.strip()]
    if sys.argv[2] == "--count":
        print(len(reqs))
        return 0
    req = reqs[int(sys.argv[2])]
    for field in sys.argv[3:]:
        v = get(req, field)
        print(v if isinstance(v, str) else json.dumps(v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
