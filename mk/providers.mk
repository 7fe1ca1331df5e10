# Model providers: the benchmark driver for tests/bench/bench_providers.sh,
# a small program that pushes many requests through struct sc_client.

BENCH_PROVIDERS := $(BUILD)/tests/bench/bench_providers
PROGRAMS += $(BENCH_PROVIDERS)

$(BENCH_PROVIDERS): $(BUILD)/tests/bench/bench_providers.o $(LIB_A) $(CORE_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# header dependencies (-MMD), so a changed header rebuilds the driver
-include $(BUILD)/tests/bench/bench_providers.d
