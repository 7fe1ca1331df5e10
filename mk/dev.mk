# Developer tooling.
#
#   make compile_commands.json   the compilation database clangd and
#                                clang-tidy read: every .c of the programs,
#                                the unit tests, the benchmarks and the fuzz
#                                targets, each with its own include path
#                                (recorded by Debian's bear from a full build
#                                in $(BUILD)/cdb, so your build is untouched)

.PHONY: compile_commands.json fuzz-objs

compile_commands.json:
	bear --output $(CURDIR)/$@ -- $(MAKE) -B BUILD=$(BUILD)/cdb programs unit fuzz-objs
	@echo "$@: $$(grep -c '"file":' $@) files"

# The fuzz targets' own sources, compiled with the normal compiler (linking
# them needs clang's libFuzzer: make fuzz).
fuzz-objs: $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/fuzz/fuzz_*.c))
