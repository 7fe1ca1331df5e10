#!/usr/bin/env python3
"""Fake model server for skillci tests: real HTTP on 127.0.0.1, python3
standard library only. It speaks the Anthropic Messages API (POST to any
path ending in /messages: /v1/messages, /anthropic/v1/messages), OpenAI
chat completions (POST to any path ending in /chat/completions:
/v1/chat/completions, /openai/v1/chat/completions, Azure's
/openai/deployments/DEP/chat/completions?api-version=V) and OpenAI's
Responses API (POST to any path ending in /responses: /v1/responses), so
one server can stand in for every provider, each under its own path
prefix.

Usage:
    fake_models.py [--script FILE] [--port-file FILE] [--log FILE] [--port N]

It listens on --port (0 = a free port), prints "PORT\n" on stdout and writes
it to --port-file once it accepts connections.

Script (JSON; every field optional):

    {
      "default": REPLY,             # used when no rule matches
      "rules": [
        {"match": {"model": "claude-x",        # exact model id in the body
                   "contains": "hello",        # substring of the last user message
                   "api": "anthropic",         # or "openai", "responses"
                   "path": "/hf/",             # substring of the request path
                   "system": "<skill",         # substring of the system prompt
                   "nth": [1, 2],              # only these matches of this rule (1-based)
                   "first": 2,                 # shorthand for nth 1..N
                   "within_s": 60,             # only this long after the script was loaded
                   "chance": 0.1,              # only this share of requests (script "seed")
                   # agent runs (tool calling):
                   "turn": 2,                  # the request's turn: its assistant messages + 1
                   "input": "make a",          # substring of the first user message
                   "tool_result": "exit 0",    # substring of the last tool result sent
                   "tools": true},             # whether the request offers tools
         "reply": REPLY}
      ]
    }

    REPLY = {
      "status": 200,                 # HTTP status; errors get the API's error body
      "text": "answer",              # {last_user}, {model}, {n} are replaced
      "usage": {"input": 10, "output": 5, "cache_read": 0, "cache_creation": 0,
                "reasoning": 0},      # reasoning: the part of output spent reasoning
      "error_type": "overloaded_error", "error_message": "Overloaded",
      "echo_key": false,             # put the received key in the error message: true or
                                     # "raw", or a form of it: "prefix" (its first 16
                                     # characters), "masked" (first 8, stars, last 4),
                                     # "upper", "reversed", "base64", "basic" (base64 of
                                     # "user:KEY", as an Authorization header would be)
                                     # An answer's text may hold {key:FORM} the same way.
      "retry_after": "2",            # Retry-After header, seconds or an HTTP date;
      "retry_after_in": 2,           #   or an HTTP date this many seconds ahead
      "latency_ms": 0,               # wait before answering
      "await_in_flight": 0,          # before that, hold the request until this many
                                     # are in flight at once, or for at most
                                     # await_ms (1000; a client may send one request
                                     # alone first); once that many were in flight
                                     # together no request waits. A test that the
                                     # client fills N slots so waits for the event,
                                     # not for a latency long enough
      "latency_lognormal": {"mean_ms": 100, "sigma": 0.8},
                                     # or a wait drawn from a lognormal distribution
                                     # of that mean and shape; reproducible: the
                                     # draw for the k-th request with a given body is
                                     # a hash of (script "seed", body, k), so every
                                     # run of the same requests waits the same
                                     # multiset of times whatever their order;
                                     # "by": "turn" draws from the first user
                                     # message and the turn instead of the body
                                     # (an agent's chain waits the same in
                                     # every run, whatever its tool ids)
      "fault": null,                 # "malformed" (200 with bad JSON), "truncate"
                                     # (Content-Length larger than the body, then
                                     # close), "drip" (one byte every drip_ms),
                                     # "reset" (close with RST, no response),
                                     # "invalid_utf8" (each INVALID_UTF8 in the
                                     # answer sent as the raw bytes ff fe c3 28,
                                     # which are not UTF-8),
                                     # "die" (the server exits without answering)
      "drip_ms": 200,
      "raw_usage": null,             # usage object sent verbatim instead
      "retry_after_ms": 1500,        # retry-after-ms header (OpenAI, Azure)
      "stop": "length",              # finish_reason (OpenAI) or stop_reason (Anthropic);
                                     # default "stop" / "end_turn" ("tool_calls" /
                                     # "tool_use" for an answer with tool calls); for
                                     # the Responses API any value makes the response
                                     # "incomplete" with incomplete_details.reason
                                     # "max_output_tokens" ("length", "max_tokens")
                                     # or the value itself
      "tool_calls": [                # the answer calls tools, in each API's own format:
        {"name": "write_file",       # Anthropic tool_use blocks {id, name, input},
         "input": {"path": "a.txt",  # OpenAI message.tool_calls [{id, type: function,
                   "content": "x"}}  # function: {name, arguments: JSON text}}]; ids
      ]                              # are made up ("toolu_fake_N_K", "call_fake_N_K")
    }

The default reply is {"text": "fake answer to: {last_user}"} with usage
input 10, output 5. Usage maps to each API: Anthropic input_tokens,
output_tokens, cache_read_input_tokens, cache_creation_input_tokens;
OpenAI prompt_tokens = input + cache_read + cache_creation,
completion_tokens = output, prompt_tokens_details.cached_tokens =
cache_read, completion_tokens_details.reasoning_tokens = reasoning; the
Responses API input_tokens = input + cache_read + cache_creation,
input_tokens_details.cached_tokens = cache_read, output_tokens = output
(reasoning included, as the API counts it),
output_tokens_details.reasoning_tokens = reasoning, and a "reasoning"
output item before the message when reasoning is not 0.

Every request is appended to the JSONL log (--log): n, time, method, path
(without the query), query (a map of the query parameters), api
("anthropic" or "openai"), headers (names lowercased; the values of
x-api-key, api-key and authorization replaced by "sha256:<12 hex>" of the
key, a "Bearer " prefix dropped first, so a test can check which key came
without the log holding it), key_present, body (parsed JSON, or the raw
text).

Admin endpoints:
    GET  /_fake/stats   {"requests": N, "in_flight": N, "max_in_flight": N,
                         "by_path": {...}, "api_calls": N,
                         "latency_sum_ms": X, "latency_max_ms": X,
                         "first_at": T, "last_done_at": T}
                        (the waits the script asked for, summed and the longest;
                        when the first request arrived and the last answer went,
                        in seconds since the epoch)
    GET  /_fake/latencies  the waits, in the order the requests arrived (a JSON list)
    POST /_fake/reset   zero the counters, rule match counts and the log
    POST /_fake/script  replace the script with the JSON body
"""
import argparse
import base64
import email.utils
import hashlib
import json
import math
import os
import random
import socket
import statistics
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
FILLED = threading.Condition(LOCK)  # in_flight grew (await_in_flight)
STATE = {
    "script": {},
    "requests": 0,
    "in_flight": 0,
    "max_in_flight": 0,
    "by_path": {},
    "rule_counts": {},
    "log": None,
    "script_time": 0.0,
    "rng": None,
    "latency_sum_ms": 0.0,
    "latency_max_ms": 0.0,
    "body_counts": {},
    "latencies": [],
    "first_at": 0.0,
    "last_done_at": 0.0,
}

