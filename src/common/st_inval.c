/*-------------------------------------------------------------------------
 *
 * st_inval.c
 *		One relation cache invalidation callback for all of stdesign's
 *		caches.
 *
 * A backend has room for ten relation cache callbacks in all
 * (MAX_RELCACHE_CALLBACKS in Postgres's inval.c), shared by every
 * extension it loads, and running out is FATAL: the session ends.
 * stdesign has several caches (the tables, the index infos, the key
 * trigger's relations, the table access method's, the access keys, the
 * studio's models), each emptied by relation invalidations; Citus
 * registers several of its own.  A session using enough of both (an HTTP
 * worker on a Citus coordinator restoring a backup, say) ran out.  So the
 * caches register here, and only this module's dispatcher takes a slot.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "st_inval.h"

/* More than stdesign's caches need; past it is a bug of stdesign's. */
#define ST_RELCACHE_CALLBACKS 16

static struct
{
	RelcacheCallbackFunction fn;
	Datum		arg;
}			callbacks[ST_RELCACHE_CALLBACKS];
static int	ncallbacks = 0;

static void
dispatch(Datum arg, Oid relid)
{
	for (int i = 0; i < ncallbacks; i++)
		callbacks[i].fn(callbacks[i].arg, relid);
}

void
st_relcache_callback(RelcacheCallbackFunction fn, Datum arg)
{
	for (int i = 0; i < ncallbacks; i++)
		if (callbacks[i].fn == fn)
			return;
	if (ncallbacks >= ST_RELCACHE_CALLBACKS)
		elog(ERROR, "stdesign: too many relation cache callbacks");
	/* the one slot of Postgres's, taken by the first cache */
	if (ncallbacks == 0)
		CacheRegisterRelcacheCallback(dispatch, (Datum) 0);
	callbacks[ncallbacks].fn = fn;
	callbacks[ncallbacks].arg = arg;
	ncallbacks++;
}
