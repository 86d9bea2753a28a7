/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The LINKTYPE_SUNATM capture writer: the bytes it writes, its errors, and
 * (when tshark is installed) that Wireshark decodes the file back to the
 * VPI/VCI, IPv4 addresses and ICMP types that went in, for an LLC/SNAP SDU
 * and a VC-multiplexed one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datapath/atm/pcap_sunatm.h"
#include "datapath/csum.h"
#include "tests/unit/check.h"

#define TS1 1700000000123456789ull /* 2023-11-14T22:13:20.123456789Z */
#define TS2 1700000001000000001ull

/* IPv4 + ICMP echo (type 8) or echo reply (0) from src to dst, checksums right. */
static size_t icmp_echo(uint8_t *p, uint8_t type, const uint8_t src[4], const uint8_t dst[4])
{
	uint16_t c;

	memset(p, 0, 36);
	p[0] = 0x45;
	p[3] = 36; /* total length */
	p[8] = 64; /* TTL */
	p[9] = 1;  /* ICMP */
	memcpy(p + 12, src, 4);
	memcpy(p + 16, dst, 4);
	c = csum_compute(p, 20);
	p[10] = c >> 8, p[11] = c & 0xff;
	p[20] = type;
	p[24] = 0x12, p[25] = 0x34; /* identifier */
	p[27] = 1;                  /* sequence */
	memcpy(p + 28, "cellgate", 8);
	c = csum_compute(p + 20, 16);
	p[22] = c >> 8, p[23] = c & 0xff;
	return 36;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

/* What the daemon does (daemon/atm_capture.c), minus the confinement: a new file, then its fd. */
static int open_path(struct pcap_sunatm *w, const char *path, uint64_t max_bytes)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);

	if (fd < 0) {
		*w = (struct pcap_sunatm){0};
		return -errno;
	}
	return pcap_sunatm_open_fd(w, fd, max_bytes);
}

/* The two SDUs: LLC/SNAP echo request received on 1/100, VC-mux echo reply sent on 2/200. */
static int write_sample(const char *path)
{
	static const uint8_t a[4] = {192, 0, 2, 1}, b[4] = {192, 0, 2, 2};
	static const uint8_t llc[8] = {0xaa, 0xaa, 0x03, 0x00, 0x00, 0x00, 0x08, 0x00};
	uint8_t sdu1[64], sdu2[64];
	size_t n1, n2;
	struct pcap_sunatm w;
	int rc;

	memcpy(sdu1, llc, 8);
	n1 = 8 + icmp_echo(sdu1 + 8, 8, a, b);
	n2 = icmp_echo(sdu2, 0, b, a);
	rc = open_path(&w, path, 0);
	if (!rc)
		rc = pcap_sunatm_write(&w, TS1, false, 1, 100, true, sdu1, n1);
	if (!rc)
		rc = pcap_sunatm_write(&w, TS2, true, 2, 200, false, sdu2, n2);
	if (w.f) {
		int crc = pcap_sunatm_close(&w);
		rc = rc ? rc : crc;
	}
	return rc;
}

static void check_bytes(const char *path)
{
	uint8_t f[256];
	FILE *in = fopen(path, "rb");
	size_t n = in ? fread(f, 1, sizeof(f), in) : 0;
	const uint8_t *r1 = f + 24, *r2 = r1 + 16 + 4 + 44;

	if (in)
		fclose(in);
	/* 24 + (16 + 4 + 8 + 36) + (16 + 4 + 36) */
	CHECK_EQ(n, 144);
	if (n != 144)
		return;
	CHECK_EQ(get32(f), 0xa1b23c4d);
	CHECK(get16(f + 4) == 2 && get16(f + 6) == 4);
	CHECK_EQ(get32(f + 16), 65535);
	CHECK_EQ(get32(f + 20), 123);
	CHECK_EQ(get32(r1), 1700000000);
	CHECK_EQ(get32(r1 + 4), 123456789);
	CHECK(get32(r1 + 8) == 48 && get32(r1 + 12) == 48);
	CHECK(!memcmp(r1 + 16, "\x02\x01\x00\x64\xaa\xaa\x03", 7)); /* in, LLC, 1, 100 */
	CHECK(get32(r2) == 1700000001 && get32(r2 + 4) == 1);
	CHECK(get32(r2 + 8) == 40 && get32(r2 + 12) == 40);
	CHECK(!memcmp(r2 + 16, "\x80\x02\x00\xc8\x45", 5)); /* out, raw, 2, 200 */
}

/* First line of a command's output, or "" when it printed nothing. */
static void run(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n = p ? fread(out, 1, len - 1, p) : 0;

	out[n] = '\0';
	if (p)
		pclose(p);
}

