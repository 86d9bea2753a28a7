/* SPDX-License-Identifier: BSD-2-Clause */
#include "datapath/atm/shaper.h"

void atm_shaper_init(struct atm_shaper *s, uint32_t pcr_cells_per_s, uint32_t burst_cells)
{
	s->pcr = pcr_cells_per_s;
	s->burst_nano = (uint64_t)(burst_cells ? burst_cells : 1) * ATM_SHAPER_CELL;
	s->tokens_nano = s->burst_nano;
	s->last_ns = 0;
}

/*
 * Credit at `now_ns`. pcr * elapsed could overflow 64 bits after ~4 s at 4.3 Gcell/s,
 * so compare the elapsed time with the time to fill the bucket first.
 */
static uint64_t shaper_credit(const struct atm_shaper *s, uint64_t now_ns)
{
	if (now_ns <= s->last_ns)
		return s->tokens_nano; /* time stood still or went back: no new credit */

	uint64_t elapsed = now_ns - s->last_ns;
	uint64_t room = s->burst_nano - s->tokens_nano;

	if (elapsed >= (room + s->pcr - 1) / s->pcr)
		return s->burst_nano;
	return s->tokens_nano + elapsed * s->pcr;
}

uint32_t atm_shaper_take(struct atm_shaper *s, uint64_t now_ns, uint32_t want)
{
	if (s->pcr == 0)
		return want;

	uint64_t credit = shaper_credit(s, now_ns);
	uint64_t cells = credit / ATM_SHAPER_CELL;
	uint32_t grant = cells < want ? (uint32_t)cells : want;

	s->tokens_nano = credit - (uint64_t)grant * ATM_SHAPER_CELL;
	if (now_ns > s->last_ns)
		s->last_ns = now_ns;
	return grant;
}

uint64_t atm_shaper_next_ns(const struct atm_shaper *s, uint64_t now_ns)
{
	if (s->pcr == 0)
		return now_ns;

	uint64_t credit = shaper_credit(s, now_ns);
	if (credit >= ATM_SHAPER_CELL)
		return now_ns;

	uint64_t from = now_ns > s->last_ns ? now_ns : s->last_ns;
	return from + (ATM_SHAPER_CELL - credit + s->pcr - 1) / s->pcr;
}
