// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * check_igt SUBJECT RUN_TESTS BUILD_DIR
 *
 * Runs the library's self-test binary (SUBJECT) and the runner (RUN_TESTS)
 * and checks their exit codes and output lines; then checks that every
 * weft_* test binary in BUILD_DIR lists kebab-case subtests, each with a
 * description, and (without a weft device) that the runner reports them all
 * as skipped. Prints "N passed, M failed" and exits nonzero on a failure.
 */
#include <dirent.h>
#include <regex.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "igt.h"

static int passed, failed;
static const char *subject, *runner, *build_dir;

struct result {
	int rc;
	char *out;
};

/* Runs @cmd through the shell, stdout and stderr together. */
static struct result run(const char *fmt, ...)
{
	struct result r = { .rc = -1 };
	size_t len = 0, cap = 4096;
	char cmd[4096];
	va_list args;
	FILE *f;
	int status;

	va_start(args, fmt);
	vsnprintf(cmd, sizeof(cmd) - 8, fmt, args);
	va_end(args);
	strcat(cmd, " 2>&1");

	r.out = malloc(cap);
	f = popen(cmd, "r");
	if (!f || !r.out) {
		perror(cmd);
		exit(1);
	}
	while (!feof(f)) {
		if (len + 1024 > cap)
			r.out = realloc(r.out, cap *= 2);
		len += fread(r.out + len, 1, cap - len - 1, f);
	}
	r.out[len] = '\0';
	status = pclose(f);
	r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return r;
}

__attribute__((format(printf, 2, 3)))
static void check(bool ok, const char *fmt, ...)
{
	va_list args;

	printf("%s: ", ok ? "ok  " : "FAIL");
	va_start(args, fmt);
	vprintf(fmt, args);
	va_end(args);
	printf("\n");
	if (ok)
		passed++;
	else
		failed++;
}

static bool matches(const char *text, const char *pattern)
{
	regex_t re;
	bool ok;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE | REG_NOSUB)) {
		fprintf(stderr, "bad regex %s\n", pattern);
		exit(1);
	}
	ok = regexec(&re, text, 0, NULL, 0) == 0;
	regfree(&re);
	return ok;
}

static int count_lines(const char *text, const char *pattern)
{
	regex_t re;
	regmatch_t m;
	int n = 0;

	regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE);
	while (regexec(&re, text, 1, &m, 0) == 0) {
		n++;
		text += m.rm_eo;
	}
	regfree(&re);
	return n;
}

/* One subtest of the subject: its exit code and its result line. */
static void subtest(const char *env, const char *name, int rc,
		    const char *result, const char *extra)
{
	struct result r = run("%s '%s' --run-subtest '%s'", env, subject, name);
	int failed_before = failed;
	char pattern[512];

	check(r.rc == rc, "%s %s: exit code %d (expected %d)", env, name,
	      r.rc, rc);
	snprintf(pattern, sizeof(pattern), "^Starting subtest: %s$", name);
	check(matches(r.out, pattern), "%s: starting line", name);
	snprintf(pattern, sizeof(pattern),
		 "^Subtest %s: %s \\([0-9]+\\.[0-9]{3}s\\)$", name, result);
	check(matches(r.out, pattern), "%s: result line '%s'", name, result);
	if (extra)
		check(matches(r.out, extra), "%s: output matches /%s/", name,
		      extra);
	if (failed > failed_before)
		fprintf(stderr, "--- output of %s ---\n%s---\n", name, r.out);
	free(r.out);
}

static const char *const subject_subtests =
	"pass\nfail-assert\nfail-eq\nfail-eq-u64\nskip-require\n"
	"skip-explicit\nioctl-err\nioctl-err-mismatch\nioctl-fail\n"
	"fork-pass\nfork-fail\ngroup-skipped\ngroup-failed\nafter-groups\n"
	"formatted-21\nformatted-42\nundocumented\nhang\ncrash\n"
	"weft-device\n";