static void check_tshark(const char *path)
{
	char cmd[8192], out[1024];

	if (system("command -v tshark >/dev/null 2>&1") != 0) {
		printf("SKIP: tshark not installed: the decode check is skipped "
		       "(apt-get install tshark)\n");
		return;
	}
	snprintf(cmd, sizeof(cmd),
	         "tshark -r '%s' -T fields -e atm.vpi -e atm.vci -e ip.src -e ip.dst "
	         "-e icmp.type 2>/dev/null",
	         path);
	run(cmd, out, sizeof(out));
	CHECK(!strcmp(out, "1\t100\t192.0.2.1\t192.0.2.2\t8\n"
	                   "2\t200\t192.0.2.2\t192.0.2.1\t0\n"));
	printf("tshark decoded:\n%s", out);
	/* Direction (channel 1 = DCE->DTE, received) and nanosecond timestamps. */
	snprintf(cmd, sizeof(cmd),
	         "tshark -r '%s' -T fields -e atm.channel -e frame.time_epoch 2>/dev/null", path);
	run(cmd, out, sizeof(out));
	CHECK(!strcmp(out, "1\t1700000000.123456789\n0\t1700000001.000000001\n"));
}

static void check_errors(const char *dir)
{
	static const uint8_t sdu[8] = {0x45};
	char path[4096];
	struct pcap_sunatm w;

	snprintf(path, sizeof(path), "%s/no/such/dir.pcap", dir);
	CHECK_EQ(open_path(&w, path, 0), -ENOENT);
	CHECK_EQ(pcap_sunatm_write(&w, 0, false, 0, 32, true, sdu, 8), -EBADF);
	/* /dev/full takes the open; the data fails when the buffer is flushed. */
	if (open_path(&w, "/dev/full", 0) != 0) {
		CHECK(!"open /dev/full");
		return;
	}
	CHECK_EQ(pcap_sunatm_write(&w, 0, false, 0, 32, true, sdu, 8), 0);
	CHECK_EQ(pcap_sunatm_flush(&w), -ENOSPC);
	CHECK_EQ(pcap_sunatm_write(&w, 0, false, 0, 32, true, sdu, 8), -ENOSPC);
	CHECK_EQ(pcap_sunatm_close(&w), -ENOSPC);
	CHECK(w.f == NULL);
}

/* The largest SDU: cut to the snapshot length, its real length kept. */
static void check_snaplen(const char *dir)
{
	static uint8_t sdu[65535];
	uint8_t rec[16];
	char path[4096];
	struct pcap_sunatm w;
	FILE *in;
	long size = 0;

	snprintf(path, sizeof(path), "%s/big.pcap", dir);
	CHECK_EQ(open_path(&w, path, 0), 0);
	CHECK_EQ(pcap_sunatm_write(&w, 0, false, 0, 32, false, sdu, sizeof(sdu)), 0);
	CHECK_EQ(pcap_sunatm_close(&w), 0);
	in = fopen(path, "rb");
	CHECK(in && fseek(in, 24, SEEK_SET) == 0 && fread(rec, 1, 16, in) == 16);
	if (in) {
		fseek(in, 0, SEEK_END);
		size = ftell(in);
		fclose(in);
	}
	CHECK(get32(rec + 8) == 65535 && get32(rec + 12) == 65539);
	CHECK_EQ(size, 24 + 16 + 65535);
	unlink(path);
}

/*
 * A size limit: records that fit are written whole; the first that would
 * pass the limit and every one after it, even one that would still fit,
 * are refused and counted, so the file is a gapless prefix of the traffic
 * that ends on a record boundary, never past the limit.
 */
static void check_limit(const char *dir)
{
	static const uint8_t sdu[40] = {0x45};
	char path[4096];
	struct pcap_sunatm w;
	struct stat st;

	snprintf(path, sizeof(path), "%s/limit.pcap", dir);
	CHECK_EQ(open_path(&w, path, 23), -EINVAL); /* not even the header fits */
	/* Header 24, each record 16 + 4 + 40 = 60: two fit in 170, a third does not. */
	CHECK_EQ(open_path(&w, path, 170), 0);
	CHECK_EQ(w.bytes, 24);
	CHECK_EQ(pcap_sunatm_write(&w, 0, false, 0, 32, true, sdu, sizeof(sdu)), 0);
	CHECK_EQ(pcap_sunatm_write(&w, 0, false, 0, 32, true, sdu, sizeof(sdu)), 0);
	CHECK(!w.full);
	CHECK_EQ(pcap_sunatm_write(&w, 0, false, 0, 32, true, sdu, sizeof(sdu)), -EFBIG);
	CHECK(w.full);
	CHECK_EQ(pcap_sunatm_write(&w, 0, false, 0, 32, true, sdu, 1), -EFBIG); /* 21 would fit */
	CHECK_EQ(w.records, 2);
	CHECK_EQ(w.refused, 2);
	CHECK_EQ(w.bytes, 24 + 60 + 60);
	CHECK_EQ(pcap_sunatm_close(&w), 0);
	CHECK(stat(path, &st) == 0 && st.st_size == 24 + 60 + 60);
	unlink(path);
}

int main(void)
{
	char dir[] = "/tmp/test_pcap_sunatm.XXXXXX", path[4096];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/sample.pcap", dir);
	CHECK_EQ(write_sample(path), 0);
	check_bytes(path);
	check_tshark(path);
	check_errors(dir);
	check_snaplen(dir);
	check_limit(dir);
	unlink(path);
	rmdir(dir);
	return check_report("test_pcap_sunatm");
}
