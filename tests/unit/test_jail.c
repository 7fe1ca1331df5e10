/*
 * The agent jail (runner/agent/jail.c) against the real bubblewrap: what
 * a command inside can and cannot do, checked from the host afterwards.
 * Without a working bubblewrap every case skips, saying why.
 */
#include "unit.h"

#include "agent/jail.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static void need_jail(void)
{
	if (sc_jail_probe() == 0)
		return;
	printf("# %s\n", sc_error_last());
	skip();
}

struct fixture {
	char *dir;          /* host scratch folder */
	char *skill;        /* a skill folder mounted read-only */
	struct sc_jail *jail;
	struct sc_jail_limits lim;
};

static void start(struct fixture *f)
{
	struct sc_jail_mount m;

	struct sc_buf b = SC_BUF_INIT;

	need_jail();
	f->dir = sc_test_mkdtemp();
	assert_int_equal(sc_jail_stage_dir(&b), 0);
	sc_buf_puts(&b, "/demo");
	f->skill = sc_buf_detach(&b, NULL);
	sc_test_write(f->skill, "SKILL.md", "---\nname: demo\n---\nUse me.\n");
	sc_test_write(f->skill, "scripts/hello.sh", "echo hello from the skill\n");
	m.name = "demo";
	m.host_dir = f->skill;
	sc_jail_limits_init(&f->lim);
	f->lim.command_timeout_ms = 5000;
	f->lim.file_bytes = 8 * 1024 * 1024;
	f->lim.workspace_bytes = 32 * 1024 * 1024;
	f->lim.processes = 32;
	f->lim.cpu_s = 4321;  /* on the helper's command line: this test's jails */
	if (sc_jail_start(&f->jail, &f->lim, &m, 1) < 0)
		fail_msg("%s", sc_error_last());
}

static void stop(struct fixture *f)
{
	sc_jail_free(f->jail);
	if (f->dir)
		sc_rm_rf(f->dir);
	if (f->skill) {
		char *slash = strrchr(f->skill, '/');
		*slash = '\0';
		sc_rm_rf(f->skill);
	}
	free(f->dir);
	free(f->skill);
}

/* Runs cmd; returns its exit code (-1 for a signal or a timeout); the
 * output in out when not NULL. */
static int run(struct fixture *f, struct sc_jail_run *r, const char *cmd)
{
	int err = sc_jail_exec(f->jail, r, cmd, 0);

	if (err < 0)
		fail_msg("jail: %s", sc_error_last());
	return r->exit_code;
}

static void test_files(void **state)
{
	struct fixture f = { 0 };
	struct sc_buf out = SC_BUF_INIT;
	int64_t size = 0;

	(void)state;
	start(&f);
	assert_int_equal(sc_jail_write(f.jail, "sub/dir/a.txt", "alpha\n", 6), 0);
	assert_int_equal(sc_jail_read(f.jail, &out, &size, "sub/dir/a.txt", 100), 0);
	assert_string_equal(out.ptr, "alpha\n");
	assert_int_equal(size, 6);
	assert_int_equal(sc_jail_read(f.jail, &out, &size, "sub/dir/a.txt", 3), 0);
	assert_string_equal(out.ptr, "alp");
	assert_int_equal(size, 6);
	assert_int_equal(sc_jail_list(f.jail, &out, "."), 0);
	assert_non_null(strstr(out.ptr, ".skills\tdir\t"));
	assert_non_null(strstr(out.ptr, "sub\tdir\t"));
	assert_int_equal(sc_jail_read(f.jail, &out, &size, ".skills/demo/SKILL.md", 1000), 0);
	assert_non_null(strstr(out.ptr, "name: demo"));
	/* refusals carry the jail's reason, for the model */
	assert_int_equal(sc_jail_read(f.jail, &out, &size, "nope.txt", 10), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "No such file"));
	assert_int_equal(sc_jail_read(f.jail, &out, &size, "sub", 10), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "folder"));
	assert_int_equal(sc_jail_write(f.jail, ".skills/demo/SKILL.md", "x", 1), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "Read-only"));
	assert_int_equal(sc_jail_stat(f.jail, &out, "sub/dir/a.txt"), 0);
	assert_string_equal(out.ptr, "file 6");
	sc_buf_release(&out);
	stop(&f);
}

static void test_commands(void **state)
{
	struct fixture f = { 0 };
	struct sc_jail_run r;

	(void)state;
	start(&f);
	sc_jail_run_init(&r);
	assert_int_equal(run(&f, &r, "echo out; echo err >&2; exit 3"), 3);
	assert_string_equal(r.output.ptr, "out\nerr\n");
	assert_int_equal(run(&f, &r, "sh .skills/demo/scripts/hello.sh > said.txt && cat said.txt"), 0);
	assert_string_equal(r.output.ptr, "hello from the skill\n");
	/* the workspace persists between commands; the user is not root */
	assert_int_equal(run(&f, &r, "test -f said.txt && id -un && test \"$(id -u)\" != 0 && pwd && "
			 "echo $HOME"), 0);
	assert_string_equal(r.output.ptr, "agent\n/workspace\n/workspace\n");
	/* output beyond the limit is counted, not kept */
	assert_int_equal(run(&f, &r, "head -c 200000 /dev/zero | tr '\\0' x"), 0);
	assert_int_equal(r.output.len, SC_JAIL_DEFAULT_OUTPUT);
	assert_int_equal(r.output_total, 200000);
	sc_jail_run_release(&r);
	stop(&f);
}

