// SPDX-License-Identifier: MIT
/*
 * Copyright (C) 2026 The Weft authors
 *
 * The subtest runner behind igt_core.h. See that header for the contract.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>

#include "igt_core.h"

sigjmp_buf igt_subtest_jmpbuf;

enum skip_state {
	CONT = 0,
	SKIP,
	FAIL,
};

static const char *command_str;
static char *run_single_subtest;
static bool run_single_subtest_found;
static bool list_subtests;
static bool describe_subtests;
static bool debug_log;

static char *in_subtest;
static bool in_fixture;
static int skip_subtests_henceforth = CONT;
static bool succeeded_one, failed_one, skipped_one;
static int igt_exitcode = IGT_EXIT_SUCCESS;
static struct timespec subtest_start;

static char description[4096];
static bool have_description;

static bool test_child;
static pid_t children[64];
static int num_children;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double elapsed(const struct timespec *start)
{
	return now() - (start->tv_sec + start->tv_nsec * 1e-9);
}

const char *igt_test_name(void)
{
	const char *slash = command_str ? strrchr(command_str, '/') : NULL;

	return slash ? slash + 1 : command_str;
}

const char *igt_subtest_name(void)
{
	return in_subtest;
}

bool igt_only_list_subtests(void)
{
	return list_subtests;
}

static void print_usage(FILE *f)
{
	fprintf(f, "Usage: %s [OPTIONS]\n"
		"  --list-subtests\n"
		"  --run-subtest <pattern>\n"
		"  --describe[=<pattern>]\n"
		"  --help-description\n"
		"  --debug\n"
		"  --help|-h\n", igt_test_name());
}

int igt_subtest_init_parse_opts(int *argc, char **argv)
{
	static const struct option long_options[] = {
		{ "list-subtests", no_argument, NULL, 'l' },
		{ "run-subtest", required_argument, NULL, 'r' },
		{ "describe", optional_argument, NULL, 'D' },
		{ "help-description", no_argument, NULL, 'H' },
		{ "debug", optional_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0, 0, 0, 0 },
	};
	struct utsname uts;
	int c;

	command_str = argv[0];
	opterr = 0;
	while ((c = getopt_long(*argc, argv, "h", long_options, NULL)) != -1) {
		switch (c) {
		case 'l':
			list_subtests = true;
			break;
		case 'r':
			run_single_subtest = strdup(optarg);
			break;
		case 'D':
			list_subtests = true;
			describe_subtests = true;
			if (optarg)
				run_single_subtest = strdup(optarg);
			break;
		case 'H':
			printf("%s\n", __igt_test_description ?
			       __igt_test_description : "");
			exit(IGT_EXIT_SUCCESS);
		case 'd':
			debug_log = true;
			break;
		case 'h':
			print_usage(stdout);
			exit(IGT_EXIT_SUCCESS);
		default:
			fprintf(stderr, "%s: unknown option %s\n",
				igt_test_name(), argv[optind - 1]);
			print_usage(stderr);
			exit(IGT_EXIT_INVALID);
		}
	}
	if (optind < *argc) {
		fprintf(stderr, "%s: unexpected argument %s\n",
			igt_test_name(), argv[optind]);
		print_usage(stderr);
		exit(IGT_EXIT_INVALID);
	}

	if (describe_subtests && __igt_test_description)
		printf("%s\n\n", __igt_test_description);

	if (!list_subtests) {
		uname(&uts);
		printf("IGT-Version: 1.0-weft-compat (%s) (%s: %s %s)\n",
		       uts.machine, uts.sysname, uts.release, uts.machine);
		fflush(stdout);
	}
	return 0;
}

static bool valid_subtest_name(const char *name)
{
	if (!*name)
		return false;
	for (const char *p = name; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '-' || *p == '_'))
			return false;
	}
	return true;
}

/* --run-subtest takes a comma-separated list of fnmatch() patterns. */
static bool subtest_selected(const char *name)
{
	char *list, *tok, *save = NULL;
	bool match = false;

	if (!run_single_subtest)
		return true;

	list = strdup(run_single_subtest);
	for (tok = strtok_r(list, ",", &save); tok && !match;
	     tok = strtok_r(NULL, ",", &save))
		match = fnmatch(tok, name, 0) == 0;
	free(list);
	return match;
}

