/* SPDX-License-Identifier: BSD-2-Clause */
#include <errno.h>
#include <stdlib.h>

#include "daemon/routes_update.h"

static const void *route_at(const struct routes_family_ops *ops, const struct routes_list *l,
                            unsigned i)
{
	return (const char *)l->routes + (size_t)i * ops->size;
}

static const void *route_find(const struct routes_family_ops *ops, const struct routes_list *l,
                              const void *r)
{
	return l->n ? bsearch(r, l->routes, l->n, ops->size, ops->cmp) : NULL;
}

/* Put the RIB's static route for r's prefix back to what `l` says (absent: none). */
static int route_restore(const struct routes_family_ops *ops, void *rib,
                         const struct routes_list *l, const void *r)
{
	const void *old = route_find(ops, l, r);
	int err;

	if (old)
		return ops->set(rib, l->cfg, old);
	err = ops->del(rib, r);
	return err == -ENOENT ? 0 : err; /* it had not got in: nothing to take out */
}

/* One change: `r` is in next (set it) or only in cur (delete it). */
struct route_change {
	const void *r;
	bool del;
};

int routes_update(const struct routes_family_ops *ops, void *rib, const struct routes_list *cur,
                  const struct routes_list *next, struct routes_update_err *e)
{
	struct route_change *ch = calloc((size_t)cur->n + next->n + 1, sizeof(*ch));
	unsigned n = 0, i;
	int err = 0;

	*e = (struct routes_update_err){0};
	if (!ch)
		return -ENOMEM;
	/* cfg_parse leaves routes sorted, so both lookups are binary searches. */
	for (i = 0; i < cur->n; i++)
		if (!route_find(ops, next, route_at(ops, cur, i)))
			ch[n++] = (struct route_change){route_at(ops, cur, i), true};
	for (i = 0; i < next->n; i++) {
		const void *r = route_at(ops, next, i), *old = route_find(ops, cur, r);

		if (!old || !ops->same(old, r))
			ch[n++] = (struct route_change){r, false};
	}
	for (i = 0; i < n && !err; i++) {
		err = ch[i].del ? ops->del(rib, ch[i].r) : ops->set(rib, next->cfg, ch[i].r);
		if (err && ch[i].del && err == -ENOENT)
			err = 0; /* it never got installed (startup failure): nothing to delete */
		if (err)
			ops->name(ch[i].r, e->failed, sizeof(e->failed));
	}
	if (err) /* undo, newest first, including the failed one's partial effect */
		while (i-- > 0) {
			int u = route_restore(ops, rib, cur, ch[i].r);

			if (!u)
				continue;
			if (!e->undo_failures++) {
				e->undo_err = u;
				ops->name(ch[i].r, e->undo_failed, sizeof(e->undo_failed));
			}
		}
	free(ch);
	return err;
}