/* No network: the jail's loopback is its own, the host's listener sees nothing. */
static void test_no_network(void **state)
{
	struct fixture f = { 0 };
	struct sc_jail_run r;
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	struct sc_buf cmd = SC_BUF_INIT;
	int lfd, cfd;

	(void)state;
	start(&f);
	sc_jail_run_init(&r);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 4), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
	sc_buf_printf(&cmd, "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", %d), 2)'"
		      " 2>&1 | tail -1; python3 -c 'import socket; socket.create_connection("
		      "(\"1.1.1.1\", 443), 2)' 2>&1 | tail -1; cat /proc/net/dev | grep -c :",
		      ntohs(sa.sin_port));
	run(&f, &r, cmd.ptr);
	assert_non_null(strstr(r.output.ptr, "Connection refused"));
	assert_non_null(strstr(r.output.ptr, "Network is unreachable"));
	assert_non_null(strstr(r.output.ptr, "\n1\n"));  /* lo only */
	cfd = accept(lfd, NULL, NULL);
	assert_int_equal(cfd, -1);  /* nothing reached the host */
	close(lfd);
	sc_buf_release(&cmd);
	sc_jail_run_release(&r);
	stop(&f);
}

/* Nothing of the host but /usr and a few /etc files: no home, no runner
 * key, no scratch folder, no repository. */
static void test_no_view_of_host(void **state)
{
	struct fixture f = { 0 };
	struct sc_jail_run r;
	struct sc_buf cmd = SC_BUF_INIT;
	const char *key = getenv("SKILLCI_RUNNER_KEY_FILE"), *home = getenv("HOME");

	(void)state;
	start(&f);
	sc_jail_run_init(&r);
	sc_test_write(f.dir, "secret.txt", "host secret\n");
	sc_buf_printf(&cmd, "cat '%s/secret.txt' '%s' 2>&1; ls '%s' 2>&1; ls / | tr '\\n' ' '; "
		      "env | sort | tr '\\n' ' '", f.dir, key ? key : "/nonexistent-key",
		      home ? home : "/root");
	run(&f, &r, cmd.ptr);
	assert_null(strstr(r.output.ptr, "host secret"));
	assert_non_null(strstr(r.output.ptr, "No such file"));
	assert_non_null(strstr(r.output.ptr, "bin dev etc lib"));
	assert_null(strstr(r.output.ptr, " root "));
	assert_null(strstr(r.output.ptr, " home "));
	assert_null(strstr(r.output.ptr, " work "));
	/* the environment is the jail's own: no keys, no runner variables */
	assert_null(strstr(r.output.ptr, "SKILLCI"));
	assert_null(strstr(r.output.ptr, "API_KEY"));
	assert_non_null(strstr(r.output.ptr, "HOME=/workspace"));
	sc_buf_release(&cmd);
	sc_jail_run_release(&r);
	stop(&f);
}

/* The workspace and /tmp are the only places written; the host is unchanged. */
static void test_writes_stay_inside(void **state)
{
	struct fixture f = { 0 };
	struct sc_jail_run r;
	struct sc_buf cmd = SC_BUF_INIT, path = SC_BUF_INIT;
	struct stat st;

	(void)state;
	start(&f);
	sc_jail_run_init(&r);
	sc_buf_printf(&cmd, "for p in /x /usr/x /etc/x /dev/x '%s/escaped' .skills/demo/x; do "
		      "touch \"$p\" 2>/dev/null && echo WROTE $p; done; mkdir -p '%s' 2>&1 | tail -1;"
		      " ln -s / root; touch /tmp/t && echo tmp-ok", f.dir, f.dir);
	run(&f, &r, cmd.ptr);
	assert_null(strstr(r.output.ptr, "WROTE"));
	assert_non_null(strstr(r.output.ptr, "tmp-ok"));
	sc_path_join(&path, f.dir, "escaped");
	assert_int_not_equal(stat(path.ptr, &st), 0);
	sc_buf_clear(&path);
	sc_path_join(&path, f.skill, "x");
	assert_int_not_equal(stat(path.ptr, &st), 0);
	assert_int_not_equal(stat("/x", &st), 0);
	sc_buf_release(&cmd);
	sc_buf_release(&path);
	sc_jail_run_release(&r);
	stop(&f);
}

/* A process count of the host's processes whose command line holds marker. */
static int host_processes_with(const char *marker)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		struct sc_buf path = SC_BUF_INIT, data = SC_BUF_INIT;
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		sc_buf_printf(&path, "/proc/%s/cmdline", e->d_name);
		if (sc_read_file(&data, path.ptr, 4096) == 0) {
			for (size_t i = 0; i < data.len; i++)
				if (!data.ptr[i])
					data.ptr[i] = ' ';
			if (strstr(data.ptr, marker))
				n++;
		}
		sc_error_clear();
		sc_buf_release(&path);
		sc_buf_release(&data);
	}
	if (d)
		closedir(d);
	return n;
}

