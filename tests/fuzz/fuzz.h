#ifndef SC_FUZZ_H
#define SC_FUZZ_H
/*
 * Shared by the libFuzzer targets in tests/fuzz/ (mk/fuzz.mk builds them
 * with clang -fsanitize=fuzzer,address,undefined). Each target feeds its
 * input through skillci's real parsing API; the helpers here give the
 * file-based APIs a scratch folder in tmpfs (/dev/shm when it exists) that
 * lives as long as the process, and a file in it rewritten per input.
 */
#include "common.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The scratch folder, made on first use; a fuzzer run cannot go on without it. */
static inline const char *fuzz_dir(void)
{
	static char dir[64];

	if (!dir[0]) {
		const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
		snprintf(dir, sizeof(dir), "%s/skillci-fuzz.XXXXXX", base);
		if (!mkdtemp(dir))
			sc_die("fuzz: cannot make a scratch folder in %s", base);
	}
	return dir;
}

/* Writes data to dir/rel (replacing it) and returns the full path in out. */
static inline void fuzz_write(struct sc_buf *out, const char *rel, const uint8_t *data, size_t size)
{
	int fd;

	sc_buf_clear(out);
	sc_buf_printf(out, "%s/%s", fuzz_dir(), rel);
	fd = open(out->ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd) < 0)
		sc_die("fuzz: cannot write '%s'", out->ptr);
}

#endif
