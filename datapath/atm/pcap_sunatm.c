/* SPDX-License-Identifier: BSD-2-Clause */
/* pcap files with LINKTYPE_SUNATM records; the format is described in pcap_sunatm.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "datapath/atm/pcap_sunatm.h"

#define PCAP_MAGIC_NS 0xa1b23c4du /* nanosecond timestamps */
#define PCAP_BUF      (64u << 10)

/* errno of a failed stdio call; EIO when stdio left none. */
static int pcap_errno(void)
{
	return errno ? -errno : -EIO;
}

/* Header fields are in host byte order, as libpcap writes them; readers go by the magic. */
static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static int pcap_put(struct pcap_sunatm *w, const void *buf, size_t len)
{
	errno = 0;
	if (len && fwrite(buf, 1, len, w->f) != len)
		w->err = pcap_errno();
	return w->err;
}

int pcap_sunatm_open_fd(struct pcap_sunatm *w, int fd, uint64_t max_bytes)
{
	uint8_t hdr[24];
	int err;

	*w = (struct pcap_sunatm){.max_bytes = max_bytes};
	if (max_bytes && max_bytes < sizeof(hdr)) {
		close(fd);
		return -EINVAL;
	}
	w->f = fdopen(fd, "w");
	if (!w->f) {
		err = -errno;
		close(fd);
		return err;
	}
	setvbuf(w->f, NULL, _IOFBF, PCAP_BUF);
	put32(hdr, PCAP_MAGIC_NS);
	put16(hdr + 4, 2); /* version 2.4 */
	put16(hdr + 6, 4);
	put32(hdr + 8, 0);  /* thiszone: timestamps are UTC */
	put32(hdr + 12, 0); /* sigfigs */
	put32(hdr + 16, PCAP_SUNATM_SNAPLEN);
	put32(hdr + 20, PCAP_SUNATM_LINKTYPE);
	err = pcap_put(w, hdr, sizeof(hdr));
	if (err) {
		fclose(w->f);
		w->f = NULL;
		return err;
	}
	__atomic_store_n(&w->bytes, sizeof(hdr), __ATOMIC_RELAXED);
	return 0;
}

int pcap_sunatm_write(struct pcap_sunatm *w, uint64_t ts_ns, bool outbound, uint8_t vpi,
                      uint16_t vci, bool llc, const uint8_t *sdu, size_t len)
{
	uint8_t rec[16 + 4];
	uint32_t orig, incl;

	if (w->err)
		return w->err;
	if (!w->f)
		return -EBADF;
	if (len > UINT32_MAX - 4)
		return -EMSGSIZE;
	orig = (uint32_t)len + 4;
	incl = orig < PCAP_SUNATM_SNAPLEN ? orig : PCAP_SUNATM_SNAPLEN;
	if (w->full || (w->max_bytes && w->bytes + 16 + incl > w->max_bytes)) {
		/* Whole records or none (a cut one would end the file mid-record), and none
		 * after the first refused, so the file is a gapless prefix of the traffic. */
		__atomic_store_n(&w->refused, w->refused + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&w->full, true, __ATOMIC_RELAXED);
		return -EFBIG;
	}
	put32(rec, (uint32_t)(ts_ns / 1000000000u));
	put32(rec + 4, (uint32_t)(ts_ns % 1000000000u));
	put32(rec + 8, incl);
	put32(rec + 12, orig);
	rec[16] = (outbound ? PCAP_SUNATM_OUTBOUND : 0) | (llc ? PCAP_SUNATM_LLC : PCAP_SUNATM_RAW);
	rec[17] = vpi;
	rec[18] = vci >> 8;
	rec[19] = vci & 0xff;
	if (pcap_put(w, rec, sizeof(rec)) || pcap_put(w, sdu, incl - 4))
		return w->err;
	__atomic_store_n(&w->bytes, w->bytes + 16 + incl, __ATOMIC_RELAXED);
	__atomic_store_n(&w->records, w->records + 1, __ATOMIC_RELAXED);
	return 0;
}

int pcap_sunatm_flush(struct pcap_sunatm *w)
{
	if (w->err)
		return w->err;
	if (!w->f)
		return -EBADF;
	errno = 0;
	if (fflush(w->f))
		w->err = pcap_errno();
	return w->err;
}

int pcap_sunatm_close(struct pcap_sunatm *w)
{
	int err = w->err;

	if (!w->f)
		return err ? err : -EBADF;
	errno = 0;
	if (fclose(w->f) && !err)
		err = pcap_errno();
	w->f = NULL;
	w->err = 0;
	return err;
}
