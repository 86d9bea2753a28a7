/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Atomic replacement of the startup file: the new content goes to a
 * temporary file in the same directory, is fsync'd, renamed over the old
 * one, and the directory is fsync'd so the rename itself survives a crash.
 * A reader (or a restart after kill -9 or power loss) sees the old file or
 * the new one, never a mix.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mgmt/restconf/rc_priv.h"

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int rc_persist_prepare(const char *path, const char *data, size_t len, char *tmp, size_t tmplen)
{
	struct stat st;
	int fd, err;

	if ((size_t)snprintf(tmp, tmplen, "%s.XXXXXX", path) >= tmplen)
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	/* Keep the old file's mode (mkstemp makes 0600). */
	if (stat(path, &st) == 0)
		fchmod(fd, st.st_mode & 07777);
	err = write_all(fd, data, len);
	if (!err && fsync(fd) != 0)
		err = -errno;
	if (close(fd) != 0 && !err)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int rc_persist_commit(const char *tmp, const char *path)
{
	char dir[4096];
	int fd, err = 0;

	if (rename(tmp, path) != 0) {
		err = -errno;
		unlink(tmp);
		return err;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd) != 0)
		err = -errno;
	close(fd);
	return err;
}

void rc_persist_abort(const char *tmp)
{
	unlink(tmp);
}
