/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * datapath/log.c: the sd-daemon(3) priority prefixes on stderr when stderr
 * is the journal stream JOURNAL_STREAM names (and only then), and the rate
 * limiter for messages an outside event can repeat without bound.
 * stderr is pointed at a temporary file and read back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/check.h"
#include "lib/log.h"

static char path[] = "/tmp/cellgate-test-log.XXXXXX";
static int fd;

/* Empty the capture file and make it stderr. */
static void capture_start(void)
{
	if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0 || dup2(fd, STDERR_FILENO) < 0)
		abort();
}

static const char *captured(void)
{
	static char buf[8192];
	ssize_t n;

	fflush(stderr);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* JOURNAL_STREAM as systemd would set it for the stream behind fd. */
static void journal_stream_of(int which)
{
	struct stat st;
	char v[64];

	if (fstat(which, &st) != 0)
		abort();
	snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev,
	         (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", v, 1);
}

static void emit_all(void)
{
	pid_t pid;

	log_warnx("w %d", 1);
	log_info("i");
	log_debug("d");
	/* fatalx exits: in a child, whose stderr is the same file. */
	pid = fork();
	if (pid == 0)
		fatalx("e");
	waitpid(pid, NULL, 0);
}

static void test_journal_prefixes(void)
{
	capture_start();
	journal_stream_of(STDERR_FILENO);
	log_init("test", true, 1);
	emit_all();
	CHECK(!strcmp(captured(), "<4>warning: w 1\n<6>i\n<7>debug: d\n<3>error: e\n"));
}

static void test_no_journal(void)
{
	capture_start();
	unsetenv("JOURNAL_STREAM");
	log_init("test", true, 1);
	emit_all();
	CHECK(!strcmp(captured(), "warning: w 1\ni\ndebug: d\nerror: e\n"));

	/* Inherited from a systemd parent, but stderr is no longer that stream. */
	capture_start();
	journal_stream_of(STDIN_FILENO);
	log_init("test", true, 1);
	emit_all();
	CHECK(!strcmp(captured(), "warning: w 1\ni\ndebug: d\nerror: e\n"));
	setenv("JOURNAL_STREAM", "garbage", 1);
	capture_start();
	log_init("test", true, 0);
	log_info("x");
	CHECK(!strcmp(captured(), "x\n"));
	unsetenv("JOURNAL_STREAM");
}

static void test_limit(void)
{
	struct log_limit l = {0};
	unsigned passed = 0;

	capture_start();
	log_init("test", true, 0);
	/* A flood inside one window: the first LOG_LIMIT_BURST pass, the rest are counted. */
	for (unsigned i = 0; i < 5000; i++)
		passed += log_limit_pass(&l, 1000, "flood");
	CHECK_EQ(passed, LOG_LIMIT_BURST);
	CHECK_EQ(l.suppressed, 5000 - LOG_LIMIT_BURST);
	CHECK(!strcmp(captured(), ""));
	/* Same window: the tick says nothing yet. */
	log_limit_tick(&l, 1000 + LOG_LIMIT_WINDOW_S - 1 - 1000 % LOG_LIMIT_WINDOW_S, "flood");
	CHECK(!strcmp(captured(), ""));
	/* The next window: one line with the count, and messages pass again. */
	CHECK(log_limit_pass(&l, 1000 + LOG_LIMIT_WINDOW_S, "flood"));
	CHECK(!strcmp(captured(), "warning: flood: 4990 more such messages not logged "
	                          "(at most 10 per 10 s)\n"));
	CHECK_EQ(l.suppressed, 0);
	/* A storm that stops: the timer reports the count once the window is over. */
	for (unsigned i = 0; i < 20; i++)
		log_limit_pass(&l, 1000 + LOG_LIMIT_WINDOW_S, "flood");
	capture_start();
	log_limit_tick(&l, 1000 + 2 * LOG_LIMIT_WINDOW_S, "flood");
	CHECK(!strcmp(captured(), "warning: flood: 11 more such messages not logged "
	                          "(at most 10 per 10 s)\n"));
	log_limit_tick(&l, 1000 + 3 * LOG_LIMIT_WINDOW_S, "flood");
	CHECK(!strcmp(captured(), "warning: flood: 11 more such messages not logged "
	                          "(at most 10 per 10 s)\n"));
}

int main(void)
{
	int saved = dup(STDERR_FILENO);

	fd = mkstemp(path);
	if (fd < 0 || saved < 0)
		return 99;
	unlink(path);
	test_journal_prefixes();
	test_no_journal();
	test_limit();
	dup2(saved, STDERR_FILENO);
	return check_report("log");
}
