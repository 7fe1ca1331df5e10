# Hashing: the benchmark driver for tests/bench/bench_sha256.sh, a small
# program that times core/sha256 on a buffer and prints its digest.

BENCH_SHA256 := $(BUILD)/tests/bench/bench_sha256
PROGRAMS += $(BENCH_SHA256)

$(BENCH_SHA256): $(BUILD)/tests/bench/bench_sha256.o $(CORE_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
