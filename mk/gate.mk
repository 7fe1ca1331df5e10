# The gate: the simulation driver for tests/bench/bench_gate.sh, a small
# program deciding simulated PRs with the library's statistics and gate.

BENCH_GATE := $(BUILD)/tests/bench/bench_gate
PROGRAMS += $(BENCH_GATE)

$(BENCH_GATE): $(BUILD)/tests/bench/bench_gate.o $(LIB_A) $(CORE_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

-include $(BUILD)/tests/bench/bench_gate.d
