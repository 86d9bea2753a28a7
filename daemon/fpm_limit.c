/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Route limits of an FPM session (fpm_table_set_limits): whatever reaches
 * the FPM port can announce routes, and each costs memory in this table,
 * the RIB and the FIB, so one session may announce only so many, as bgpd's
 * maximum-prefix bounds a neighbour: a warning at the threshold, then
 * refusal, counted.
 */
#include "daemon/fpm_table_priv.h"

static const char *const fam_name[2] = {"IPv4", "IPv6"};

void fpm_table_set_limits(struct fpm_table *t, uint32_t limit4, uint32_t limit6, uint8_t warn_pct)
{
	t->limit[0] = limit4;
	t->limit[1] = limit6;
	t->warn_pct = warn_pct ? warn_pct : 100;
}

static uint64_t *session_count(struct fpm_table *t, unsigned fam)
{
	return fam ? &t->c.session6 : &t->c.session4;
}

static uint64_t threshold(const struct fpm_table *t, unsigned fam)
{
	return ((uint64_t)t->limit[fam] * t->warn_pct + 99) / 100;
}

bool fpm_limit_admit(struct fpm_table *t, unsigned fam)
{
	uint64_t *n = session_count(t, fam);

	if (t->limit[fam] && *n >= t->limit[fam]) {
		if (!t->limit_hit[fam])
			log_warnx("fpm: %s route limit of %u reached: the session's further %s "
			          "routes are refused (fpm rejected \"limit\")",
			          fam_name[fam], t->limit[fam], fam_name[fam]);
		t->limit_hit[fam] = true;
		return false;
	}
	++*n;
	if (t->limit[fam] && !t->warned[fam] && *n >= threshold(t, fam)) {
		log_warnx("fpm: %s routes at %u%% of the limit: %lu of %u", fam_name[fam],
		          t->warn_pct, *n, t->limit[fam]);
		t->warned[fam] = true;
	}
	return true;
}

void fpm_limit_release(struct fpm_table *t, unsigned fam)
{
	uint64_t *n = session_count(t, fam);

	if (*n)
		--*n;
	/* Below the threshold again: the next approach is worth a line again. */
	if (*n < threshold(t, fam))
		t->warned[fam] = t->limit_hit[fam] = false;
}

void fpm_limit_session_start(struct fpm_table *t)
{
	t->c.session4 = t->c.session6 = 0;
	t->warned[0] = t->warned[1] = t->limit_hit[0] = t->limit_hit[1] = false;
}