static bool have_weft_device(void)
{
	int fd = __drm_open_driver(DRIVER_WEFT);

	if (fd < 0)
		fd = __drm_open_driver_render(DRIVER_WEFT);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

static void check_subject(void)
{
	struct result r;

	r = run("'%s' --list-subtests", subject);
	check(r.rc == 0 && strcmp(r.out, subject_subtests) == 0,
	      "--list-subtests lists every subtest, in order");
	free(r.out);

	subtest("", "pass", 0, "SUCCESS", "^IGT-Version: ");
	subtest("", "fail-assert", 98, "FAIL",
		"CRITICAL: Failed assertion: 1 == 2$");
	subtest("", "fail-eq", 98, "FAIL", "error: 1 != 2$");
	subtest("", "fail-eq-u64", 98, "FAIL",
		"error: 0x10000000000 != 0x20000000000$");
	subtest("", "skip-require", 77, "SKIP",
		"^Test requirement: null_fd < 0$");
	subtest("", "skip-explicit", 77, "SKIP", "^explicit skip$");
	subtest("", "ioctl-err", 0, "SUCCESS", NULL);
	subtest("", "ioctl-err-mismatch", 98, "FAIL",
		"errno == \\(22\\)|error: 25 != 22");
	subtest("", "ioctl-fail", 98, "FAIL", "error: -1 != 0");
	subtest("", "fork-pass", 0, "SUCCESS", NULL);
	subtest("", "fork-fail", 98, "FAIL", "child 1 exited with 98");
	subtest("", "group-skipped", 77, "SKIP", "^group requirement$");
	subtest("", "group-failed", 0, "SUCCESS", NULL);
	subtest("SELFTEST_FIXTURE_FAIL=1", "group-failed", 98, "FAIL",
		"group fixture fails");
	subtest("SELFTEST_FIXTURE_FAIL=1", "after-groups", 98, "SUCCESS",
		NULL);
	subtest("", "after-groups", 0, "SUCCESS", NULL);
	subtest("", "formatted-42", 0, "SUCCESS", NULL);
	subtest("", "hang", 0, "SUCCESS", NULL);
	subtest("", "crash", 0, "SUCCESS", NULL);
	if (!have_weft_device())
		subtest("", "weft-device", 77, "SKIP",
			"No known gpu found for chipset flags");
	else
		subtest("", "weft-device", 0, "SUCCESS", NULL);

	r = run("'%s' --run-subtest no-such-subtest", subject);
	check(r.rc == 79 && matches(r.out, "^Unknown subtest: no-such-subtest$"),
	      "unknown subtest: exit code 79 (got %d)", r.rc);
	free(r.out);

	r = run("'%s' --run-subtest 'skip-*'", subject);
	check(r.rc == 77 && count_lines(r.out, "^Subtest skip-[a-z]+: SKIP") == 2,
	      "pattern skip-*: both skip, exit code 77 (got %d)", r.rc);
	free(r.out);

	r = run("'%s' --run-subtest 'pass,formatted-*'", subject);
	check(r.rc == 0 && count_lines(r.out, ": SUCCESS \\(") == 3,
	      "list pass,formatted-*: three pass, exit code 0 (got %d)", r.rc);
	free(r.out);

	r = run("'%s' --run-subtest 'pass,fail-eq,skip-require'", subject);
	check(r.rc == 98, "pass+fail+skip: exit code 98 (got %d)", r.rc);
	free(r.out);

	r = run("'%s'", subject);
	check(r.rc == 98 && count_lines(r.out, ": SUCCESS \\(") ==
			(have_weft_device() ? 11 : 10) &&
	      count_lines(r.out, ": FAIL \\(") == 6 &&
	      count_lines(r.out, ": SKIP \\(") ==
			(have_weft_device() ? 3 : 4),
	      "full run: every subtest once, 6 fail; exit code 98 (got %d)",
	      r.rc);
	free(r.out);

	r = run("'%s' --help", subject);
	check(r.rc == 0 && matches(r.out, "--run-subtest") &&
	      matches(r.out, "--list-subtests"), "--help");
	free(r.out);

	r = run("'%s' --no-such-option", subject);
	check(r.rc == 79, "unknown option: exit code 79 (got %d)", r.rc);
	free(r.out);

	r = run("'%s' --help-description", subject);
	check(r.rc == 0 && matches(r.out,
			"^Self-test of the IGT compatibility library\\.$"),
	      "--help-description");
	free(r.out);

	r = run("'%s' --describe", subject);
	check(r.rc == 0 && matches(r.out, "^SUB pass .*igt_selftest.c:[0-9]+:$") &&
	      matches(r.out, "^  Passes\\.$") &&
	      count_lines(r.out, "NO DOCUMENTATION!") == 1,
	      "--describe: descriptions, one undocumented subtest");
	free(r.out);
}

static void check_runner(void)
{
	char dir[] = "/tmp/check_igt.XXXXXX";
	int failed_before = failed;
	struct result r;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
	r = run("cp '%s' '%s/' && echo not a test > '%s/README'", subject,
		dir, dir);
	free(r.out);

	r = run("SELFTEST_HANG=1 SELFTEST_CRASH=1 '%s' --timeout 2 --quiet "
		"'%s'", runner, dir);
	check(r.rc == 1, "runner: exit code 1 on failures (got %d)", r.rc);
	check(matches(r.out, "^igt_selftest@pass: pass \\([0-9]+\\.[0-9]{3}s\\)$"),
	      "runner: pass line");
	check(matches(r.out, "^igt_selftest@fail-eq: fail \\([0-9.]+s\\)$"),
	      "runner: fail line");
	check(matches(r.out, "^igt_selftest@skip-explicit: skip \\([0-9.]+s\\)$"),
	      "runner: skip line");
	check(matches(r.out, "^igt_selftest@hang: fail \\([0-9.]+s\\) "
			     "\\[timeout after 2s\\]$"),
	      "runner: timeout");
	check(matches(r.out, "^igt_selftest@crash: fail \\([0-9.]+s\\) "
			     "\\[killed by signal 11\\]$"),
	      "runner: crash");
	check(matches(r.out, have_weft_device() ?
			     "^9 passed, 8 failed, 3 skipped$" :
			     "^8 passed, 8 failed, 4 skipped$"),
	      "runner: summary");
	check(count_lines(r.out, "^igt_selftest@") == 20,
	      "runner: one line per subtest, README ignored");
	if (failed > failed_before)
		fprintf(stderr, "--- runner output ---\n%s---\n", r.out);
	free(r.out);

	r = run("SELFTEST_CRASH=9 '%s' --filter '*@crash' '%s'", runner, dir);
	check(r.rc == 1 && matches(r.out, "^igt_selftest@crash: fail "
				   "\\([0-9.]+s\\) \\[killed by signal 9\\]$") &&
	      !matches(r.out, "Killed"),
	      "runner: SIGKILL before the deadline is not a timeout");
	free(r.out);

	r = run("'%s' --filter 'igt_selftest@pass' --filter '*@formatted-*' "
		"'%s'", runner, dir);
	check(r.rc == 0 && matches(r.out, "^3 passed, 0 failed, 0 skipped$"),
	      "runner: filters, all pass, exit code 0 (got %d)", r.rc);
	free(r.out);

	r = run("'%s' --filter '*@skip-*' '%s'", runner, dir);
	check(r.rc == 1 && matches(r.out, "^0 passed, 0 failed, 2 skipped$"),
	      "runner: skips fail the run (got %d)", r.rc);
	free(r.out);

	r = run("'%s' --allow-skip --filter '*@skip-*' --filter '*@pass' "
		"--results '%s/results' '%s'", runner, dir, dir);
	check(r.rc == 0 && matches(r.out, "^1 passed, 0 failed, 2 skipped$"),
	      "runner: --allow-skip (got %d)", r.rc);
	free(r.out);

	r = run("test -s '%s/results/igt_selftest@skip-explicit.log'", dir);
	check(r.rc == 0, "runner: --results keeps the logs");
	free(r.out);

	r = run("'%s' --filter 'nothing@*' '%s'", runner, dir);
	check(r.rc == 1, "runner: no subtests is a failure (got %d)", r.rc);
	free(r.out);

	r = run("'%s' /nonexistent", runner);
	check(r.rc == 2, "runner: bad directory is a usage error (got %d)",
	      r.rc);
	free(r.out);

	r = run("rm -rf '%s'", dir);
	free(r.out);
}

static bool kebab_case(const char *name, size_t len)
{
	if (!len || name[0] == '-' || name[len - 1] == '-')
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '-'))
			return false;
		if (c == '-' && i && name[i - 1] == '-')
			return false;
	}
	return true;
}

