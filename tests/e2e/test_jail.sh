# The agent jail, from the `run` tool (docs/security.md, "The agent
# jail"): a student scripted to run hostile commands, one test each:
# reaching an address (the host's loopback included), reading the runner
# key and $HOME, writing outside the workspace, a fork bomb, a process
# left running, a 10 GB file, a command that never ends. Each is
# contained: the unit fails with the reason in its trace, the host is
# checked unchanged afterwards, and a plain unit beside them passes.
# Without a working jail the cases skip, saying why.
. tests/e2e/lib.sh
. tests/fakes/fake.sh

S="$T/skills/hostile"
mkdir -p "$S/tests" "$T/home"
cat > "$S/SKILL.md" <<'EOF'
---
name: hostile
description: A skill whose tests try to leave the jail.
---
# Hostile
EOF
# A host file the jail must not see, a listener on the host's loopback.
echo "host-secret-6f1e" > "$T/home/secret.txt"
python3 -S -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(120)
try:
    c, _ = s.accept(); open(sys.argv[2], "w").write("reached")
except OSError:
    pass
' "$T/port" "$T/reached" &
LISTENER=$!
while [ ! -s "$T/port" ]; do sleep 0.05; done
PORT=$(cat "$T/port")
KEY=${SKILLCI_RUNNER_KEY_FILE:-$HOME/.config/skillci/runner.key}

# Each test: the student runs CMD, then answers; the verifier wants a file
# that CMD writes only when the jail let it through (escaped.txt).
python3 -S - "$S/tests/hostile.json" "$PORT" "$KEY" "$T" <<'EOF'
import json, sys
path, port, key, t = sys.argv[1:]
cases = {
  "network": "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", %s), 3)' && echo reached > escaped.txt; python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 80), 3)' && echo out >> escaped.txt" % port,
  "key": "cat '%s' > /tmp/k && cp /tmp/k escaped.txt; cat '%s/home/secret.txt' > /tmp/s && cp /tmp/s escaped.txt; ls -a \"$HOME\" /root /home 2>&1" % (key, t),
  "outside": "echo x > '%s/outside.txt'; touch /usr/x /x /etc/x && echo wrote > escaped.txt" % t,
  "forkbomb": "b() { b | b & }; b; sleep 2; echo after the bomb",
  "leftover": "(setsid sh -c 'sleep 987123' > /dev/null 2>&1 &); echo started",
  "bigfile": "dd if=/dev/zero of=big.bin bs=1M count=10240 && echo wrote > escaped.txt",
  "forever": "while :; do :; done",
}
tests = []
for name, cmd in cases.items():
    tests.append({"id": name, "input": "hostile [%s]" % name,
                  "verifiers": [{"type": "file_exists", "path": "escaped.txt"}]})
tests.append({"id": "plain", "input": "plain [plain]",
              "verifiers": [{"type": "file_contains", "path": "ok.txt", "values": ["fine"]}]})
json.dump({"cases": tests}, open(path, "w"), indent=1)
rules = [{"match": {"input": "[%s]" % n, "turn": 1},
          "reply": {"tool_calls": [{"name": "run", "input": {"command": c}}]}} for n, c in cases.items()]
rules.append({"match": {"input": "[plain]", "turn": 1},
              "reply": {"tool_calls": [{"name": "write_file", "input": {"path": "ok.txt", "content": "fine\n"}}]}})
rules.append({"match": {"turn": 2}, "reply": {"text": "done"}})
json.dump({"rules": rules, "default": {"text": "unscripted"}}, open(sys.argv[4] + "/script.json", "w"))
EOF
cat > "$T/skillci.yml" <<'EOF'
agent:
  limits:
    command_timeout: 3
    cpu: 17
    processes: 32
    file_size: 8
    workspace: 32