SECRET_HEADERS = ("x-api-key", "api-key", "authorization")


def mask(value):
    if value.startswith("Bearer "):
        value = value[len("Bearer "):]
    return "sha256:" + hashlib.sha256(value.encode()).hexdigest()[:12]


def route(path):
    """The API a path speaks, by its ending (any prefix), or None."""
    if path.endswith("/messages"):
        return "anthropic"
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith("/responses"):
        return "responses"
    return None


def last_user(messages):
    if isinstance(messages, str):  # the Responses API's input may be one string
        return messages
    for m in reversed(messages or []):
        if isinstance(m, dict) and m.get("role") == "user":
            c = m.get("content")
            if isinstance(c, list):
                return "".join(b.get("text", "") for b in c if isinstance(b, dict))
            return c if isinstance(c, str) else ""
    return ""


def first_user(messages):
    if isinstance(messages, str):  # the Responses API's input may be one string
        return messages
    for m in messages or []:
        if isinstance(m, dict) and m.get("role") == "user":
            c = m.get("content")
            if isinstance(c, list):
                return "".join(b.get("text", "") for b in c if isinstance(b, dict))
            return c if isinstance(c, str) else ""
    return ""


def last_tool_result(messages):
    """The content of the last tool result: an Anthropic tool_result block
    or an OpenAI role "tool" message ("" when none)."""
    if not isinstance(messages, list):
        return ""
    for m in reversed(messages):
        if not isinstance(m, dict):
            continue
        if m.get("role") == "tool":
            return m.get("content") if isinstance(m.get("content"), str) else ""
        c = m.get("content")
        if m.get("role") == "user" and isinstance(c, list):
            for b in reversed(c):
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    r = b.get("content")
                    if isinstance(r, list):
                        return "".join(x.get("text", "") for x in r if isinstance(x, dict))
                    return r if isinstance(r, str) else ""
    return ""


