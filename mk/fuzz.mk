# Fuzzing (tests/fuzz/): libFuzzer targets built with clang and ASan+UBSan.
#
#   make fuzz                  build every tests/fuzz/fuzz_*.c into build-fuzz/fuzz/
#   make check-fuzz            run each target FUZZ_SECONDS (60) from its seed corpus
#                              tests/fuzz/corpus/NAME/; fails on any finding
#   make check-fuzz FUZZ_TARGETS="skill spec" FUZZ_SECONDS=600
#
# Each target first replays its whole seed corpus (the inputs that once
# found bugs), then fuzzes until FUZZ_SECONDS have passed since it started:
# check-fuzz takes FUZZ_SECONDS per target (9 targets: 9 minutes at the
# default, 180 s at the 20 s .ci/run gives it) plus the fuzz build.
#
# The library is compiled again with -fsanitize=fuzzer-no-link in its own
# build folder, so the normal build and the fuzz build never share objects.
# New inputs go to build-fuzz/corpus/NAME/ (the seeds are only read) and
# crashes, leaks and timeouts to build-fuzz/findings/NAME/.

FUZZ_BUILD   ?= build-fuzz
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN     := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS ?= $(FUZZ_NAMES)
# clang -Wformat=2 also flags vprintf-style wrappers gcc accepts.
FUZZ_NOWARN  := -Wno-format-nonliteral
FUZZ_BINS    := $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)

.PHONY: fuzz fuzz-targets check-fuzz

fuzz:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) OPT="-O1 -g -fno-omit-frame-pointer $(FUZZ_NOWARN)" \
	  SAN="$(FUZZ_SAN)" fuzz-targets

fuzz-targets: $(FUZZ_BINS)

check-fuzz: fuzz
	@FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_TARGETS)

# The fixture spec parser belongs to the kernel worker: it links the
# worker's own objects, not the orchestrator library (the same common
# objects as KERNEL_COMMON in mk/kernel.mk, which is read after this file).
$(BUILD)/fuzz/fuzz_spec: $(BUILD)/tests/fuzz/fuzz_spec.o $(BUILD)/runner/kernel/spec.o \
			 $(BUILD)/runner/kernel/expr.o $(CORE_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(KERNEL_LIBS)

$(BUILD)/tests/fuzz/fuzz_spec.o: INC := $(KERNEL_INC)

# The PTX scan, the worker's too: its objects and the spec's.
$(BUILD)/fuzz/fuzz_ptx: $(BUILD)/tests/fuzz/fuzz_ptx.o $(BUILD)/runner/kernel/ptx.o $(BUILD)/runner/kernel/scan.o \
			$(BUILD)/runner/kernel/spec.o $(BUILD)/runner/kernel/expr.o $(CORE_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(KERNEL_LIBS)

$(BUILD)/tests/fuzz/fuzz_ptx.o: INC := $(KERNEL_INC)

$(BUILD)/fuzz/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(LIB_A) $(CORE_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

-include $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/fuzz_%.d)
