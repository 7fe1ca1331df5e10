# The layer check (scripts/check-layers.sh, docs/architecture.md): passes
# on the tree, fails on a forbidden include planted in a copy of it, and the
# kernel worker's own include path refuses a header of the orchestrator.
. tests/e2e/lib.sh

run sh scripts/check-layers.sh
expect_exit 0 "layers: the tree passes"
expect_out_contains "layers ok" "layers: says so"

# A copy of the sources to plant includes in.
copy() {
	rm -rf "$T/tree" && mkdir -p "$T/tree"
	cp -r runner reporters fixtures scripts "$T/tree/"
}

# plant FILE LINE NAME EXPECTED: adds LINE after the first line of FILE in a
# fresh copy and checks that the check fails naming FILE and EXPECTED.
plant() {
	copy
	sed -i "1a\\
$2" "$T/tree/$1"
	run sh "$T/tree/scripts/check-layers.sh" "$T/tree"
	expect_exit 1 "layers: $3 is refused"
	expect_out_contains "$1:2: $4" "layers: $3 is named with file and line"
}

plant reporters/report_md.c '#include "providers/provider.h"' \
	"a reporter including a provider" 'reporters may not include providers'
plant reporters/report_junit.c '#include "pipeline/gate.h"' \
	"a reporter including the gate" 'reporters may not include pipeline'
plant runner/kernel/harness.c '#include "../results/store.h"' \
	"the kernel worker including the store" 'kernel may not include results'
plant runner/core/buf.c '#include "skills/skill.h"' \
	"core including a library part" 'core may not include skills'
plant runner/eval/eval.c '#include "cmd/cmd.h"' \
	"the library including a command" 'eval may not include cmd'
plant runner/results/store.c '#include "reporters/report_md.h"' \
	"the library including a reporter" 'results may not include reporters'
plant runner/pipeline/gate.c '#include "kernel/harness.h"' \
	"the library including a worker header" 'pipeline may not include kernel'
plant runner/format/yaml.c '#include "results/results.h"' \
	"a format wrapper including results" 'format may not include results'
plant runner/skills/skill.c '#include <sqlite3.h>' \
	"SQLite outside its wrapper" 'only runner/results/store_sqlite.c may include <sqlite3.h>'
plant runner/results/store.c '#include <libpq-fe.h>' \
	"libpq outside its wrapper (even in the store)" 'only runner/results/store_pg.c may include <libpq-fe.h>'
plant runner/eval/eval.c '  #  include "cmd/cmd.h"' \
	"a spaced include" 'eval may not include cmd'
plant runner/eval/eval.c '%:include "cmd/cmd.h"' \
	"a digraph include" 'eval may not include cmd'

# The kernel worker is compiled with runner/core and runner/kernel only on
# its include path, so the compiler itself refuses an orchestrator header.
if command -v cc > /dev/null; then
	printf '#include "common.h"\n#include "harness.h"\n#include "skills/skill.h"\n' > "$T/w.c"
	run cc -fsyntax-only -iquote runner/core -iquote runner/kernel "$T/w.c"
	expect_exit 1 "layers: the worker's include path does not reach skills/"
	expect_err_contains "skills/skill.h" "layers: the compiler names the header"
	check "layers: Makefile compiles the worker with that include path" \
		grep -q 'KERNEL_INC := -iquote runner/core -iquote runner/kernel$' Makefile
else
	skip "layers: the worker's include path does not reach skills/" "no C compiler"
fi

done_testing