bool __igt_run_subtest(const char *name, const char *file, int line)
{
	bool described = have_description;

	if (!valid_subtest_name(name)) {
		fprintf(stderr, "Invalid subtest name \"%s\" at %s:%d\n",
			name, file, line);
		exit(IGT_EXIT_INVALID);
	}
	if (in_subtest || in_fixture) {
		fprintf(stderr, "Subtest %s nested in %s at %s:%d\n", name,
			in_subtest ? in_subtest : "a fixture", file, line);
		exit(IGT_EXIT_INVALID);
	}

	have_description = false;

	if (list_subtests) {
		if (!subtest_selected(name))
			return false;
		if (describe_subtests)
			printf("SUB %s %s:%d:\n  %s\n\n", name, file, line,
			       described ? description : "NO DOCUMENTATION!");
		else
			printf("%s\n", name);
		return false;
	}

	if (!subtest_selected(name))
		return false;
	run_single_subtest_found = true;

	printf("Starting subtest: %s\n", name);
	fflush(stdout);

	if (skip_subtests_henceforth) {
		bool fail = skip_subtests_henceforth == FAIL;

		printf("Subtest %s: %s (0.000s)\n", name,
		       fail ? "FAIL" : "SKIP");
		fflush(stdout);
		if (fail)
			failed_one = true;
		else
			skipped_one = true;
		return false;
	}

	clock_gettime(CLOCK_MONOTONIC, &subtest_start);
	in_subtest = strdup(name);
	return true;
}

static void __attribute__((noreturn)) exit_subtest(const char *result)
{
	fflush(stderr);
	printf("Subtest %s: %s (%.3fs)\n", in_subtest, result,
	       elapsed(&subtest_start));
	fflush(stdout);
	free(in_subtest);
	in_subtest = NULL;
	siglongjmp(igt_subtest_jmpbuf, 1);
}

bool __igt_fixture(void)
{
	if (list_subtests || skip_subtests_henceforth)
		return false;
	if (in_subtest) {
		fprintf(stderr, "igt_fixture inside subtest %s\n", in_subtest);
		exit(IGT_EXIT_INVALID);
	}
	in_fixture = true;
	return true;
}

void __igt_fixture_complete(void)
{
	in_fixture = false;
}

void __igt_fixture_end(void)
{
	in_fixture = false;
	siglongjmp(igt_subtest_jmpbuf, 1);
}

/*
 * A group scopes the skip or failure of its fixtures. (Unlike IGT, a
 * description before a group describes only the group's first subtest.)
 */
void __igt_subtest_group_save(int *save, int *desc)
{
	*save = skip_subtests_henceforth;
	*desc = 0;
}

void __igt_subtest_group_restore(int save, int desc)
{
	skip_subtests_henceforth = save;
	have_description = desc;
}

void igt_describe_f(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(description, sizeof(description), fmt, args);
	va_end(args);
	have_description = true;
}

void igt_success(void)
{
	succeeded_one = true;
	if (in_subtest)
		exit_subtest("SUCCESS");
}

void igt_skip(const char *f, ...)
{
	va_list args;

	if (f) {
		va_start(args, f);
		vprintf(f, args);
		va_end(args);
		fflush(stdout);
	}

	if (test_child)
		exit(IGT_EXIT_SKIP);

	skipped_one = true;
	if (in_subtest)
		exit_subtest("SKIP");
	if (in_fixture) {
		skip_subtests_henceforth = SKIP;
		__igt_fixture_end();
	}
	fprintf(stderr, "igt_skip() outside of a subtest or fixture\n");
	exit(IGT_EXIT_INVALID);
}

void __igt_skip_check(const char *file, int line, const char *func,
		      const char *check, const char *f, ...)
{
	va_list args;

	printf("Test requirement not met in function %s, file %s:%d:\n"
	       "Test requirement: %s\n", func, file, line, check);
	if (f) {
		va_start(args, f);
		vprintf(f, args);
		va_end(args);
	}
	igt_skip(NULL);
}

