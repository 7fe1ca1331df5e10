# The CUDA emulation (tests/emu/): fixture kernels compiled for the host by
# the C++ compiler and run through the real harness on the CPU double.
# `make emu-check` checks every fixture's baseline and solution and the
# planted kernels this way (a few minutes); tests/e2e/test_emu.sh runs a
# quick subset in `make check`.
CXX          ?= g++
EMU_DIR      := $(BUILD)/emu
EMU_CHECK_O  := $(BUILD)/tests/emu/emu_check.o
EMU_RT_O     := $(EMU_DIR)/emu_runtime.o
EMU_CXXFLAGS := -std=c++17 -O2 -g -fno-strict-aliasing -Wall -Wno-unknown-pragmas -Wno-unused-function \
		-fsanitize=undefined -fno-sanitize-recover=undefined
EMU_DEPS     := $(EMU_CHECK_O) $(EMU_RT_O) $(KERNEL_CORE) $(REF_OBJS) $(REFS_TABLE_OBJ) $(KERNEL_COMMON)

$(EMU_CHECK_O): INC := $(KERNEL_INC)

$(EMU_RT_O): tests/emu/emu_runtime.cc tests/emu/cuda_emu.h runner/kernel/device.h
	@mkdir -p $(dir $@)
	$(CXX) $(EMU_CXXFLAGS) -I tests/emu -iquote runner/kernel -c $< -o $@

.PHONY: emu-check emu-deps
emu-deps: $(EMU_DEPS)

# make check builds the emulation's objects when there is a C++ compiler
# (tests/e2e/test_emu.sh skips without them).
HAVE_CXX := $(shell command -v $(CXX) >/dev/null 2>&1 && echo 1)
ifeq ($(HAVE_CXX),1)
check: emu-deps
endif

emu-check: emu-deps
	@BUILD=$(BUILD) CXX="$(CXX)" EMU_CXXFLAGS="$(EMU_CXXFLAGS)" KERNEL_LIBS="$(KERNEL_LIBS)" \
	  sh tests/emu/emu-check.sh $(EMU_ARGS)
