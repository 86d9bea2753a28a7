/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: arbitrary bytes as a startup file, through the
 * configuration parser against mgmt/yang/cellgate.yang, as `cellgated -c`,
 * SIGHUP and every RESTCONF write do. One parser (one libyang context) for
 * the whole run, as the daemon keeps one: that is also what makes this fast
 * enough to fuzz (building a context costs ~25 ms). Besides the sanitizers (and LeakSanitizer at exit of
 * each run), one property: a configuration that parses prints (cfg_print,
 * the normalised form RESTCONF persists) to text that parses again to the
 * same printed text, so what the daemon writes it can always read back
 * after a restart.
 * Seeds: the JSON files of tests/unit/config and etc (run.sh copies them in).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

#ifndef SRC_YANG_DIR
#error "build with -DSRC_YANG_DIR=\"<source>/mgmt/yang\""
#endif

/* cfg_print's text of cfg, malloc'd; aborts on failure (it cannot fail on a parsed cfg). */
static char *print(const struct cfg *cfg, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f || cfg_print(cfg, f) != 0)
		abort();
	fclose(f);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct cfg_parser *parser(void)
{
	static struct cfg_parser *p;
	char err[1024];

	if (!p && !(p = cfg_parser_new(SRC_YANG_DIR, err, sizeof(err)))) {
		fprintf(stderr, "fuzz_config: %s\n", err);
		abort();
	}
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024], *json = malloc(size + 1), *first, *second;
	struct cfg_parser *ps = parser();
	struct cfg cfg, again;
	size_t l1, l2;

	if (!json)
		return 0;
	/* cfg_load refuses a NUL byte before parsing; here the text just ends at one. */
	memcpy(json, data, size);
	json[size] = '\0';
	if (cfg_parser_parse(ps, json, &cfg, err, sizeof(err)) != 0) {
		/* A refusal must say why. */
		if (!err[0])
			abort();
		free(json);
		return 0;
	}
	first = print(&cfg, &l1);
	cfg_free(&cfg);
	if (cfg_parser_parse(ps, first, &again, err, sizeof(err)) != 0) {
		fprintf(stderr, "printed config does not parse: %s\n%s\n", err, first);
		abort();
	}
	second = print(&again, &l2);
	cfg_free(&again);
	if (l1 != l2 || memcmp(first, second, l1) != 0) {
		fprintf(stderr, "printing is not stable:\n%s\n---\n%s\n", first, second);
		abort();
	}
	free(first);
	free(second);
	free(json);
	return 0;
}
