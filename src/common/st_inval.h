/*-------------------------------------------------------------------------
 *
 * st_inval.h
 *		One relation cache invalidation callback for all of stdesign's
 *		caches (st_inval.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_INVAL_H
#define ST_INVAL_H

#include "utils/inval.h"

/*
 * Call fn(arg, relid) on every relation cache invalidation, as
 * CacheRegisterRelcacheCallback does, without taking one of Postgres's
 * few slots per cache: all of stdesign's share one.  Registering the same
 * fn twice registers it once.
 */
extern void st_relcache_callback(RelcacheCallbackFunction fn, Datum arg);

#endif							/* ST_INVAL_H */