void igt_fail(int exitcode)
{
	if (exitcode == IGT_EXIT_SUCCESS || exitcode == IGT_EXIT_SKIP)
		exitcode = IGT_EXIT_FAILURE;
	if (!failed_one)
		igt_exitcode = exitcode;
	failed_one = true;

	if (test_child)
		exit(exitcode);
	if (in_subtest)
		exit_subtest("FAIL");
	if (in_fixture) {
		skip_subtests_henceforth = FAIL;
		__igt_fixture_end();
	}
	igt_exit();
}

void __igt_fail_assert(const char *domain, const char *file, int line,
		       const char *func, const char *assertion,
		       const char *f, ...)
{
	int err = errno;
	va_list args;

	igt_log(domain, IGT_LOG_CRITICAL,
		"Test assertion failure function %s, file %s:%d:\n",
		func, file, line);
	igt_log(domain, IGT_LOG_CRITICAL, "Failed assertion: %s\n", assertion);
	if (err)
		igt_log(domain, IGT_LOG_CRITICAL, "Last errno: %d, %s\n",
			err, strerror(err));
	if (f) {
		va_start(args, f);
		igt_vlog(domain, IGT_LOG_CRITICAL, f, args);
		va_end(args);
	}
	igt_fail(IGT_EXIT_FAILURE);
}

void igt_exit(void)
{
	fflush(stdout);
	fflush(stderr);

	if (list_subtests)
		exit(IGT_EXIT_SUCCESS);

	if (run_single_subtest && !run_single_subtest_found) {
		fprintf(stderr, "Unknown subtest: %s\n", run_single_subtest);
		exit(IGT_EXIT_INVALID);
	}

	if (failed_one)
		exit(igt_exitcode);
	if (!succeeded_one && skipped_one)
		exit(IGT_EXIT_SKIP);
	exit(IGT_EXIT_SUCCESS);
}

void igt_vlog(const char *domain, enum igt_log_level level,
	      const char *format, va_list args)
{
	static const char *const names[] = {
		[IGT_LOG_DEBUG] = "DEBUG",
		[IGT_LOG_INFO] = "INFO",
		[IGT_LOG_WARN] = "WARNING",
		[IGT_LOG_CRITICAL] = "CRITICAL",
	};
	FILE *f = level >= IGT_LOG_WARN ? stderr : stdout;

	if (level == IGT_LOG_DEBUG && !debug_log)
		return;
	if (level >= IGT_LOG_NONE)
		return;

	if (level != IGT_LOG_INFO)
		fprintf(f, "(%s:%d) %s%s%s: ", igt_test_name(), (int)getpid(),
			domain ? domain : "", domain ? "-" : "", names[level]);
	vfprintf(f, format, args);
	fflush(f);
}

void igt_log(const char *domain, enum igt_log_level level,
	     const char *format, ...)
{
	va_list args;

	va_start(args, format);
	igt_vlog(domain, level, format, args);
	va_end(args);
}

bool __igt_fork(void)
{
	pid_t pid;

	if (test_child) {
		fprintf(stderr, "igt_fork() inside a forked child\n");
		exit(IGT_EXIT_INVALID);
	}
	if (num_children == (int)(sizeof(children) / sizeof(children[0])))
		igt_assert_f(false, "too many igt_fork() children\n");

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	igt_assert(pid >= 0);
	if (pid == 0) {
		test_child = true;
		num_children = 0;
		return true;
	}
	children[num_children++] = pid;
	return false;
}

void igt_waitchildren(void)
{
	int failed = 0;

	for (int i = 0; i < num_children; i++) {
		int status;

		while (waitpid(children[i], &status, 0) < 0 && errno == EINTR)
			;
		if (WIFSIGNALED(status)) {
			igt_critical("child %d died with signal %d\n", i,
				     WTERMSIG(status));
			failed++;
		} else if (WEXITSTATUS(status) != 0) {
			igt_critical("child %d exited with %d\n", i,
				     WEXITSTATUS(status));
			failed++;
		}
	}
	num_children = 0;
	errno = 0;
	igt_assert_f(failed == 0, "%d child(ren) failed\n", failed);
}
