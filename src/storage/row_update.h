/*-------------------------------------------------------------------------
 *
 * row_update.h
 *		Replacing the item of a locked row without an executor.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ROW_UPDATE_H
#define ROW_UPDATE_H

#include "postgres.h"

#include "storage/itemptr.h"
#include "utils/jsonb.h"

/*
 * Replace the item of the row version at ctid, which this transaction has
 * locked, keeping its key columns; index entries as an UPDATE makes them.
 * False, having done nothing, when an UPDATE statement would do more than
 * that (other triggers, row security, CHECK constraints) or is not
 * permitted: the caller then runs the UPDATE statement.
 */
extern bool row_update_locked(Oid relid, AttrNumber item_attnum, ItemPointer ctid, Jsonb *item);

#endif							/* ROW_UPDATE_H */
