/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * JSON strings as the daemon writes them into the documents it builds by
 * hand (lib/json.c): RFC 8259 section 7 escapes for '"', '\' and control
 * characters, DEL too, everything else (UTF-8 included) as it is; the same
 * text through a FILE and through the piecewise writer the route stream uses.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "tests/unit/check.h"

struct sink {
	char buf[256];
	size_t len;
	unsigned pieces;
};

static void sink_put(void *arg, const char *p, size_t n)
{
	struct sink *s = arg;

	if (s->len + n < sizeof(s->buf)) {
		memcpy(s->buf + s->len, p, n);
		s->len += n;
		s->buf[s->len] = '\0';
	}
	s->pieces++;
}

static void escaped(const char *in, const char *want, unsigned pieces)
{
	struct sink s = {.len = 0};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	json_escape(in, sink_put, &s);
	CHECK(strcmp(s.buf, want) == 0);
	CHECK_EQ(s.pieces, pieces);
	CHECK(f != NULL);
	json_str_put(f, in);
	fclose(f);
	CHECK(text && len == strlen(want) + 2 && text[0] == '"' && text[len - 1] == '"' &&
	      !strncmp(text + 1, want, len - 2));
	free(text);
}

int main(void)
{
	escaped("", "", 0);
	escaped("eth0", "eth0", 1); /* a plain string in one piece */
	escaped("a\"b", "a\\\"b", 3);
	escaped("\\", "\\\\", 1);
	escaped("x\ny\tz", "x\\u000ay\\u0009z", 5);
	escaped("\x01\x1f\x7f", "\\u0001\\u001f\\u007f", 3);
	escaped("caf\xc3\xa9 ok", "caf\xc3\xa9 ok", 1); /* UTF-8 left as it is */
	escaped("\"\"", "\\\"\\\"", 2);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	json_member_str(f, "netdev", "r\"1");
	fclose(f);
	CHECK(text && strcmp(text, ",\"netdev\":\"r\\\"1\"") == 0);
	free(text);
	return check_report("test_json");
}
