#!/usr/bin/env python3
"""Fake GitHub REST API for skillci tests: real HTTP on 127.0.0.1, python3
standard library only. It keeps issue comments in memory and serves:

    GET   /user                                           (see --user)
    GET   /repos/{owner}/{repo}/issues/{n}/comments?per_page=&page=
    POST  /repos/{owner}/{repo}/issues/{n}/comments        {"body": ...}
    PATCH /repos/{owner}/{repo}/issues/comments/{id}       {"body": ...}
    GET   /repos/{owner}/{repo}/pulls/{n}                  a pull request (see /_fake/pull)
    GET   /repos/{owner}/{repo}/commits/{sha}/pulls        the open pull requests whose
                                                          head is sha (as GitHub answers
                                                          for a commit off the default
                                                          branch), else the merged ones
                                                          that hold it as merge commit

Usage:
    fake_github.py --port-file FILE --log FILE [--token TOKEN]
                   [--forbid] [--seed-comments N] [--user LOGIN]

--token: requests must carry "Authorization: Bearer TOKEN" (else 401).
--forbid: every write answers 403 like a fork pull request's read-only
token ("Resource not accessible by integration").
--seed-comments N: start with N unrelated comments on every issue (to
exercise pagination).
--user LOGIN: the token is a user's (GET /user answers {"login": LOGIN}
and comments are written as LOGIN). Without it the token behaves like the
workflow's GITHUB_TOKEN: GET /user is 403 "Resource not accessible by
integration" and comments are written as "github-actions[bot]".

Every request is appended to the JSONL log: method, path, query,
authorization ("sha256:<12 hex>" of the value, never the value), body.

Admin endpoints:
    GET  /_fake/comments   all comments as JSON
    POST /_fake/forbid     {"forbid": true|false}
    POST /_fake/plant      {"issue": N, "body": ..., "login": ...}: a comment
                           written by someone else (another user, a bot)
    POST /_fake/pull       {"number": N, "head": SHA, "base": SHA, "base_ref": "main",
                            "labels": [...], "state": "open", "head_repo": "fork/x",
                            "base_repo": "owner/repo" (default: the path's)}: defines
                           or replaces pull request N of every repository path
"""
import argparse
import hashlib
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs

STATE = {"comments": {}, "next_id": 1000, "forbid": False, "seeded": set(), "pulls": {}}
LOCK = threading.Lock()
ARGS = None


def digest(value):
    return "sha256:" + hashlib.sha256(value.encode()).hexdigest()[:12]


def seed(issue):
    if issue in STATE["seeded"]:
        return
    STATE["seeded"].add(issue)
    for i in range(ARGS.seed_comments):
        STATE["next_id"] += 1
        STATE["comments"][STATE["next_id"]] = {
            "id": STATE["next_id"], "issue": issue,
            "body": "unrelated comment %d" % i, "user": {"login": "someone"}}


