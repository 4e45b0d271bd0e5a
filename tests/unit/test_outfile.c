/* lib/outfile.c: atomic outputs.  A unique temporary, never a fixed name;
 * never written through a link; the target's mode kept; refusal of
 * directories, FIFOs and devices; nothing left behind on an error or a
 * signal; a group replaces all its targets or none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/outfile.h"

static char dir[4096];

static int setup(void **state)
{
	(void)state;
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/outfile.XXXXXX", t && *t ? t : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void at(char *buf, const char *name)
{
	snprintf(buf, 4200, "%s/%s", dir, name);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Files in the directory, hidden ones included. */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void write_file(const char *path, const char *text)
{
	struct outfile o;
	char err[512];
	if (outfile_open(&o, "--json", path, err, sizeof(err)))
		fail_msg("%s", err);
	fputs(text, o.f);
	if (outfile_commit(&o, err, sizeof(err)))
		fail_msg("%s", err);
}

static void test_writes_and_leaves_no_temporary(void **state)
{
	(void)state;
	char p[4200];
	at(p, "a.json");
	write_file(p, "one\n");
	assert_string_equal(get(p), "one\n");
	write_file(p, "two\n");
	assert_string_equal(get(p), "two\n");
	assert_int_equal(entries(), 1);
}

static void test_planted_link_is_replaced_not_followed(void **state)
{
	(void)state;
	char victim[4200], p[4200], tmp[4200];
	struct stat st;
	at(victim, "victim");
	at(p, "out.json");
	at(tmp, "out.json.tmp"); /* the old fixed temporary's name */
	put(victim, "precious\n");
	assert_int_equal(symlink(victim, p), 0);
	assert_int_equal(symlink(victim, tmp), 0);
	write_file(p, "report\n");
	assert_string_equal(get(victim), "precious\n");
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_string_equal(get(p), "report\n");
}

static void test_keeps_the_targets_mode(void **state)
{
	(void)state;
	char p[4200], q[4200];
	struct stat st;
	at(p, "private.json");
	put(p, "old\n");
	assert_int_equal(chmod(p, 0600), 0);
	write_file(p, "new\n");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	/* a new file: 0666 less the umask */
	mode_t mask = umask(022);
	at(q, "new.json");
	write_file(q, "x\n");
	umask(mask);
	assert_int_equal(stat(q, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
}

static void test_refuses_directories_fifos_devices(void **state)
{
	(void)state;
	char p[4200], err[512];
	struct outfile o;
	at(p, "d");
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(outfile_open(&o, "--json", p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is a directory"));
	at(p, "fifo");
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(outfile_open(&o, "--json", p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is a FIFO"));
	assert_int_equal(outfile_check("--json", "/dev/null", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "is a device"));
	at(p, "no-such-dir/x.json");
	assert_int_equal(outfile_check("--json", p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no such directory"));
	assert_int_equal(outfile_check("--json", "", err, sizeof(err)), -1);
	assert_int_equal(entries(), 2); /* the directory and the FIFO, nothing else */
}

static void test_discard_leaves_target_alone(void **state)
{
	(void)state;
	char p[4200], err[512];
	struct outfile o;
	at(p, "keep.json");
	put(p, "old\n");
	assert_int_equal(outfile_open(&o, "--json", p, err, sizeof(err)), 0);
	fputs("half", o.f);
	outfile_discard(&o);
	outfile_discard(&o);
	assert_string_equal(get(p), "old\n");
	assert_int_equal(entries(), 1);
}

/* SIGTERM while a file is being written: the temporary goes, the target
 * stays as it was. */
static void test_signal_removes_temporaries(void **state)
{
	(void)state;
	char p[4200];
	at(p, "big.json");
	put(p, "old\n");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct outfile o[2];
		char err[512], q[4200];
		at(q, "big.txt");
		if (outfile_open(&o[0], "--trace", p, err, sizeof(err)) ||
		    outfile_open(&o[1], "--trace", q, err, sizeof(err)))
			_exit(3);
		fputs("partial", o[0].f);
		fflush(o[0].f);
		kill(getpid(), SIGTERM);
		_exit(4); /* not reached */
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_string_equal(get(p), "old\n");
	assert_int_equal(entries(), 1);
}

/* A group replaces all of its targets; one that cannot be finished leaves
 * every old target as it was and no new file. */
static void test_group_all_or_nothing(void **state)
{
	(void)state;
	char a[4200], b[4200], err[512];
	struct outfile o[2];
	at(a, "t.json");
	at(b, "t.txt");
	put(a, "old json\n");
	put(b, "old text\n");
	assert_int_equal(outfile_open(&o[0], "--trace", a, err, sizeof(err)), 0);
	assert_int_equal(outfile_open(&o[1], "--trace", b, err, sizeof(err)), 0);
	fputs("new json\n", o[0].f);
	fputs("new text\n", o[1].f);
	assert_int_equal(outfile_commit_group(o, 2, err, sizeof(err)), 0);
	assert_string_equal(get(a), "new json\n");
	assert_string_equal(get(b), "new text\n");
	assert_int_equal(entries(), 2);

	assert_int_equal(outfile_open(&o[0], "--trace", a, err, sizeof(err)), 0);
	assert_int_equal(outfile_open(&o[1], "--trace", b, err, sizeof(err)), 0);
	fputs("newer json\n", o[0].f);
	outfile_release(&o[1]);
	unlink(o[1].tmp); /* the second one's temporary is lost */
	assert_int_equal(outfile_commit_group(o, 2, err, sizeof(err)), -1);
	assert_string_equal(get(a), "new json\n");
	assert_string_equal(get(b), "new text\n");
	assert_int_equal(entries(), 2);
}

static void test_same_file(void **state)
{
	(void)state;
	char a[4200], b[4200], c[4200];
	at(a, "x.json");
	snprintf(b, sizeof(b), "%s/./x.json", dir);
	at(c, "y.json");
	assert_true(outfile_same(a, b));
	assert_false(outfile_same(a, c));
	put(c, "y\n");
	at(b, "link.json");
	assert_int_equal(symlink(c, b), 0);
	assert_true(outfile_same(b, c)); /* both exist: the same inode */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_writes_and_leaves_no_temporary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_link_is_replaced_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keeps_the_targets_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_directories_fifos_devices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_discard_leaves_target_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal_removes_temporaries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_group_all_or_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_file, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
