# The agent jail's helper, skillci-jail (runner/jail/helper.c): the
# process 1 of every agent jail, started by bubblewrap (docs/security.md,
# "The agent jail"). It links only libc (statically where it can), sees
# only runner/jail/, and is
# built without sanitizers: it makes itself not dumpable (no ptrace by
# the commands it runs), which LeakSanitizer's checks would need.
JAIL_HELPER := $(BUILD)/skillci-jail
JAIL_OBJS   := $(BUILD)/runner/jail/helper.o

$(JAIL_OBJS): INC := -iquote runner/jail
$(JAIL_OBJS): CFLAGS := $(WARN) $(OPT) -MMD -MP

# Linked statically where the C library's static archive is installed
# (Debian's libc6-dev has it): every jail executes the helper, and a
# static one skips the dynamic loader's work at each start. Elsewhere
# the dynamic link is the fallback.
$(JAIL_HELPER): $(JAIL_OBJS)
	$(CC) -static -o $@ $^ 2>/dev/null || $(CC) -o $@ $^

PROGRAMS += $(JAIL_HELPER)
-include $(JAIL_OBJS:.o=.d)
