/* SPDX-License-Identifier: BSD-2-Clause */
#include <time.h>

#include "lib/json.h"

void json_str_put(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
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