def pull_json(p, repo):
    """A pull request as GET /repos/{o}/{r}/pulls/{n} answers it."""
    base_repo = p.get("base_repo", repo)
    return {"number": int(p["number"]), "state": p.get("state", "open"),
            "labels": [{"name": l} for l in p.get("labels", [])],
            "head": {"sha": p["head"], "ref": p.get("head_ref", "feature"),
                     "repo": {"full_name": p.get("head_repo", base_repo)}},
            "base": {"sha": p["base"], "ref": p.get("base_ref", "main"),
                     "repo": {"full_name": base_repo}}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def reply(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return raw.decode("utf-8", "replace")

    def record(self, body):
        auth = self.headers.get("Authorization") or ""
        u = urlsplit(self.path)
        entry = {"method": self.command, "path": u.path, "query": u.query,
                 "authorization": digest(auth) if auth else None,
                 "accept": self.headers.get("Accept"), "body": body}
        with LOCK:
            with open(ARGS.log, "a") as f:
                f.write(json.dumps(entry) + "\n")

    def authorized(self):
        if not ARGS.token:
            return True
        return self.headers.get("Authorization") == "Bearer " + ARGS.token

    def handle_any(self):
        body = self.read_body() if self.command in ("POST", "PATCH") else None
        u = urlsplit(self.path)
        parts = [p for p in u.path.split("/") if p]
        if u.path == "/_fake/comments":
            with LOCK:
                return self.reply(200, sorted(STATE["comments"].values(), key=lambda c: c["id"]))
        if u.path == "/_fake/plant":
            with LOCK:
                STATE["next_id"] += 1
                c = {"id": STATE["next_id"], "issue": int(body["issue"]), "body": body["body"],
                     "user": {"login": body.get("login", "someone")}}
                STATE["comments"][c["id"]] = c
            return self.reply(201, c)
        if u.path == "/_fake/pull":
            with LOCK:
                STATE["pulls"][int(body["number"])] = body
            return self.reply(201, body)
        if u.path == "/_fake/forbid":
            with LOCK:
                STATE["forbid"] = bool((body or {}).get("forbid"))
            return self.reply(200, {"forbid": STATE["forbid"]})
        self.record(body)
        if not self.authorized():
            return self.reply(401, {"message": "Bad credentials"})
        if u.path == "/user" and self.command == "GET":
            if ARGS.user:
                return self.reply(200, {"login": ARGS.user, "type": "User"})
            return self.reply(403, {"message": "Resource not accessible by integration",
                                    "documentation_url": "https://docs.github.com/rest/users/users#get-the-authenticated-user"})
        # /repos/{o}/{r}/pulls/{n}
        if len(parts) == 5 and parts[0] == "repos" and parts[3] == "pulls" and self.command == "GET":
            with LOCK:
                p = STATE["pulls"].get(int(parts[4])) if parts[4].isdigit() else None
            if not p:
                return self.reply(404, {"message": "Not Found"})
            return self.reply(200, pull_json(p, parts[1] + "/" + parts[2]))
        # /repos/{o}/{r}/commits/{sha}/pulls
        if len(parts) == 6 and parts[0] == "repos" and parts[3] == "commits" and parts[5] == "pulls":
            sha = parts[4]
            with LOCK:
                mine = [pull_json(p, parts[1] + "/" + parts[2]) for n, p in sorted(STATE["pulls"].items())
                        if p.get("head") == sha and p.get("state", "open") == "open"]
            return self.reply(200, mine)
        # /repos/{o}/{r}/issues/{n}/comments
        if len(parts) == 6 and parts[0] == "repos" and parts[3] == "issues" and parts[5] == "comments":
            issue = int(parts[4])
            with LOCK:
                seed(issue)
                if self.command == "GET":
                    q = parse_qs(u.query)
                    per = int(q.get("per_page", ["30"])[0])
                    page = int(q.get("page", ["1"])[0])
                    mine = sorted((c for c in STATE["comments"].values() if c["issue"] == issue),
                                  key=lambda c: c["id"])
                    return self.reply(200, mine[(page - 1) * per: page * per])
                if self.command == "POST":
                    if STATE["forbid"]:
                        return self.reply(403, {"message": "Resource not accessible by integration"})
                    STATE["next_id"] += 1
                    c = {"id": STATE["next_id"], "issue": issue, "body": body["body"],
                         "user": {"login": ARGS.user or "github-actions[bot]"}}
                    STATE["comments"][c["id"]] = c
                    return self.reply(201, c)
        # /repos/{o}/{r}/issues/comments/{id}
        if len(parts) == 6 and parts[0] == "repos" and parts[3] == "issues" and parts[4] == "comments":
            cid = int(parts[5])
            with LOCK:
                c = STATE["comments"].get(cid)
                if not c:
                    return self.reply(404, {"message": "Not Found"})
                if self.command == "PATCH":
                    if STATE["forbid"]:
                        return self.reply(403, {"message": "Resource not accessible by integration"})
                    c["body"] = body["body"]
                    return self.reply(200, c)
        return self.reply(404, {"message": "Not Found"})

    do_GET = do_POST = do_PATCH = do_DELETE = handle_any


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--port-file", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--token")
    p.add_argument("--forbid", action="store_true")
    p.add_argument("--seed-comments", type=int, default=0)
    p.add_argument("--user")
    ARGS = p.parse_args()
    STATE["forbid"] = ARGS.forbid
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = srv.server_address[1]
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.rename(tmp, ARGS.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
