/* SPDX-License-Identifier: BSD-2-Clause */
#include <cap-ng.h>
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "daemon/privdrop.h"

int privdrop_lookup(const char *user, uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam(user);
	char *end;

	if (!pw) {
		unsigned long n = strtoul(user, &end, 10);
		if (*user && !*end)
			pw = getpwuid((uid_t)n);
	}
	if (!pw) {
		log_warnx("-u %s: no such user", user);
		return -ENOENT;
	}
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return 0;
}

int privdrop_apply(const char *user, uid_t uid, gid_t gid)
{
	int err;

	if (geteuid() != 0) {
		log_warnx("-u %s: cellgated is not running as root, nothing to drop", user);
		return -EPERM;
	}
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_updatev(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_NET_ADMIN, CAP_NET_RAW,
	                  -1) != 0) {
		log_warnx("-u %s: cannot build the capability set", user);
		return -EINVAL;
	}
	/* setgid/setuid keeping the set above (PR_SET_KEEPCAPS inside), groups and bounding set
	 * cleared so no exec can win anything back. */
	err = capng_change_id((int)uid, (int)gid, CAPNG_DROP_SUPP_GRP | CAPNG_CLEAR_BOUNDING);
	if (err != 0) {
		log_warnx("-u %s: changing to uid %u gid %u failed (libcap-ng error %d)", user,
		          (unsigned)uid, (unsigned)gid, err);
		return -EPERM;
	}
	if (getuid() != uid || geteuid() != uid || getgid() != gid ||
	    capng_have_capability(CAPNG_EFFECTIVE, CAP_SYS_ADMIN) ||
	    !capng_have_capability(CAPNG_EFFECTIVE, CAP_NET_ADMIN)) {
		log_warnx("-u %s: privileges not as expected after the drop", user);
		return -EPERM;
	}
	log_info("running as %s (uid %u): capabilities cap_net_admin, cap_net_raw only", user,
	         (unsigned)uid);
	return 0;
}
