#!/bin/sh
# Installs the Debian packages skillci needs, when any is missing. Run as
# root (or with sudo available). The PostgreSQL server (postgresql) is for
# the tests: make check starts a private one (tests/pg.sh) and runs the
# store suites against it. chromium (with an emoji font for the
# screenshots) loads the HTML reports in tests/e2e/test_report.sh: that
# test fails without it. CUDA is not installed here: it is found under
# /usr/local/cuda (or $CUDA_HOME) when present, and optional. zizmor, the
# GitHub Actions security linter that tests/e2e/test_zizmor.sh runs over
# action.yml and the docs/ci.md workflows, comes from PyPI (pip, pinned).
# bubblewrap is the agent jail (docs/security.md): agent units run their
# tools in it, and end as errors ("jail unavailable") without it.
set -eu
ZIZMOR_VERSION=1.32.0
install_zizmor() {
	if command -v zizmor > /dev/null 2>&1; then
		echo "deps: zizmor present ($(zizmor --version 2>/dev/null))"
		return 0
	fi
	echo "deps: installing zizmor $ZIZMOR_VERSION from PyPI"
	python3 -m pip install --quiet "zizmor==$ZIZMOR_VERSION" ||
		python3 -m pip install --quiet --user "zizmor==$ZIZMOR_VERSION" ||
		python3 -m pip install --quiet --break-system-packages "zizmor==$ZIZMOR_VERSION" ||
		echo "deps: could not install zizmor; tests/e2e/test_zizmor.sh will skip its lint cases"
}
pkgs="build-essential pkg-config libgit2-dev libcurl4-openssl-dev libcjson-dev
libyaml-dev libxml2-dev libxml2-utils libcmark-gfm-dev
libcmark-gfm-extensions-dev libsqlite3-dev libpq-dev libcmocka-dev python3 python3-pip git
clang sqlite3 strace postgresql postgresql-client chromium fonts-noto-color-emoji
bubblewrap"
# scipy, from PyPI: the reference test_stats compares the gate's
# statistics with (the test skips, saying so, without it).
scipy() {
	python3 -c "import scipy" 2>/dev/null && return 0
	echo "deps: installing scipy (pip)"
	python3 -m pip install --user -q scipy 2>/dev/null ||
		python3 -m pip install --user -q --break-system-packages scipy ||
		echo "deps: could not install scipy; test_stats will skip its reference cases"
}
# junitparser, from PyPI: the JUnit parser EnricoMi's
# publish-unit-test-result-action reads reports with; tests/e2e/test_report.sh
# parses skillci's JUnit with it (and says it skipped that without it).
JUNITPARSER_VERSION=5.0.3
junitparser() {
	python3 -c "import junitparser" 2>/dev/null && return 0
	echo "deps: installing junitparser $JUNITPARSER_VERSION (pip)"
	python3 -m pip install --user -q "junitparser==$JUNITPARSER_VERSION" 2>/dev/null ||
		python3 -m pip install --user -q --break-system-packages "junitparser==$JUNITPARSER_VERSION" ||
		echo "deps: could not install junitparser; test_report will skip its junitparser case"
}
# fast-agent-mcp at every version whose model strings skillci reads, each
# in a private virtual environment under $SKILLCI_FAST_AGENT_DIR (default
# ~/.cache/skillci/fast-agent/VERSION), for tests/e2e/test_parity.sh,
# which compares skillci's reading of model strings with fast-agent's own.
# fast-agent wants Python 3.13 (pyenv's on these machines; 0.4.x declares
# >= 3.13.5, hence --ignore-requires-python). A version already installed
# (its .skillci-ok marker) is skipped at once; one that cannot be
# installed (no network, no Python 3.13) is reported, and the parity
# suite skips it, saying why.
FAST_AGENT_VERSIONS="0.4.53 0.6.7 0.10.48"
fast_agent_python() {
	for py in "${SKILLCI_PYTHON313:-}" "$(command -v python3.13 2>/dev/null)" \
		$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13*/bin/python3.13 2>/dev/null | sort -r); do
		[ -n "$py" ] && [ -x "$py" ] && "$py" -c 'import venv' 2>/dev/null && {
			echo "$py"
			return 0
		}
	done
	return 1
}
fast_agent() {
	dir=${SKILLCI_FAST_AGENT_DIR:-$HOME/.cache/skillci/fast-agent}
	py=""
	for v in $FAST_AGENT_VERSIONS; do
		if [ -f "$dir/$v/.skillci-ok" ]; then
			echo "deps: fast-agent-mcp $v present ($dir/$v)"
			continue
		fi
		[ -n "$py" ] || py=$(fast_agent_python) || {
			echo "deps: no Python 3.13 found (pyenv's, python3.13 or SKILLCI_PYTHON313); the parity suite will skip fast-agent $FAST_AGENT_VERSIONS"
			return 0
		}
		echo "deps: installing fast-agent-mcp $v into $dir/$v (pip, $py)"
		rm -rf "$dir/$v.tmp"
		mkdir -p "$dir"
		if "$py" -m venv "$dir/$v.tmp" &&
			"$dir/$v.tmp/bin/python" -m pip install -q --disable-pip-version-check \
				--ignore-requires-python "fast-agent-mcp==$v" &&
			"$dir/$v.tmp/bin/python" -c 'import fast_agent.llm.model_factory'; then
			rm -rf "$dir/$v"
			mv "$dir/$v.tmp" "$dir/$v"
			echo "$v" > "$dir/$v/.skillci-ok"
		else
			rm -rf "$dir/$v.tmp"
			echo "deps: could not install fast-agent-mcp $v; the parity suite will skip it"
		fi
	done
}
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "deps: all packages present"
	install_zizmor
	scipy
	junitparser
	fast_agent
	exit 0
fi
echo "deps: installing$missing"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing
install_zizmor
scipy
junitparser
fast_agent
