#!/bin/sh
# The main job on the example skills: validate them and list them.
# (Grows into a full PR check once 'skillci run' exists.)
set -u
skillci=${1:?usage: demo.sh SKILLCI}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
echo "== skillci validate skills/"
"$skillci" validate skills/ || exit $?
echo
echo "== skillci list -d skills/"
"$skillci" list -d skills/
