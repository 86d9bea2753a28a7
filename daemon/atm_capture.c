/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Capturing a VC's AAL5 SDUs to a pcap file (LINKTYPE_SUNATM): from the
 * startup configuration (capture-file) or at runtime (capture-start/stop)
 * while the workers run.
 *
 * Any RESTCONF user may start a capture, so where it writes is not theirs
 * to choose: every file is created inside the one capture directory
 * (/cellgate/system/capture, default RUNDIR/capture), opened once at
 * startup, under a plain file name, with openat(O_CREAT | O_EXCL |
 * O_NOFOLLOW) and mode 0640. An existing name is refused, a symbolic link
 * is never followed, and no other file can be truncated or created. Each
 * capture stops at its size limit (enforced by the writer, record by
 * record) or its duration (checked here every tick), and that is logged
 * and counted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <urcu-qsbr.h>

#include "daemon/atm_priv.h"
#include "lib/clock.h"
#include "lib/json.h"

/*
 * "atm0 VC 0/100 (atm0.100)" from the datapath's view of VC v, which is set
 * before a VC added at runtime has a PVC of the running configuration
 * (atm_vc_name needs that mapping).
 */
static void vc_label(const struct atm_ctl *a, unsigned v, char *buf, size_t len)
{
	const struct atm_vc_cfg *c = &a->dp->vcs[v].cfg;

	snprintf(buf, len, "%s VC %u/%u (%s)", a->dp->ports[c->atm_port].name, c->vpi, c->vci,
	         a->dp->ports[c->subif].name);
}

/* The YANG typedef capture-file-name, checked again where the file is made. */
static bool capture_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > CAPTURE_NAME_MAX || name[0] == '.' || name[0] == '-')
		return false;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") ==
	       n;
}

/*
 * A new capture file in the capture directory: fd, or a negative errno.
 * `replace` (a startup capture-file) first removes a file of that name
 * that an earlier run left; unlinkat removes a symbolic link itself, never
 * what it points to, and O_EXCL then refuses anything that appeared since.
 */
