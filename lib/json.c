/* SPDX-License-Identifier: BSD-2-Clause */
#include <time.h>

#include "lib/json.h"

void json_escape(const char *s, void (*put)(void *arg, const char *p, size_t n), void *arg)
{
	const char *run = s;
	char esc[8];

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c != '"' && c != '\\' && c >= 0x20 && c != 0x7f)
			continue;
		if (s > run)
			put(arg, run, (size_t)(s - run));
		if (c == '"' || c == '\\')
			put(arg, (const char[]){'\\', (char)c}, 2);
		else
			put(arg, esc, (size_t)snprintf(esc, sizeof(esc), "\\u%04x", c));
		run = s + 1;
	}
	if (s > run)
		put(arg, run, (size_t)(s - run));
}

static void file_put(void *arg, const char *p, size_t n)
{
	fwrite(p, 1, n, arg);
}

void json_str_put(FILE *out, const char *s)
{
	fputc('"', out);
	json_escape(s, file_put, out);
	fputc('"', out);
}

void json_member_str(FILE *out, const char *name, const char *value)
{
	fprintf(out, ",\"%s\":", name);
	json_str_put(out, value);
}

void json_member_time(FILE *out, const char *name, uint64_t realtime_ms)
{
	time_t t = (time_t)(realtime_ms / 1000);
	struct tm tm;
	char buf[40];

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(out, ",\"%s\":\"%s.%03uZ\"", name, buf, (unsigned)(realtime_ms % 1000));
}
