# Every header compiles on its own (make headers; make check runs it first).
#
# Each header is compiled alone, as the first line of an otherwise empty
# file, with the warnings of the build and the include path of its layer,
# so a header that needs another one included before it fails here rather
# than in whichever file includes it next:
#
#   runner/core/*.h     core only (and cJSON)
#   runner/kernel/*.h   core and the worker (and cJSON)
#   the rest of runner/, reporters/, tests/*/*.h
#                       the library's path and the libraries' pkg-config flags
#
# A stamp per header under $(BUILD)/headers/ keeps a rerun cheap; it is
# redone when the header or anything it includes changes.

HDR_CORE   := $(wildcard runner/core/*.h)
HDR_KERNEL := $(wildcard runner/kernel/*.h)
HDR_LIB    := $(filter-out $(HDR_CORE) $(HDR_KERNEL),$(wildcard runner/*/*.h)) \
	      $(wildcard reporters/*.h)
HDR_TESTS  := $(wildcard tests/unit/*.h tests/fuzz/*.h)
HDR_ALL    := $(HDR_CORE) $(HDR_KERNEL) $(HDR_LIB) $(HDR_TESTS)
HDR_STAMPS := $(HDR_ALL:%=$(BUILD)/headers/%.ok)
CJSON_CFLAGS := $(shell pkg-config --cflags libcjson 2>/dev/null)

.PHONY: headers
headers: $(HDR_STAMPS)
	@echo "headers ok: $(words $(HDR_ALL)) headers compile on their own"

$(HDR_CORE:%=$(BUILD)/headers/%.ok): HDR_INC := $(CORE_INC) $(CJSON_CFLAGS)
$(HDR_KERNEL:%=$(BUILD)/headers/%.ok): HDR_INC := $(KERNEL_INC) $(CJSON_CFLAGS)
$(HDR_LIB:%=$(BUILD)/headers/%.ok): HDR_INC := $(LIB_INC) $(PKG_CFLAGS)
$(HDR_TESTS:%=$(BUILD)/headers/%.ok): HDR_INC := $(LIB_INC) -iquote tests/unit $(PKG_CFLAGS)

# The empty file's one declaration keeps a header of macros alone (banned.h,
# limits.h) from being an empty translation unit.
$(BUILD)/headers/%.h.ok: %.h
	@mkdir -p $(dir $@)
	@echo "  HEADER  $<"
	@echo 'typedef int sc_header_alone;' | $(CC) $(CPPFLAGS) $(HDR_INC) $(WARN) -fsyntax-only \
	  -MMD -MP -MT $@ -MF $@.d -include $< -x c - && touch $@

check: headers

-include $(HDR_STAMPS:%=%.d)