EOF
fake_start "$T/script.json" || exit 1
export ANTHROPIC_BASE_URL="$FAKE_URL" ANTHROPIC_API_KEY=sk-test-jail-key
: > "$T/.before"
run "$SKILLCI" eval "$S" -m anthropic.fake-student --no-baseline --no-cache --config "$T/skillci.yml" \
	--store "$T/r.db" --json "$T/r.json"
field() {  # field TEST_ID FIELD
	python3 -S - "$T/r.json" "$@" <<'EOF'
import json, sys
for u in json.load(open(sys.argv[1]))["units"]:
    if u["test_id"].endswith("#" + sys.argv[2]):
        print(u.get(sys.argv[3]) or "")
EOF
}
if grep -q "jail unavailable" "$T/r.json" 2>/dev/null; then
	skip "the jail contains hostile commands" "$(field plain message)"
	kill "$LISTENER" 2>/dev/null
	done_testing
	exit
fi
expect_exit 0 "eval of the hostile tests exits 0 (failures are verdicts)"
for t in network key outside forkbomb leftover bigfile forever; do
	check "$t: contained, the unit fails" test "$(field $t verdict)" = fail
done
trace() { field "$1" excerpt; }
check "network: the host's loopback refused the connection" sh -c "$(command -v sqlite3) '$T/r.db' \"SELECT transcript FROM units WHERE test_id LIKE '%#network'\" | grep -q 'Connection refused'"
check "network: the host's listener saw nothing" test ! -e "$T/reached"
check "network: no address outside either" sh -c "python3 -S -c \"import json; e=[u['excerpt'] for u in json.load(open('$T/r.json'))['units'] if u['test_id'].endswith('#network')][0]; assert 'unreachable' in e, e\""
check "key: neither the runner key nor the home file could be read" sh -c "python3 -S -c \"import json; e=[u['excerpt'] for u in json.load(open('$T/r.json'))['units'] if u['test_id'].endswith('#key')][0]; assert 'No such file' in e and 'host-secret' not in e, e\""
check "key: the secret is in no transcript" sh -c "! sqlite3 '$T/r.db' 'SELECT transcript FROM units' | grep -q host-secret-6f1e"
check "outside: nothing written on the host" test ! -e "$T/outside.txt"
check "outside: the jail's /usr and / are read-only" sh -c "test ! -e /usr/x && test ! -e /x"
check "forkbomb: stopped at the process limit, the command ended" sh -c "python3 -S -c \"import json; e=[u['excerpt'] for u in json.load(open('$T/r.json'))['units'] if u['test_id'].endswith('#forkbomb')][0]; assert 'after the bomb' in e or 'Resource temporarily unavailable' in e, e\""
check "leftover: the process it left is gone" sh -c "! ps -eo args | grep -v grep | grep -q 'sleep 987123'"
check "bigfile: the file-size limit stopped it" sh -c "python3 -S -c \"import json; e=[u['excerpt'] for u in json.load(open('$T/r.json'))['units'] if u['test_id'].endswith('#bigfile')][0]; assert 'file size limit exceeded' in e, e\""
check "bigfile: no large file on the host" sh -c "! find '$T' /tmp -xdev -name big.bin 2>/dev/null | grep -q ."
check "forever: the wall-time limit ended it" sh -c "python3 -S -c \"import json; e=[u['excerpt'] for u in json.load(open('$T/r.json'))['units'] if u['test_id'].endswith('#forever')][0]; assert 'timed out after 3.0 s' in e, e\""
check "the plain unit beside them passes" test "$(field plain verdict)" = pass
check "no jail process is left on the host" sh -c "! ps -eo args | grep -v grep | grep -q 'skillci-jail 17 '"
check "the run left no copy of the skill behind" sh -c \
	"! find /tmp \"\${TMPDIR:-/tmp}\" -maxdepth 1 -name 'skillci-jail-*' -newer '$T/.before' 2>/dev/null | grep -q ."
kill "$LISTENER" 2>/dev/null
done_testing