static void check_test_binary(const char *path, const char *test)
{
	struct result r = run("'%s' --list-subtests", path);
	int n = 0, bad = 0, dups = 0;

	for (char *line = r.out, *next; *line; line = next) {
		size_t len = strcspn(line, "\n");

		next = line + len + (line[len] == '\n');
		n++;
		if (!kebab_case(line, len))
			bad++;
		for (char *other = r.out; other < line;
		     other += strcspn(other, "\n") + 1) {
			if (strcspn(other, "\n") == len &&
			    !strncmp(other, line, len))
				dups++;
		}
	}
	check(r.rc == 0 && n > 0, "%s: lists %d subtests", test, n);
	check(bad == 0, "%s: subtest names are kebab-case (%d are not)", test,
	      bad);
	check(dups == 0, "%s: subtest names are unique (%d duplicates)", test,
	      dups);
	free(r.out);

	r = run("'%s' --describe", path);
	check(r.rc == 0 && !matches(r.out, "NO DOCUMENTATION!") &&
	      count_lines(r.out, "^SUB ") == n,
	      "%s: every subtest has an igt_describe", test);
	free(r.out);

	r = run("'%s' --help-description", path);
	check(r.rc == 0 && strlen(r.out) > 10, "%s: IGT_TEST_DESCRIPTION", test);
	free(r.out);

	if (!have_weft_device()) {
		r = run("'%s'", path);
		check(r.rc == 77 && !matches(r.out, ": (SUCCESS|FAIL) "),
		      "%s: skips without a weft device (exit code %d)", test,
		      r.rc);
		free(r.out);
	}
}

