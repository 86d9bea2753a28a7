/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Capturing a VC's AAL5 SDUs to a pcap file (LINKTYPE_SUNATM): from the
 * startup configuration (capture-file) or at runtime (capture-start/stop)
 * while the workers run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <urcu-qsbr.h>

#include "daemon/atm_priv.h"

/* Close VC v's capture file, saying so if records were lost. */
void atm_capture_close(struct atm_ctl *a, unsigned v)
{
	struct atm_vc *vc = &a->dp->vcs[v];
	int err;

	if (!vc->cap)
		return;
	err = pcap_sunatm_close(vc->cap);
	if (err)
		log_warnx("capture of VC %u/%u: %s: records lost", vc->cfg.vpi, vc->cfg.vci,
		          strerror(-err));
	free(vc->cap);
	free(vc->cap_buf);
	vc->cap = NULL;
	vc->cap_buf = NULL;
}

/* VC v with a capture-file: open it. Failing to is logged, and the VC runs uncaptured. */
void atm_capture_open(struct atm_ctl *a, unsigned v, const char *path)
{
	struct atm_vc *vc = &a->dp->vcs[v];
	int err;

	if (!path[0])
		return;
	vc->cap = calloc(1, sizeof(*vc->cap));
	vc->cap_buf = malloc(CELLPW_SDU_MAX);
	if (!vc->cap || !vc->cap_buf) {
		log_warnx("capture %s: out of memory", path);
	} else if ((err = pcap_sunatm_open(vc->cap, path)) != 0) {
		log_warnx("capture %s: %s; VC %u/%u runs without it", path, strerror(-err),
		          vc->cfg.vpi, vc->cfg.vci);
	} else {
		log_info("VC %u/%u: capturing AAL5 SDUs to %s", vc->cfg.vpi, vc->cfg.vci, path);
		return;
	}
	free(vc->cap);
	free(vc->cap_buf);
	vc->cap = NULL;
	vc->cap_buf = NULL;
}

int atm_capture_start(struct atm_ctl *a, unsigned v, const char *path)
{
	struct atm_vc *vc;
	struct pcap_sunatm *cap;
	uint8_t *buf;
	int err;

	if (!a->dp->vcs || v >= VC_MAX || a->pvc_of_vc[v] < 0 ||
	    (!a->pw[a->cfg->pvcs[a->pvc_of_vc[v]].port] &&
	     !a->as[a->cfg->pvcs[a->pvc_of_vc[v]].port]))
		return -ENOENT;
	vc = &a->dp->vcs[v];
	if (__atomic_load_n(&vc->cap, __ATOMIC_ACQUIRE))
		return -EBUSY;
	cap = calloc(1, sizeof(*cap));
	buf = malloc(CELLPW_SDU_MAX);
	if (!cap || !buf) {
		free(cap);
		free(buf);
		return -ENOMEM;
	}
	if ((err = pcap_sunatm_open(cap, path)) != 0) {
		free(cap);
		free(buf);
		return err;
	}
	/* The buffer and the open file first, then the pointer the worker tests (vc.h). */
	vc->cap_buf = buf;
	__atomic_store_n(&vc->cap, cap, __ATOMIC_RELEASE);
	log_info("VC %u/%u: capturing AAL5 SDUs to %s", vc->cfg.vpi, vc->cfg.vci, path);
	return 0;
}

int atm_capture_stop(struct atm_ctl *a, unsigned v)
{
	struct atm_vc *vc;
	struct pcap_sunatm *cap;
	int err;

	if (!a->dp->vcs || v >= VC_MAX || a->pvc_of_vc[v] < 0)
		return -ENOENT;
	vc = &a->dp->vcs[v];
	cap = __atomic_load_n(&vc->cap, __ATOMIC_ACQUIRE);
	if (!cap)
		return -ENOENT;
	__atomic_store_n(&vc->cap, NULL, __ATOMIC_RELEASE);
	/* The worker may be inside a write: free only after it passed a quiescent state. */
	synchronize_rcu();
	err = pcap_sunatm_close(cap);
	free(cap);
	free(vc->cap_buf);
	vc->cap_buf = NULL;
	log_info("VC %u/%u: capture stopped%s", vc->cfg.vpi, vc->cfg.vci,
	         err ? ": records were lost" : "");
	return err;
}