def turns(body):
    """The conversation of a request body: messages, or the Responses API's input."""
    if not isinstance(body, dict):
        return None
    return body.get("input") if "input" in body else body.get("messages")


def system_text(body):
    if not isinstance(body, dict):
        return ""
    s = body.get("system")
    if s is None:
        s = body.get("instructions")  # the Responses API
    if isinstance(s, list):
        return "".join(b.get("text", "") for b in s if isinstance(b, dict))
    if isinstance(s, str):
        return s
    for m in body.get("messages") or []:
        if isinstance(m, dict) and m.get("role") == "system" and isinstance(m.get("content"), str):
            return m["content"]
    return ""


def set_script(script):
    STATE["script"] = script
    STATE["rule_counts"] = {}
    STATE["script_time"] = time.time()
    STATE["rng"] = random.Random(script.get("seed", 1))
    STATE["await_open"] = False


def pick_reply(api, body, path=""):
    script = STATE["script"]
    model = body.get("model", "") if isinstance(body, dict) else ""
    messages = turns(body)
    user = last_user(messages)
    system = system_text(body)
    turn = 1 + sum(1 for m in messages or [] if isinstance(m, dict) and m.get("role") == "assistant")
    for i, rule in enumerate(script.get("rules", [])):
        m = rule.get("match", {})
        if "model" in m and m["model"] != model:
            continue
        if "contains" in m and m["contains"] not in user:
            continue
        if "api" in m and m["api"] != api:
            continue
        if "path" in m and m["path"] not in path:
            continue
        if "system" in m and m["system"] not in system:
            continue
        if "turn" in m and m["turn"] != turn:
            continue
        if "input" in m and m["input"] not in first_user(messages):
            continue
        if "tool_result" in m and m["tool_result"] not in last_tool_result(messages):
            continue
        if "tools" in m and bool(m["tools"]) != bool(isinstance(body, dict) and body.get("tools")):
            continue
        count = STATE["rule_counts"].get(i, 0) + 1
        STATE["rule_counts"][i] = count
        if "first" in m and count > m["first"]:
            continue
        if "nth" in m and count not in m["nth"]:
            continue
        if "within_s" in m and time.time() - STATE["script_time"] > m["within_s"]:
            continue
        if "chance" in m and STATE["rng"].random() >= m["chance"]:
            continue
        return rule.get("reply", {})
    return script.get("default", {})


