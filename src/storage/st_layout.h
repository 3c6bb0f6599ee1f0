/*-------------------------------------------------------------------------
 *
 * st_layout.h
 *		Checking that a table's relation still has the layout stdesign gave
 *		it: the columns, the key index, the GSI btrees and the set_keys
 *		trigger.
 *
 * Every direct read and write trusts that layout (the item column's
 * number, the key index's columns and their types).  A relation whose
 * owner altered it must be refused, not read: a jsonb pointer that is
 * really an integer takes the whole server down.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_LAYOUT_H
#define ST_LAYOUT_H

#include "postgres.h"

#include "access/tupdesc.h"
#include "utils/rel.h"

#include "catalog/st_catalog.h"

/* The name of a table relation's unique key index. */
extern char *storage_key_index_name(const char *relname);

/*
 * Why the columns of a relation are not pk[, sk], item with the key types
 * given (attnums 1, 2, 3; more columns may follow), or NULL when they are.
 */
extern char *storage_columns_problem(TupleDesc desc, const StKeyDef *pk, const StKeyDef *sk);

/*
 * Why the relation t->relid (locked by the caller) does not have the
 * layout of table t, or NULL when it does; fills t->item_attnum,
 * t->key_index and each index's index_oid.  complete: the key index, every
 * GSI btree and the set_keys trigger must exist (a table about to be
 * used); otherwise only the pieces that exist are checked (DDL, or a
 * restore that has not created them yet).
 */
extern char *storage_layout_problem(StTable *t, bool complete);

/* Is a DDL statement of stdesign's own running (st_create_table, ...)? */
extern bool storage_in_own_ddl(void);

/* The OID of stdesign.set_keys(), or InvalidOid. */
extern Oid	storage_set_keys_oid(void);

#endif							/* ST_LAYOUT_H */
