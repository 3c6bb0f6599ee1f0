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

#include "st_catalog.h"

/* The Postgres type of a key column for a key type (text, numeric, bytea). */
extern Oid	catalog_key_typoid(AvType type);

/*
 * Why the columns of a relation are not pk[, sk], item with the key types
 * given (attnums 1, 2, 3; more columns may follow), or NULL when they are.
 */
extern char *catalog_columns_problem(TupleDesc desc, const StKeyDef *pk, const StKeyDef *sk);

/*
 * Why the relation t->relid (locked by the caller) does not have the
 * layout of table t, or NULL when it does; fills t->item_attnum,
 * t->key_index (the index named t->key_index_name) and each index's
 * index_oid (named pg_index).  complete: the key index, every
 * GSI btree and the set_keys trigger must exist (a table about to be
 * used); otherwise only the pieces that exist are checked (DDL, or a
 * restore that has not created them yet).
 */
extern char *catalog_layout_problem(StTable *t, bool complete);

/*
 * Is a DDL statement of stdesign's own running (st_create_table, ...)?
 * Storage runs each between enter and leave (also on error); the layout
 * guard lets them through.
 */
extern void catalog_own_ddl_enter(void);
extern void catalog_own_ddl_leave(void);
extern bool catalog_in_own_ddl(void);

/* The OID of stdesign.set_keys(), or InvalidOid. */
extern Oid	catalog_set_keys_oid(void);

#endif							/* ST_LAYOUT_H */
