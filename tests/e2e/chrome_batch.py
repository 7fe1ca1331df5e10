"""Loads pages in one headless Chromium and writes what each asked for.

    python3 chrome_batch.py CHROMIUM PROFILE_DIR JOBS.json

JOBS.json is a list of jobs, each {"url", "width", "height", "dump": PATH
(the DOM after the load event, as --dump-dom prints it), "shot": PATH (a PNG
of the viewport, as --screenshot takes it), "wait_for": JS expression (also
wait until it is true, up to 10 s, for pages whose scripts report after
the load)}. One browser runs every job, driven over the DevTools protocol
on a pipe (--remote-debugging-pipe: NUL-terminated JSON on descriptors 3
and 4), each page in a fresh target with the job's viewport: a browser
start costs seconds, a page a fraction of one. Exits 0 when every job
wrote its files, 1 otherwise (naming the job); Chromium's own messages go
to stderr.
"""
import base64
import json
import os
import subprocess
import sys
import time


def redirect(r, w):
    """Shell redirections putting r on descriptor 3 and w on 4, the
    originals closed unless they are 3 or 4 already."""
    if r == 4 or w == 3:  # move them out of the way first
        return "7<&%d 8>&%d %d<&- %d>&- 3<&7 4>&8 7<&- 8>&-" % (r, w, r, w)
    out = []
    if r != 3:
        out.append("3<&%d %d<&-" % (r, r))
    if w != 4:
        out.append("4>&%d %d>&-" % (w, w))
    return " ".join(out)


class Browser:
    def __init__(self, chromium, profile):
        r_cmd, w_cmd = os.pipe()   # we write commands, Chromium reads fd 3
        r_res, w_res = os.pipe()   # Chromium writes fd 4, we read results
        # the shell puts the two ends on descriptors 3 and 4 and becomes Chromium
        self.proc = subprocess.Popen(
            ["sh", "-c", 'exec "$0" "$@" ' + redirect(r_cmd, w_res),
             chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--hide-scrollbars", "--user-data-dir=" + profile,
             "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, pass_fds=(r_cmd, w_res))
        os.close(r_cmd)
        os.close(w_res)
        self.out = os.fdopen(w_cmd, "wb", buffering=0)
        self.inp = os.fdopen(r_res, "rb", buffering=0)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def _read(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = self.inp.read(65536)
            if not chunk:
                raise EOFError("Chromium closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.out.write(json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, name, session, timeout=30):
        deadline = time.time() + timeout
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == name and m.get("sessionId") == session:
                    del self.events[i]
                    return m
            self.events.append(self._read(deadline))

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def run_job(b, job):
    target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    try:
        b.call("Emulation.setDeviceMetricsOverride",
               {"width": job["width"], "height": job["height"], "deviceScaleFactor": 1,
                "mobile": False}, session)
        b.call("Page.enable", {}, session)
        b.call("Page.navigate", {"url": job["url"]}, session)
        b.wait_event("Page.loadEventFired", session)
        if job.get("wait_for"):
            deadline = time.time() + 10
            while True:
                r = b.call("Runtime.evaluate", {"expression": "!!(%s)" % job["wait_for"],
                                                "returnByValue": True}, session)
                if r.get("result", {}).get("value"):
                    break
                if time.time() > deadline:
                    raise TimeoutError("%s never became true" % job["wait_for"])
                time.sleep(0.05)
        if job.get("dump"):
            r = b.call("Runtime.evaluate", {"expression": "document.documentElement.outerHTML",
                                            "returnByValue": True}, session)
            with open(job["dump"], "w", encoding="utf-8") as f:
                f.write("<!DOCTYPE html>\n" + r["result"]["value"] + "\n")
        if job.get("shot"):
            r = b.call("Page.captureScreenshot", {"format": "png"}, session)
            with open(job["shot"], "wb") as f:
                f.write(base64.b64decode(r["data"]))
    finally:
        b.call("Target.closeTarget", {"targetId": target})


def main():
    chromium, profile, jobs_path = sys.argv[1:4]
    jobs = json.load(open(jobs_path, encoding="utf-8"))
    b = Browser(chromium, profile)
    bad = 0
    try:
        for job in jobs:
            try:
                run_job(b, job)
            except Exception as e:  # one bad page does not hide the others
                bad += 1
                print("chrome_batch: %s: %s" % (job["url"], e), file=sys.stderr)
    finally:
        b.close()
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
