# skillci build. Objects go under $(BUILD)/ (default build/); the programs
# are $(BUILD)/skillci and, when CUDA is found, $(BUILD)/skillci-kernel.
#
#   make            build
#   make check      build and run every test suite, in parallel (one per core,
#                   or make -jN check); last line "N passed, N failed"
#   make asan       the same suite under AddressSanitizer + UBSan (build-asan/)
#   make tsan       the threaded suites under ThreadSanitizer (build-tsan/)
#   make demo       install missing packages, build, run the main job
#   make deps       install missing Debian packages (apt-get)
#   make bench      benchmarks (tests/bench/), numbers printed, nothing asserted
#
# Fragments in mk/*.mk add targets per area (kernel worker, fuzzing, ...).

.DEFAULT_GOAL := all
BUILD     ?= build
CC        ?= cc
CUDA_HOME ?= /usr/local/cuda
SAN       ?=

WARN := -std=c11 -Wall -Wextra -Wpedantic -Wstrict-prototypes \
        -Wmissing-prototypes -Wvla -Wwrite-strings -Wshadow -Wformat=2 \
        -fno-common -Werror
OPT      ?= -O2 -g
PKGS     := libgit2 libcurl libcjson yaml-0.1 libxml-2.0 libcmark-gfm sqlite3 libpq
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# Before `make deps` pkg-config finds nothing and every compile would fail
# on a missing header: say which packages are missing instead, only when
# pkg-config fails, and only for goals that build (deps, demo, which runs
# deps first, and clean need none).
PKG_OK := $(shell pkg-config --exists $(PKGS) 2>/dev/null && echo 1)
ifneq ($(PKG_OK),1)
ifneq ($(filter-out deps demo clean,$(or $(MAKECMDGOALS),all)),)
ifeq ($(shell command -v pkg-config),)
$(error pkg-config is not installed, so none of $(PKGS) can be found: run `make deps` first (or install pkg-config and the -dev packages of docs/development.md))
endif
PKG_MISSING := $(foreach p,$(PKGS),$(if $(shell pkg-config --exists $(p) 2>/dev/null && echo 1),,$(p)))
$(error pkg-config cannot find $(or $(PKG_MISSING),$(PKGS)): run `make deps` first (it installs them), then `make` again)
endif
endif
SC_VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

CPPFLAGS += -D_GNU_SOURCE -DSC_VERSION='"$(SC_VERSION)"'
CFLAGS   := $(WARN) $(OPT) $(SAN) -MMD -MP

# Include paths per layer (docs/architecture.md): core headers are named
# bare ("buf.h"), every other part by its folder ("skills/skill.h",
# "reporters/report_md.h"). Core and the kernel worker see only their own
# folders, so an include across the boundary fails to build; the library,
# the commands and the tests see everything. scripts/check-layers.sh checks the
# finer rules (reporters read only results and core, the library never
# includes a command or a reporter).
CORE_INC   := -iquote runner/core
KERNEL_INC := -iquote runner/core -iquote runner/kernel
LIB_INC    := -iquote runner/core -iquote runner -iquote .
INC        := $(LIB_INC)
LDFLAGS  += $(SAN)
LDLIBS   += $(PKG_LIBS) -lm -lpthread

HAVE_CUDA := $(shell test -f $(CUDA_HOME)/include/nvrtc.h && echo 1)

# runner/core/ is shared by both programs (libc and cJSON only):
# libskillci-core.a. The orchestrator's library, libskillci.a, is every
# other part of runner/ and reporters/, without the commands (runner/cmd/)
# and the kernel worker (runner/kernel/); the unit tests link the two
# archives, the skillci program adds the commands.
CORE_SRC := $(wildcard runner/core/*.c)
CORE_OBJS := $(CORE_SRC:%.c=$(BUILD)/%.o)
CORE_A   := $(BUILD)/libskillci-core.a
LIB_PARTS := $(filter-out runner/core/ runner/cmd/ runner/kernel/ runner/jail/,$(sort $(dir $(wildcard runner/*/*.c))))
LIB_SRC  := $(wildcard $(LIB_PARTS:%=%*.c) reporters/*.c)
LIB_OBJS := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB_A    := $(BUILD)/libskillci.a
CMD_SRC  := $(wildcard runner/cmd/*.c)
CMD_OBJS := $(CMD_SRC:%.c=$(BUILD)/%.o)
SKILLCI  := $(BUILD)/skillci

UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%)
PROGRAMS  := $(SKILLCI)

# Area fragments may append to LIB_OBJS, UNIT_BINS and PROGRAMS and add
# their own rules; they are read before any rule uses those lists.
-include $(sort $(wildcard mk/*.mk))

.PHONY: all check asan tsan demo deps bench clean unit e2e gpu-check programs
.SECONDARY:
all: programs

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(INC) $(PKG_CFLAGS) $(CFLAGS) -c $< -o $@

$(CORE_OBJS): INC := $(CORE_INC)

$(CORE_A): $(CORE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(SKILLCI): $(CMD_OBJS) $(LIB_A) $(CORE_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(BUILD)/tests/unit/unit.o $(LIB_A) $(CORE_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

programs: $(PROGRAMS)
unit: $(UNIT_BINS)

# Every suite: cmocka binaries (TAP output) and end-to-end shell cases; the
# runner prints one closing line "N passed, N failed[, N skipped]". Suites
# run in parallel: make -jN check runs N at a time, plain make check one
# per core; JOBS=N says it outright (JOBS=1: one after the other).
check: programs $(UNIT_BINS)
	@jobs="$(JOBS)"; [ -n "$$jobs" ] || \
	  jobs=$$(echo " $$MAKEFLAGS " | sed -n 's/.* -j\([0-9][0-9]*\) .*/\1/p'); \
	  BUILD=$(BUILD) SKILLCI=$(abspath $(SKILLCI)) HAVE_CUDA=$(HAVE_CUDA) SAN="$(SAN)" \
	  CUDA_HOME=$(CUDA_HOME) JOBS="$$jobs" sh tests/run-tests.sh $(UNIT_BINS)

asan:
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" check

# ThreadSanitizer over the suites whose code runs threads: the client's
# loop with completions posted from the kernel check pool, the pool
# itself, retries and faults, a large results file's signature checked
# beside its parse (test_results), the reports made in parts over the
# cores and a file's writing thread (test_core, test_verdict) (not test_kernel: its strace probes would see
# the TSan runtime's own files). A race stops the process (halt_on_error),
# so the suite that ran it fails. Not part of check: the TSan build is a
# third build of the tree.
TSAN_SUITES := test_pipeline test_eval test_provider test_http test_faults test_run test_agent \
	       test_results test_core test_verdict
tsan:
	$(MAKE) BUILD=build-tsan OPT="-O1 -g" SAN="-fsanitize=thread" programs unit
	@TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" TESTS="$(TSAN_SUITES)" \
	  $(MAKE) --no-print-directory BUILD=build-tsan OPT="-O1 -g" SAN="-fsanitize=thread" check

deps:
	@sh tests/install-deps.sh

demo: deps
	$(MAKE) programs
	@sh tests/demo.sh $(abspath $(SKILLCI))

bench: programs
	@BUILD=$(BUILD) SKILLCI=$(abspath $(SKILLCI)) sh tests/bench/run.sh

clean:
	rm -rf build build-asan build-tsan build-fuzz

-include $(CORE_OBJS:.o=.d) $(LIB_OBJS:.o=.d) $(CMD_OBJS:.o=.d) $(UNIT_BINS:=.d)
