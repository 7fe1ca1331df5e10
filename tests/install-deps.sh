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
