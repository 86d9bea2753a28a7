/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per-VC cell shaper: a token bucket equivalent to the Generic Cell Rate Algorithm
 * (ATM Forum TM 4.1 §4.5, ITU-T I.371 §4.4.3) GCRA(T = 1/PCR, tau = (burst - 1) * T):
 * cells leave at the peak cell rate, with up to `burst` back to back after idling.
 *
 * Exact integer units: one cell is 10^9 "nanocells" and every nanosecond adds `pcr`
 * of them, so no rounding error accumulates -- over any run the cells granted are at
 * most pcr * t / 10^9 + burst.
 */
#ifndef CELLGATE_ATM_SHAPER_H
#define CELLGATE_ATM_SHAPER_H

#include <stdint.h>

#define ATM_SHAPER_CELL 1000000000ull /* nanocells per cell */

struct atm_shaper {
	uint64_t pcr;         /* cells per second; 0 = unshaped */
	uint64_t tokens_nano; /* credit, in nanocells */
	uint64_t burst_nano;  /* bucket depth, in nanocells */
	uint64_t last_ns;     /* time credit was last brought up to date */
};

/*
 * pcr 0 leaves the VC unshaped (every take is granted in full). burst_cells is the
 * bucket depth, at least 1 (0 is taken as 1). The bucket starts full, at time 0.
 */
void atm_shaper_init(struct atm_shaper *s, uint32_t pcr_cells_per_s, uint32_t burst_cells);

/* Grant up to `want` cells that may leave at `now_ns` (monotonic) and consume them. */
uint32_t atm_shaper_take(struct atm_shaper *s, uint64_t now_ns, uint32_t want);

/* The earliest time at or after `now_ns` at which one cell will be granted. */
uint64_t atm_shaper_next_ns(const struct atm_shaper *s, uint64_t now_ns);

#endif