static int capture_create(const struct atm_ctl *a, const char *name, bool replace)
{
	int fd;

	if (a->cap_dirfd < 0)
		return -ENOTDIR;
	if (!capture_name_ok(name))
		return -EINVAL;
	if (replace && unlinkat(a->cap_dirfd, name, 0) != 0 && errno != ENOENT)
		return -errno;
	fd = openat(a->cap_dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	/* The mode asked for, whatever the umask. */
	if (fchmod(fd, 0640) != 0) {
		int err = -errno;
		close(fd);
		unlinkat(a->cap_dirfd, name, 0);
		return err;
	}
	return fd;
}

/* Open the file and publish the capture to the worker (vc.h). 0 or a negative errno. */
static int capture_begin(struct atm_ctl *a, unsigned v, const char *name, bool replace,
                         uint64_t max_bytes, uint32_t max_s)
{
	struct atm_vc *vc = &a->dp->vcs[v];
	struct pcap_sunatm *cap = calloc(1, sizeof(*cap));
	uint8_t *buf = malloc(ATM_VC_SDU_MAX); /* the largest SDU, bridged headers included */
	char vcname[96];
	int fd, err;

	if (!cap || !buf) {
		err = -ENOMEM;
		goto fail;
	}
	if ((fd = capture_create(a, name, replace)) < 0) {
		err = fd;
		goto fail;
	}
	if ((err = pcap_sunatm_open_fd(cap, fd, max_bytes)) != 0) {
		unlinkat(a->cap_dirfd, name, 0);
		goto fail;
	}
	snprintf(a->cap[v].name, sizeof(a->cap[v].name), "%s", name);
	a->cap[v].max_bytes = max_bytes;
	a->cap[v].max_s = max_s;
	a->cap[v].deadline_ms = mono_ms() + (uint64_t)max_s * 1000;
	/* The buffer and the open file first, then the pointer the worker tests (vc.h). */
	vc->cap_buf = buf;
	__atomic_store_n(&vc->cap, cap, __ATOMIC_RELEASE);
	a->cap_started++;
	vc_label(a, v, vcname, sizeof(vcname));
	log_info("%s: capturing AAL5 SDUs to %s/%s (at most %lu bytes, %u s)", vcname, a->cap_dir,
	         name, max_bytes, max_s);
	return 0;
fail:
	free(cap);
	free(buf);
	a->cap_refused++;
	return err;
}

/* Close a capture nobody can reach any more; say how it ended. */
static void capture_end(struct atm_ctl *a, unsigned v, struct pcap_sunatm *cap, const char *why)
{
	struct atm_vc *vc = &a->dp->vcs[v];
	uint64_t records = cap->records, bytes = cap->bytes, refused = cap->refused;
	char vcname[96];
	int err = pcap_sunatm_close(cap);

	vc_label(a, v, vcname, sizeof(vcname));
	a->cap_not_written += refused;
	if (err)
		log_warnx("%s: capture to %s stopped (%s): %s: records lost", vcname,
		          a->cap[v].name, why, strerror(-err));
	else
		log_info("%s: capture to %s stopped (%s): %lu records, %lu bytes%s", vcname,
		         a->cap[v].name, why, records, bytes,
		         refused ? ", SDUs past the limit not written" : "");
	free(cap);
	free(vc->cap_buf);
	vc->cap_buf = NULL;
	a->cap[v].name[0] = '\0';
}

/* Unpublish VC v's capture, wait until no worker can be inside a write, close it. */
static int capture_stop(struct atm_ctl *a, unsigned v, const char *why)
{
	struct atm_vc *vc = &a->dp->vcs[v];
	struct pcap_sunatm *cap = __atomic_load_n(&vc->cap, __ATOMIC_ACQUIRE);
	int err;

	if (!cap)
		return -ENOENT;
	__atomic_store_n(&vc->cap, NULL, __ATOMIC_RELEASE);
	synchronize_rcu();
	err = cap->err;
	capture_end(a, v, cap, why);
	return err;
}

void atm_capture_close(struct atm_ctl *a, unsigned v)
{
	struct atm_vc *vc = &a->dp->vcs[v];

	/* The VC is unpublished already (deleted, or the workers stopped). */
	if (vc->cap) {
		capture_end(a, v, vc->cap, "VC deleted or daemon stopping");
		vc->cap = NULL;
	}
}

void atm_capture_open(struct atm_ctl *a, unsigned v, const char *name)
{
	char vcname[96];
	int err;

	/* Before atm_capture_dir_open the directory is not there yet: it opens these then. */
	if (!name[0] || a->cap_dirfd < 0)
		return;
	/*
	 * At startup a file of this name is the previous run's capture and is
	 * replaced; a PVC added at runtime must not remove anybody's file.
	 */
	err = capture_begin(a, v, name, !a->cap_started_up, a->cfg->capture.max_bytes,
	                    a->cfg->capture.max_s);
	if (err) {
		vc_label(a, v, vcname, sizeof(vcname));
		log_warnx("%s: capture-file %s/%s: %s; the VC runs without it", vcname, a->cap_dir,
		          name, strerror(-err));
	}
}

/* The default directory: created (0750) and handed to the daemon's user; never a link. */
static int capture_dir_make(const char *path, uid_t uid, gid_t gid)
{
	int fd;

	if (mkdir(path, 0750) != 0 && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (uid != (uid_t)-1 && fchown(fd, uid, gid) != 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int atm_capture_dir_open(struct atm_ctl *a, const char *rundir, uid_t uid, gid_t gid)
{
	const char *conf = a->cfg->capture.directory;
	struct stat st;
	int fd;

	if (conf[0]) {
		snprintf(a->cap_dir, sizeof(a->cap_dir), "%s", conf);
		fd = open(conf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		fd = fd < 0 ? -errno : fd;
	} else {
		snprintf(a->cap_dir, sizeof(a->cap_dir), "%s/capture", rundir);
		fd = capture_dir_make(a->cap_dir, uid, gid);
	}
	if (fd < 0) {
		log_warnx("capture directory %s: %s: VC captures are refused", a->cap_dir,
		          strerror(-fd));
		return fd;
	}
	if (fstat(fd, &st) == 0 && (st.st_mode & S_IWOTH))
		log_warnx("capture directory %s is writable by every user: other users can "
		          "read and remove captures",
		          a->cap_dir);
	a->cap_dirfd = fd;
	for (unsigned p = 0; p < a->cfg->npvcs; p++) {
		int v = a->vc_of_pvc[p];
		unsigned port = a->cfg->pvcs[p].port;
		if (v >= 0 && (a->pw[port] || a->as[port]))
			atm_capture_open(a, (unsigned)v, a->cfg->pvcs[p].pcap);
	}
	a->cap_started_up = true;
	return 0;
}

void atm_capture_fini(struct atm_ctl *a)
{
	for (unsigned v = 0; a->dp->vcs && v < a->dp->nvcs; v++)
		atm_capture_close(a, v);
	if (a->cap_dirfd >= 0)
		close(a->cap_dirfd);
	a->cap_dirfd = -1;
}

int atm_capture_start(struct atm_ctl *a, unsigned v, const char *name, uint64_t max_bytes,
                      uint32_t max_s)
{
	if (!a->dp->vcs || v >= VC_MAX || a->pvc_of_vc[v] < 0 ||
	    (!a->pw[a->cfg->pvcs[a->pvc_of_vc[v]].port] &&
	     !a->as[a->cfg->pvcs[a->pvc_of_vc[v]].port]))
		return -ENOENT;
	if (__atomic_load_n(&a->dp->vcs[v].cap, __ATOMIC_ACQUIRE))
		return -EBUSY;
	return capture_begin(a, v, name, false, max_bytes, max_s);
}

int atm_capture_stop(struct atm_ctl *a, unsigned v)
{
	if (!a->dp->vcs || v >= VC_MAX || a->pvc_of_vc[v] < 0)
		return -ENOENT;
	return capture_stop(a, v, "capture-stop");
}

void atm_capture_poll(struct atm_ctl *a, uint64_t now_ms)
{
	char why[64];

	if (now_ms - a->cap_poll_ms < CAPTURE_POLL_MS || !a->dp->vcs)
		return;
	a->cap_poll_ms = now_ms;
	for (unsigned v = 0; v < a->dp->nvcs; v++) {
		struct pcap_sunatm *cap = __atomic_load_n(&a->dp->vcs[v].cap, __ATOMIC_ACQUIRE);

		if (!cap)
			continue;
		if (__atomic_load_n(&cap->full, __ATOMIC_RELAXED))
			snprintf(why, sizeof(why), "size limit of %lu bytes reached",
			         a->cap[v].max_bytes);
		else if (now_ms >= a->cap[v].deadline_ms)
			snprintf(why, sizeof(why), "duration limit of %u s reached",
			         a->cap[v].max_s);
		else
			continue;
		a->cap_limit_stops++;
		capture_stop(a, v, why);
	}
}

void atm_capture_vc_json(const struct atm_ctl *a, unsigned v, FILE *out)
{
	const struct pcap_sunatm *cap;

	if (!a->dp->vcs || v >= a->dp->nvcs ||
	    !(cap = __atomic_load_n(&a->dp->vcs[v].cap, __ATOMIC_ACQUIRE)))
		return;
	json_member_str(out, "capture-file", a->cap[v].name);
	fprintf(out, ",\"capture-octets\":\"%lu\"", __atomic_load_n(&cap->bytes, __ATOMIC_RELAXED));
}

void atm_capture_json(const struct atm_ctl *a, FILE *out)
{
	uint64_t pending = 0;

	/* SDUs refused by captures still running count too. */
	for (unsigned v = 0; a->dp->vcs && v < a->dp->nvcs; v++) {
		const struct pcap_sunatm *cap =
		    __atomic_load_n(&a->dp->vcs[v].cap, __ATOMIC_ACQUIRE);
		if (cap)
			pending += __atomic_load_n(&cap->refused, __ATOMIC_RELAXED);
	}
	fputs(",\"capture\":{", out);
	fputs("\"directory\":", out);
	json_str_put(out, a->cap_dir);
	fprintf(out,
	        ",\"started\":\"%lu\",\"stopped-at-limit\":\"%lu\",\"records-not-written\":\"%lu\","
	        "\"refused\":\"%lu\"}",
	        a->cap_started, a->cap_limit_stops, a->cap_not_written + pending, a->cap_refused);
}