/* Limits: a fork bomb, a 10 GB file, a command that never ends, a process
 * left running, memory: each contained, the next command unaffected. */
static void test_limits(void **state)
{
	struct fixture f = { 0 };
	struct sc_jail_run r;
	struct sc_buf d = SC_BUF_INIT;

	(void)state;
	start(&f);
	sc_jail_run_init(&r);

	/* a fork bomb stops at the process limit and ends with the command */
	run(&f, &r, "b() { b | b & }; b; sleep 1; echo bombed");
	assert_int_equal(sc_jail_exec(f.jail, &r, "ps -e 2>/dev/null | wc -l; echo after", 0), 0);
	assert_int_equal(r.exit_code, 0);
	assert_non_null(strstr(r.output.ptr, "after"));

	/* a 10 GB file: the file-size limit */
	run(&f, &r, "dd if=/dev/zero of=big bs=1M count=10240");
	assert_int_equal(r.exit_code, 128 + SIGXFSZ);
	sc_jail_run_describe(&d, &r, 0);
	assert_non_null(strstr(d.ptr, "file size limit"));
	assert_int_equal(run(&f, &r, "rm big && echo ok"), 0);

	/* the workspace's own size: many files under the per-file limit */
	run(&f, &r, "for i in 1 2 3 4 5 6; do dd if=/dev/zero of=f$i bs=1M count=7 2>/dev/null "
		    "|| { echo full at $i; break; }; done; rm -f f*");
	assert_non_null(strstr(r.output.ptr, "full at"));

	/* a command that never ends: the wall-time limit */
	assert_int_equal(sc_jail_exec(f.jail, &r, "while :; do :; done", 500), 0);
	assert_true(r.timed_out);
	sc_buf_clear(&d);
	sc_jail_run_describe(&d, &r, 500);
	assert_non_null(strstr(d.ptr, "timed out"));

	/* a process left running is killed when its command ends */
	assert_int_equal(run(&f, &r, "(setsid sleep 987654 > /dev/null 2>&1 &) ; echo started"), 0);
	assert_int_equal(host_processes_with("sleep 987654"), 0);
	assert_int_equal(run(&f, &r, "ps -e -o comm= | grep -c sleep"), 1);

	/* memory: the address-space limit */
	run(&f, &r, "python3 -c 'x = bytearray(8 * 1024 ** 3)' 2>&1 | tail -1");
	assert_non_null(strstr(r.output.ptr, "MemoryError"));

	/* killing everything from inside spares the helper: the jail answers on */
	run(&f, &r, "kill -9 -1; echo not-reached");
	assert_int_equal(run(&f, &r, "echo still here"), 0);
	assert_string_equal(r.output.ptr, "still here\n");

	sc_buf_release(&d);
	sc_jail_run_release(&r);
	stop(&f);
}

/* Ending a jail ends everything in it, also a command still running. */
static void test_end_kills_everything(void **state)
{
	struct fixture f = { 0 };
	struct sc_jail_run r;

	(void)state;
	start(&f);
	sc_jail_run_init(&r);
	assert_int_equal(sc_jail_exec(f.jail, &r, "sleep 876543", 300), 0);
	assert_true(r.timed_out);
	assert_int_equal(host_processes_with("sleep 876543"), 0);
	/* this jail's helper, by the CPU limit on its command line (other
	 * suites may run jails beside this one) */
	assert_true(host_processes_with("skillci-jail 4321 ") >= 1);  /* bubblewrap and the helper */
	sc_jail_free(f.jail);
	f.jail = NULL;
	assert_int_equal(host_processes_with("skillci-jail 4321 "), 0);
	sc_jail_run_release(&r);
	stop(&f);
}

/* A jail that cannot run says so and runs nothing outside. */
static void test_unavailable(void **state)
{
	struct sc_jail *j = NULL;
	char *old = getenv("SKILLCI_BWRAP") ? sc_xstrdup(getenv("SKILLCI_BWRAP")) : NULL;

	(void)state;
	setenv("SKILLCI_BWRAP", "/nonexistent/bwrap", 1);
	assert_int_equal(sc_jail_start(&j, NULL, NULL, 0), SC_ENOSYS);
	assert_null(j);
	assert_true(sc_starts_with(sc_error_last(), "jail unavailable: "));
	/* a bubblewrap that fails: its message is carried */
	setenv("SKILLCI_BWRAP", "/bin/false", 1);
	assert_int_equal(sc_jail_start(&j, NULL, NULL, 0), SC_ENOSYS);
	assert_true(sc_starts_with(sc_error_last(), "jail unavailable: "));
	if (old) {
		setenv("SKILLCI_BWRAP", old, 1);
		free(old);
	} else {
		unsetenv("SKILLCI_BWRAP");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_no_network),
		cmocka_unit_test(test_no_view_of_host),
		cmocka_unit_test(test_writes_stay_inside),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_end_kills_everything),
		cmocka_unit_test(test_unavailable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
