/*-------------------------------------------------------------------------
 *
 * load_sort.h
 *		The entries of one btree index, kept and sorted by a bulk load, then
 *		given to the index's build in order.  See load_sort.c.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_LOAD_SORT_H
#define ST_LOAD_SORT_H

#include "postgres.h"

#include "storage/itemptr.h"
#include "utils/relcache.h"

typedef struct StLoadSort StLoadSort;

/*
 * NULL when the index's order is not the byte order of its columns.  With
 * dedupe, only the last row (by seq) of each key goes into the index.
 */
extern StLoadSort *storage_load_sort_begin(Relation index, Size budget, bool dedupe);

/* Keep one entry (a run written to a temporary file when memory is full). */
extern void storage_load_sort_add(StLoadSort *s, ItemPointer tid, const Datum *values,
								  const bool *isnull, int64 seq);

/*
 * Build the index afresh (as REINDEX does) from the entries kept, in order
 * (s NULL: from a scan of the table).
 */
extern void storage_load_sort_build(StLoadSort *s, Relation heap, Relation index);

/* After a deduplicating build: the rows left out, their TIDs sorted. */
extern ItemPointerData *storage_load_sort_dropped(StLoadSort *s, int64 *n);

/* Leave these rows (TIDs sorted, kept by the caller) out of the build. */
extern void storage_load_sort_skip(StLoadSort *s, const ItemPointerData *sorted, int64 n);

extern void storage_load_sort_end(StLoadSort *s);

#endif							/* ST_LOAD_SORT_H */
