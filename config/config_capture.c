/* SPDX-License-Identifier: BSD-2-Clause */
/* /cellgate/system/capture: where VC captures go and how much each may write. */
#include <stdlib.h>
#include <string.h>

#include "config/config_priv.h"

void cfg_capture_fill(struct cfg_capture *c, const struct lyd_node *sys)
{
	const struct lyd_node *cn = sys ? cfg_child(sys, "capture") : NULL;

	/* The container has defaults, so libyang creates it; a NULL one means no system. */
	*c = (struct cfg_capture){.max_bytes = CFG_CAPTURE_MAX_BYTES_DEFAULT,
	                          .max_s = CFG_CAPTURE_MAX_S_DEFAULT};
	if (!cn)
		return;
	/* The schema bounds the directory's length to fit. */
	cfg_copy(c->directory, sizeof(c->directory), cfg_str(cn, "directory"));
	c->max_bytes = strtoull(cfg_str(cn, "max-size"), NULL, 10);
	c->max_s = cfg_u32(cn, "max-duration");
}

/*
 * Printed only when something differs from the defaults, so older golden
 * files stay valid. Zero limits (a struct built by hand) are the defaults.
 */
void cfg_capture_print(FILE *out, const struct cfg_capture *c)
{
	uint64_t bytes = c->max_bytes ? c->max_bytes : CFG_CAPTURE_MAX_BYTES_DEFAULT;
	uint32_t secs = c->max_s ? c->max_s : CFG_CAPTURE_MAX_S_DEFAULT;

	if (!c->directory[0] && bytes == CFG_CAPTURE_MAX_BYTES_DEFAULT &&
	    secs == CFG_CAPTURE_MAX_S_DEFAULT)
		return;
	fprintf(out, ",\n      \"capture\": {\n");
	if (c->directory[0]) {
		fprintf(out, "        \"directory\": ");
		json_str(out, c->directory);
		fprintf(out, ",\n");
	}
	/* RFC 7951 section 6.1: a uint64 is a JSON string. */
	fprintf(out, "        \"max-size\": \"%llu\",\n", (unsigned long long)bytes);
	fprintf(out, "        \"max-duration\": %u\n      }", secs);
}