static void check_tests(void)
{
	struct dirent **list;
	int n, tests = 0;
	struct result r;

	n = scandir(build_dir, &list, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", build_dir,
			 list[i]->d_name);
		if (!strncmp(list[i]->d_name, "weft_", 5) &&
		    !stat(path, &st) && S_ISREG(st.st_mode) &&
		    (st.st_mode & S_IXUSR)) {
			check_test_binary(path, list[i]->d_name);
			tests++;
		}
		free(list[i]);
	}
	free(list);
	check(tests >= 4, "%d test binaries in %s", tests, build_dir);

	if (!have_weft_device()) {
		r = run("'%s' --quiet '%s'", runner, build_dir);
		check(r.rc == 1 && matches(r.out, "^0 passed, 0 failed, [0-9]+ skipped$"),
		      "runner on the tests, no device: all skip, exit code 1 "
		      "(got %d)", r.rc);
		free(r.out);
		r = run("'%s' --allow-skip --quiet '%s'", runner, build_dir);
		check(r.rc == 0, "runner on the tests, no device, --allow-skip: "
		      "exit code 0 (got %d)", r.rc);
		free(r.out);
	}
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s SUBJECT RUN_TESTS BUILD_DIR\n",
			argv[0]);
		return 2;
	}
	subject = argv[1];
	runner = argv[2];
	build_dir = argv[3];

	check_subject();
	check_runner();
	check_tests();

	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