def lognormal_ms(spec, seed, raw, k):
    """A reproducible lognormal wait: the quantile of a hash of (seed, body,
    k) under the distribution of mean spec["mean_ms"] and shape
    spec["sigma"]."""
    mean = float(spec.get("mean_ms", 100))
    sigma = float(spec.get("sigma", 0.8))
    h = hashlib.sha256(b"%d|%d|" % (seed, k) + raw).digest()
    u = (int.from_bytes(h[:8], "big") + 0.5) / 2.0 ** 64
    z = statistics.NormalDist().inv_cdf(u)
    return math.exp(math.log(mean) - sigma * sigma / 2 + sigma * z)


def key_form(key, how):
    """The received key as a careless or hostile server might echo it."""
    if how == "prefix":
        return key[:16] + "..."
    if how == "masked":
        return key[:8] + "****" + key[-4:]
    if how == "upper":
        return key.upper()
    if how == "reversed":
        return key[::-1]
    if how == "base64":
        return base64.b64encode(key.encode()).decode()
    if how == "basic":
        return "Basic " + base64.b64encode(("user:" + key).encode()).decode()
    return key


def responses_answer(reply, model, text, u, n):
    """A Responses API response object: output items (a reasoning item when
    the usage has reasoning tokens, then the assistant message), status
    completed or, with a "stop", incomplete and its reason; usage with the
    cached input and the reasoning part of the output."""
    stop = reply.get("stop")
    reason = None
    if stop:
        reason = "max_output_tokens" if stop in ("length", "max_tokens", "max_output_tokens") else stop
    output = []
    if u["reasoning"]:
        output.append({"id": "rs_fake_%d" % n, "type": "reasoning", "summary": []})
    output.append({"id": "msg_fake_%d" % n, "type": "message", "status": "completed",
                   "role": "assistant",
                   "content": [{"type": "output_text", "text": text, "annotations": []}]})
    usage = {"input_tokens": u["input"] + u["cache_read"] + u["cache_creation"],
             "input_tokens_details": {"cached_tokens": u["cache_read"]},
             "output_tokens": u["output"],
             "output_tokens_details": {"reasoning_tokens": u["reasoning"]},
             "total_tokens": u["input"] + u["cache_read"] + u["cache_creation"] + u["output"]}
    return {"id": "resp_fake_%d" % n, "object": "response", "created_at": int(time.time()),
            "status": "incomplete" if reason else "completed", "model": model,
            "incomplete_details": {"reason": reason} if reason else None,
            "error": None, "output": output, "usage": reply.get("raw_usage", usage)}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # headers and body go out in separate writes; without TCP_NODELAY the
    # client's delayed ACK would add ~40 ms to every response
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):  # quiet
        pass

    def send_json(self, status, obj, extra=None):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def do_GET(self):
        if self.path == "/_fake/stats":
            with LOCK:
                stats = {k: STATE[k] for k in ("requests", "in_flight", "max_in_flight", "by_path",
                                               "latency_sum_ms", "latency_max_ms", "first_at",
                                               "last_done_at")}
                stats["api_calls"] = STATE["requests"]
            self.send_json(200, stats)
        elif self.path == "/_fake/latencies":
            with LOCK:
                waits = list(STATE["latencies"])
            self.send_json(200, waits)
        else:
            self.send_json(404, {"error": {"type": "not_found_error", "message": "no route " + self.path}})

    def do_POST(self):
        raw = self.read_body()
        if self.path == "/_fake/reset":
            with LOCK:
                STATE.update(requests=0, in_flight=0, max_in_flight=0, by_path={}, rule_counts={},
                             latency_sum_ms=0.0, latency_max_ms=0.0, body_counts={},
                             latencies=[], first_at=0.0, last_done_at=0.0, await_open=False)
                if STATE["log"]:
                    open(STATE["log"], "w").close()
            self.send_json(200, {"ok": True})
            return
        if self.path == "/_fake/script":
            with LOCK:
                set_script(json.loads(raw or b"{}"))
            self.send_json(200, {"ok": True})
            return
        path, _, query = self.path.partition("?")
        api = route(path)
        if api is None:
            self.send_json(404, {"error": {"type": "not_found_error", "message": "no route " + path}})
            return
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        key = self.headers.get("x-api-key") or self.headers.get("api-key") or ""
        auth = self.headers.get("Authorization") or ""
        if auth.startswith("Bearer "):
            key = key or auth[len("Bearer "):]
        with LOCK:
            STATE["requests"] += 1
            n = STATE["requests"]
            STATE["in_flight"] += 1
            STATE["max_in_flight"] = max(STATE["max_in_flight"], STATE["in_flight"])
            FILLED.notify_all()
            STATE["by_path"][path] = STATE["by_path"].get(path, 0) + 1
            reply = dict(pick_reply(api, body, path))
            if "latency_lognormal" in reply:
                k = STATE["body_counts"].get(raw, 0)
                STATE["body_counts"][raw] = k + 1
                draw = raw
                if reply["latency_lognormal"].get("by") == "turn" and isinstance(body, dict):
                    # an agent's turn: drawn from its first message and turn
                    # number, so every run of a chain waits the same
                    msgs = body.get("messages")
                    draw = ("%s|%d" % (first_user(msgs), sum(1 for m in msgs or []
                            if isinstance(m, dict) and m.get("role") == "assistant"))).encode()
                reply["latency_ms"] = lognormal_ms(reply["latency_lognormal"],
                                                   int(STATE["script"].get("seed", 1)), draw, k)
            wait = float(reply.get("latency_ms") or 0)
            STATE["latency_sum_ms"] += wait
            STATE["latency_max_ms"] = max(STATE["latency_max_ms"], wait)
            STATE["latencies"].append(wait)
            if not STATE["first_at"]:
                STATE["first_at"] = time.time()
            if STATE["log"]:
                headers = {k.lower(): (mask(v) if k.lower() in SECRET_HEADERS else v)
                           for k, v in self.headers.items()}
                params = {k: v[-1] for k, v in urllib.parse.parse_qs(query).items()}
                with open(STATE["log"], "a") as f:
                    f.write(json.dumps({"n": n, "time": time.time(), "latency_ms": wait,
                                        "method": "POST",
                                        "path": path, "query": params, "api": api,
                                        "headers": headers, "key_present": bool(key),
                                        "body": body}) + "\n")
        try:
            self.await_in_flight(reply)
            self.answer(api, body, reply, n, key)
        finally:
            with LOCK:
                STATE["in_flight"] -= 1
                STATE["last_done_at"] = time.time()

    def await_in_flight(self, reply):
        want = int(reply.get("await_in_flight") or 0)
        if want <= 0:
            return
        deadline = time.monotonic() + float(reply.get("await_ms", 1000)) / 1000.0
        with FILLED:
            while not STATE.get("await_open") and STATE["in_flight"] < want:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                FILLED.wait(left)
            STATE["await_open"] = True
            FILLED.notify_all()

    def answer(self, api, body, reply, n, key):
        text_reply = reply.get("text", "" if reply.get("tool_calls") else "fake answer to: {last_user}")
        if reply.get("latency_ms"):
            time.sleep(reply["latency_ms"] / 1000.0)
        fault = reply.get("fault")
        if fault == "die":
            os._exit(0)
        if fault == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
            return
        model = body.get("model", "") if isinstance(body, dict) else ""
        status = int(reply.get("status", 200))
        headers = {}
        if "retry_after" in reply:
            headers["Retry-After"] = str(reply["retry_after"])
        if "retry_after_ms" in reply:
            headers["retry-after-ms"] = str(reply["retry_after_ms"])
        if "retry_after_in" in reply:
            headers["Retry-After"] = email.utils.formatdate(time.time() + reply["retry_after_in"], usegmt=True)
        if status >= 400:
            etype = reply.get("error_type", "api_error")
            msg = reply.get("error_message", "fake error %d" % status)
            if reply.get("echo_key"):
                how = reply["echo_key"]
                msg += " (key " + key_form(key, "raw" if how is True else how) + ")"
            if api == "anthropic":
                obj = {"type": "error", "error": {"type": etype, "message": msg}}
            else:
                obj = {"error": {"message": msg, "type": etype, "code": None}}
            self.send_json(status, obj, headers)
            return
        text = text_reply
        for form in ("raw", "prefix", "masked", "upper", "reversed", "base64", "basic"):
            text = text.replace("{key:%s}" % form, key_form(key, form))
        text = (text.replace("{last_user}", last_user(turns(body)))
                .replace("{model}", model).replace("{n}", str(n)))
        u = {"input": 10, "output": 5, "cache_read": 0, "cache_creation": 0, "reasoning": 0}
        u.update(reply.get("usage", {}))
        calls = reply.get("tool_calls") or []
        if api == "anthropic":
            usage = {"input_tokens": u["input"], "output_tokens": u["output"],
                     "cache_read_input_tokens": u["cache_read"],
                     "cache_creation_input_tokens": u["cache_creation"]}
            content = [{"type": "text", "text": text}] if text or not calls else []
            for k, c in enumerate(calls):
                content.append({"type": "tool_use", "id": "toolu_fake_%d_%d" % (n, k),
                                "name": c.get("name", ""), "input": c.get("input", {})})
            obj = {"id": "msg_fake_%d" % n, "type": "message", "role": "assistant", "model": model,
                   "content": content,
                   "stop_reason": reply.get("stop", "tool_use" if calls else "end_turn"),
                   "usage": reply.get("raw_usage", usage)}
        elif api == "responses":
            obj = responses_answer(reply, model, text, u, n)
        else:
            usage = {"prompt_tokens": u["input"] + u["cache_read"] + u["cache_creation"],
                     "completion_tokens": u["output"],
                     "total_tokens": u["input"] + u["cache_read"] + u["cache_creation"] + u["output"],
                     "prompt_tokens_details": {"cached_tokens": u["cache_read"]}}
            if u["reasoning"]:
                usage["completion_tokens_details"] = {"reasoning_tokens": u["reasoning"]}
            msg = {"role": "assistant", "content": text if text or not calls else None}
            if calls:
                msg["tool_calls"] = [{"id": "call_fake_%d_%d" % (n, k), "type": "function",
                                      "function": {"name": c.get("name", ""),
                                                   "arguments": json.dumps(c.get("input", {}))}}
                                     for k, c in enumerate(calls)]
            obj = {"id": "chatcmpl-fake-%d" % n, "object": "chat.completion", "model": model,
                   "choices": [{"index": 0, "message": msg,
                                "finish_reason": reply.get("stop", "tool_calls" if calls else "stop")}],
                   "usage": reply.get("raw_usage", usage)}
        data = json.dumps(obj).encode()
        if fault == "invalid_utf8":
            data = data.replace(b"INVALID_UTF8", b"\xff\xfe\xc3(")
        if fault == "malformed":
            data = b'{"id": "broken", "content": [ {"type": "text", "text": "unterminated'
        if fault == "truncate":
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_WR)
            return
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        if fault == "drip":
            delay = reply.get("drip_ms", 200) / 1000.0
            try:
                for i in range(len(data)):
                    self.wfile.write(data[i:i + 1])
                    self.wfile.flush()
                    time.sleep(delay)
            except OSError:
                self.close_connection = True
            return
        self.wfile.write(data)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # a client that gave up (timeout, reset) is expected in fault tests
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--script")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--log")
    args = ap.parse_args()
    set_script({})
    if args.script:
        with open(args.script) as f:
            set_script(json.load(f))
    STATE["log"] = args.log
    if args.log:
        open(args.log, "w").close()
    srv = Server(("127.0.0.1", args.port), Handler)
    port = srv.server_address[1]
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%d\n" % port)
        os.rename(tmp, args.port_file)
    print(port, flush=True)
    try:
        srv.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
