/*-------------------------------------------------------------------------
 *
 * row_write.h
 *		Writing the rows of items without an executor: replacing the item
 *		of a row, deleting a row, and INSERT ... ON CONFLICT DO UPDATE of
 *		many items.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_ROW_WRITE_H
#define ST_ROW_WRITE_H

#include "postgres.h"

#include "storage/itemptr.h"
#include "utils/jsonb.h"

/*
 * May items of this relation be replaced directly?  False when an UPDATE
 * statement would do more than write the row and its index entries (other
 * triggers, rewrite rules, row security, CHECK constraints) or is not
 * permitted: the caller then runs the UPDATE statement.
 */
extern bool storage_row_update_allowed(Oid relid);

/*
 * Replace the item of the row version at ctid, keeping its key columns;
 * index entries as an UPDATE makes them.  With locked, this transaction
 * holds the row's lock.  Without, the version was read under a fresh
 * snapshot and is replaced only if it is still the latest (waiting for a
 * transaction writing it, as an UPDATE does): false when another
 * transaction has since updated or deleted it, in READ COMMITTED (the
 * caller reads it again); a serialization failure in REPEATABLE READ and
 * SERIALIZABLE.  Only after storage_row_update_allowed.
 */
extern bool storage_row_update(Oid relid, AttrNumber item_attnum, ItemPointer ctid, Jsonb *item, bool locked);

/*
 * May items of this relation be deleted directly?  As storage_row_update_allowed,
 * for a DELETE statement.
 */
extern bool storage_row_delete_allowed(Oid relid);

/*
 * Delete the row version at ctid, as a DELETE does (waiting for a
 * transaction still writing it).  locked and the result as for storage_row_update.
 * Only after storage_row_delete_allowed.
 */
extern bool storage_row_delete(Oid relid, ItemPointer ctid, bool locked);

/*
 * Write items[0..n-1] (distinct keys) as INSERT ... ON CONFLICT (key) DO
 * UPDATE SET item = excluded.item would, key_index being the table's
 * primary key.  *probe says whether to look for an existing row before
 * each insertion, as the executor does; without, a new row is inserted
 * speculatively straight away and a conflict found then is resolved the
 * same way, and *probe is set for the items that follow (a load into an
 * empty key range never looks twice).  Returns false, having written
 * nothing, when the statement would do more than that (see row_write.c):
 * the caller then runs the statement.
 */
extern bool storage_row_upsert_many(Oid relid, Oid key_index, AttrNumber item_attnum,
							Jsonb **items, int n, bool *probe);

/*
 * Insert items[0..n-1] (distinct keys that no row has: a load into an
 * empty table) as COPY inserts rows: heap tuples in batches, then their
 * index entries; the key index raises a unique violation for a key that
 * exists after all (written meanwhile by another transaction).  False,
 * having written nothing, when an INSERT statement would do more (as for
 * storage_row_upsert_many).
 */
extern bool storage_row_insert_many(Oid relid, Oid key_index, AttrNumber item_attnum,
									Jsonb **items, int n);

/*
 * A load of new keys (as storage_row_insert_many's) in many calls, the
 * index entries sorted and written in index order at the end: begin (NULL
 * when an INSERT statement would do more), load chunks, end.  Until the
 * end the rows are not in the indexes: nothing may look for them.
 */
typedef struct StRowLoader StRowLoader;
extern StRowLoader *storage_row_load_begin(Oid relid, Oid key_index, AttrNumber item_attnum);
extern void storage_row_load(StRowLoader *l, Jsonb **items, int n);
extern void storage_row_load_end(StRowLoader *l);
/* Does the load find keys it writes twice itself (the last row kept)? */
extern bool storage_row_load_dedupes(StRowLoader *l);

/*
 * Write item as INSERT ... ON CONFLICT DO NOTHING RETURNING ctid would
 * (key_index being the only unique index): ST_ROW_INSERTED with *ctid (if
 * not NULL) the new row's, ST_ROW_KEY_EXISTS when a row with the key
 * exists or is being written by a transaction that then committed it
 * (waited for, as the statement waits).  ST_ROW_NOT_DIRECT, having written
 * nothing, when the statement would do more (see row_write.c).
 */
typedef enum StRowInsert
{
	ST_ROW_NOT_DIRECT,
	ST_ROW_INSERTED,
	ST_ROW_KEY_EXISTS
} StRowInsert;

extern StRowInsert storage_row_insert(Oid relid, Oid key_index, AttrNumber item_attnum,
									  Jsonb *item, ItemPointer ctid);

#endif							/* ST_ROW_WRITE_H */
