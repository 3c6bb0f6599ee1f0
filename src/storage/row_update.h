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
 * May items of this relation be replaced directly?  False when an UPDATE
 * statement would do more than write the row and its index entries (other
 * triggers, row security, CHECK constraints) or is not permitted: the
 * caller then runs the UPDATE statement.
 */
extern bool row_update_allowed(Oid relid);

/*
 * Replace the item of the row version at ctid, keeping its key columns;
 * index entries as an UPDATE makes them.  With locked, this transaction
 * holds the row's lock.  Without, the version was read under a fresh
 * snapshot and is replaced only if it is still the latest (waiting for a
 * transaction writing it, as an UPDATE does): false when another
 * transaction has since updated or deleted it, in READ COMMITTED (the
 * caller reads it again); a serialization failure in REPEATABLE READ and
 * SERIALIZABLE.  Only after row_update_allowed.
 */
extern bool row_update(Oid relid, AttrNumber item_attnum, ItemPointer ctid, Jsonb *item, bool locked);

#endif							/* ROW_UPDATE_H */
