/*-------------------------------------------------------------------------
 *
 * tableam.h
 *		The stdesign table access method: heap storage, with new items placed
 *		next to the items of their partition (an item collection lives on
 *		few pages, whatever order its items arrive in).  See tableam.c for
 *		the placement policy.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_TABLEAM_H
#define ST_TABLEAM_H

#include "postgres.h"

#include "access/tableam.h"
#include "fmgr.h"

/*
 * A page opened for partitions that outgrew their page takes further such
 * partitions only while it is at most this full (percent of the usable page):
 * each of them then has room for about 100 / ST_COLLECTION_FILL_PERCENT
 * items on it.
 */
#define ST_COLLECTION_FILL_PERCENT	10

/* Entries of the per-backend, per-table partition -> page cache. */
#define ST_PLACEMENT_SLOTS	8192

extern Datum st_tableam_handler(PG_FUNCTION_ARGS);

/*
 * The entries of an index being built, supplied by whoever wrote the
 * table's rows (a bulk load that kept them, sorted) instead of a scan of
 * the table: the callback's entries must be exactly those the scan would
 * give.  Set for one index_build, cleared after it (InvalidOid).
 */
typedef double (*StIndexBuildFeed) (Relation index, IndexBuildCallback callback,
									void *callback_state, void *arg);
extern void st_tableam_build_feed(Oid index, StIndexBuildFeed feed, void *arg);

#endif							/* ST_TABLEAM_H */
