# Results store: the benchmark driver for tests/bench/bench_store.sh, a
# small program whose writer processes write units into one store.

BENCH_STORE := $(BUILD)/tests/bench/bench_store
PROGRAMS += $(BENCH_STORE)

$(BENCH_STORE): $(BUILD)/tests/bench/bench_store.o $(LIB_A) $(CORE_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
