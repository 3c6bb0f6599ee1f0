/*-------------------------------------------------------------------------
 *
 * storage.c
 *		The relations that hold items, their indexes, and the prepared plans
 *		that read and write them.
 *
 * Layout of a table's relation (schema stdesign_data):
 *
 *	pk	 the partition key (text COLLATE "C" for S, numeric for N, bytea for
 *		 B), set from item by the stdesign.set_keys() trigger on every
 *		 INSERT and UPDATE, so that key columns and item can never disagree,
 *		 whichever path wrote the row;
 *	sk	 the sort key, likewise (absent for hash-only tables);
 *	item the whole item in typed AttributeValue jsonb.
 *
 * The primary key is a unique btree on (stdesign.key_ix(pk), sk): key_ix
 * keeps a long partition key short (see the extension script) so that the
 * largest keys DynamoDB allows fit in a btree entry.  A secondary index is a
 * btree over the same kind of expressions, computed from item, partial on
 * the presence of its key attributes: sparse, as in DynamoDB, and kept up
 * to date by Postgres on every write.  Queries repeat the index's exact
 * expressions and predicate so that the planner uses it, and give the sort
 * key's range as two bounds (begins_with is turned into a range by the
 * caller): an index range scan in key order, with no Sort node.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_collation_d.h"
#include "executor/tuptable.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/datum.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/acl.h"
#include "utils/rls.h"
#include "miscadmin.h"
#include "common/hashfn.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "utils/reltrigger.h"

#include "catalog/pg_proc.h"
#include "utils/syscache.h"

#include "catalog/st_layout.h"
#include "common/st_common.h"
#include "item/av.h"
#include "key_trigger.h"
#include "row_write.h"
#include "st_storage.h"

/* Reads and deletes of an item that other writers keep changing, before the statement runs. */
#define ST_DIRECT_DELETE_TRIES 3

/* ---------- SQL text of key expressions ---------- */

/*
 * Every statement below names each function, operator, type and collation
 * with its schema, as Postgres's own catalog code does: it runs with the
 * caller's search_path, where another role may have put a function or
 * operator that an unqualified name would resolve to (a better match for
 * an unknown-typed literal, or an exact one for a polymorphic built-in).
 * The index and predicate expressions parse to the same trees as the
 * unqualified ones of older tables, so the planner still matches them.
 */
#define OP(o) "OPERATOR(pg_catalog." o ")"

/* The key value of attribute `name` read from item, typed per the key type. */
static char *
attr_value_sql(const char *name, AvType type)
{
	char	   *lit = quote_literal_cstr(name);

	switch (type)
	{
		case AV_N:
			return psprintf("(((item " OP("->") " %s) " OP("->>") " 'N')::pg_catalog.numeric)", lit);
		case AV_B:
			return psprintf("pg_catalog.decode((item " OP("->") " %s) " OP("->>") " 'B', 'base64')", lit);
		default:
			return psprintf("((item " OP("->") " %s) " OP("->>") " 'S')", lit);
	}
}

/* The partition-key expression of a key space, as its btree indexes it. */
static char *
partition_expr(const char *value_sql, AvType type)
{
	if (type == AV_N)
		return pstrdup(value_sql);
	return psprintf("stdesign.key_ix(%s)", value_sql);
}

/* The sort-key expression of an index: S compares in byte order. */
static char *
index_sort_expr(const StKeyDef *sk)
{
	char	   *v = attr_value_sql(sk->name, sk->type);

	if (sk->type == AV_S)
		return psprintf("(%s COLLATE pg_catalog.\"C\")", v);
	return v;
}

/*
 * DynamoDB's key length limits (the write path checks them with its
 * messages, ops/item_check.c); here they keep out of an index the items
 * written before it existed.
 */
#define INDEX_PK_MAX_BYTES 2048
#define INDEX_SK_MAX_BYTES 1024

/*
 * An index key attribute as an index can hold it: present, of the index's
 * type, and for S and B neither empty nor over the limit.  Items written
 * before the index was added may break this; DynamoDB leaves them out of
 * the index it builds.
 */
static char *
index_key_ok_sql(const StKeyDef *k, int max)
{
	char	   *lit = quote_literal_cstr(k->name);

	/* no BETWEEN: it would look its operators up in the search_path */
	switch (k->type)
	{
		case AV_N:
			return psprintf("item " OP("?") " %s AND (item " OP("->") " %s) " OP("?") " 'N'", lit, lit);
		case AV_B:
			return psprintf("item " OP("?") " %s AND pg_catalog.octet_length(pg_catalog.decode((item " OP("->") " %s) "
							OP("->>") " 'B', 'base64')) " OP(">=") " 1 AND pg_catalog.octet_length(pg_catalog.decode((item "
							OP("->") " %s) " OP("->>") " 'B', 'base64')) " OP("<=") " %d",
							lit, lit, lit, max);
		default:
			return psprintf("item " OP("?") " %s AND pg_catalog.octet_length((item " OP("->") " %s) " OP("->>") " 'S') "
							OP(">=") " 1 AND pg_catalog.octet_length((item " OP("->") " %s) " OP("->>") " 'S') "
							OP("<=") " %d",
							lit, lit, lit, max);
	}
}

/*
 * The partial-index predicate of an index: its key attributes are there as
 * it can hold them.  Each starts with "item ? name", the whole predicate of
 * indexes built by older versions, so that queries written with this one
 * still use those.
 */
char *
storage_index_predicate(const StKeyDef *pk, const StKeyDef *sk)
{
	if (sk->name)
		return psprintf("(%s AND %s)", index_key_ok_sql(pk, INDEX_PK_MAX_BYTES),
						index_key_ok_sql(sk, INDEX_SK_MAX_BYTES));
	return psprintf("(%s)", index_key_ok_sql(pk, INDEX_PK_MAX_BYTES));
}

/* The layout check knows the key columns' types too: one definition of them. */
Oid
storage_key_typoid(AvType type)
{
	return catalog_key_typoid(type);
}

Datum
storage_key_datum(const Av *value)
{
	switch (value->type)
	{
		case AV_N:
			return DirectFunctionCall3(numeric_in, CStringGetDatum(value->str),
									   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
		case AV_B:
			{
				bytea	   *b = palloc(VARHDRSZ + value->len);

				SET_VARSIZE(b, VARHDRSZ + value->len);
				memcpy(VARDATA(b), value->str, value->len);
				return PointerGetDatum(b);
			}
		default:
			return PointerGetDatum(cstring_to_text_with_len(value->str, value->len));
	}
}

/* ---------- DDL ---------- */

/*
 * Run one of stdesign's own DDL statements.  The layout guard (the DDL
 * event trigger) lets these through: they build or drop a layout a piece
 * at a time.
 */
static void
exec_ddl(const char *sql)
{
	catalog_own_ddl_enter();
	PG_TRY();
	{
		SPI_connect();
		if (SPI_execute(sql, false, 0) < 0)
			st_internal_error("could not execute: %s", sql);
		SPI_finish();
	}
	PG_FINALLY();
	{
		catalog_own_ddl_leave();
	}
	PG_END_TRY();
}

/*
 * The set_keys trigger is attached as the owner of stdesign.set_keys():
 * EXECUTE on it is revoked from PUBLIC, so that no one else can attach it
 * to a relation of their own (Postgres checks that privilege when a
 * trigger is created, not when it fires).  The statement names everything
 * with its schema.
 */
static void
exec_ddl_as_set_keys_owner(const char *sql)
{
	Oid			fn = catalog_set_keys_oid();
	HeapTuple	tup;
	Oid			owner;
	Oid			saved_user;
	int			saved_sec;

	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(tup))
		st_internal_error("function stdesign.set_keys() is missing");
	owner = ((Form_pg_proc) GETSTRUCT(tup))->proowner;
	ReleaseSysCache(tup);

	GetUserIdAndSecContext(&saved_user, &saved_sec);
	SetUserIdAndSecContext(owner, saved_sec | SECURITY_LOCAL_USERID_CHANGE);
	PG_TRY();
	{
		exec_ddl(sql);
	}
	PG_FINALLY();
	{
		SetUserIdAndSecContext(saved_user, saved_sec);
	}
	PG_END_TRY();
}

static char *
qualified(const char *relname)
{
	return psprintf("%s.%s", ST_DATA_SCHEMA, quote_identifier(relname));
}

static const char *
column_type_sql(AvType type)
{
	switch (type)
	{
		case AV_N:
			return "pg_catalog.numeric";
		case AV_B:
			return "pg_catalog.bytea";
		default:
			return "pg_catalog.text COLLATE pg_catalog.\"C\"";
	}
}

/*
 * The relation of a new table: pk, sk and item, the key columns kept equal to
 * the item's key attributes by the stdesign.set_keys() trigger (see
 * key_trigger.c), and the unique key index.
 */
void
storage_create_relation(const char *relname, const char *key_index,
						const StKeyDef *pk, const StKeyDef *sk)
{
	StringInfoData sql;
	char	   *rel = qualified(relname);

	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE TABLE %s (pk %s NOT NULL", rel, column_type_sql(pk->type));
	if (sk->name)
		appendStringInfo(&sql, ", sk %s NOT NULL", column_type_sql(sk->type));
	appendStringInfoString(&sql, ", item pg_catalog.jsonb NOT NULL) USING stdesign");
	exec_ddl(sql.data);

	resetStringInfo(&sql);
	appendStringInfo(&sql, "CREATE TRIGGER set_keys BEFORE INSERT OR UPDATE ON %s"
					 " FOR EACH ROW EXECUTE FUNCTION stdesign.set_keys(%s, %s",
					 rel, quote_literal_cstr(pk->name), quote_literal_cstr(av_type_name(pk->type)));
	if (sk->name)
		appendStringInfo(&sql, ", %s, %s", quote_literal_cstr(sk->name),
						 quote_literal_cstr(av_type_name(sk->type)));
	appendStringInfoChar(&sql, ')');
	exec_ddl_as_set_keys_owner(sql.data);

	resetStringInfo(&sql);
	appendStringInfo(&sql, "CREATE UNIQUE INDEX %s ON %s (%s%s)",
					 quote_identifier(key_index), rel,
					 partition_expr("pk", pk->type), sk->name ? ", sk" : "");
	exec_ddl(sql.data);
}

/*
 * A secondary index: its partition key, its sort key, then the table's key,
 * which orders items with equal index keys so that every item has an exact
 * position to resume a page from.  With key_ix keeping partition keys at
 * most 288 bytes, the largest entry (two 1024-byte sort keys) still fits a
 * btree page's limit.
 */
void
storage_create_index(const char *relname, const char *index_relname,
					 const StKeyDef *pk, const StKeyDef *sk,
					 const StKeyDef *table_pk, const StKeyDef *table_sk)
{
	StringInfoData sql;

	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE INDEX %s ON %s (%s",
					 quote_identifier(index_relname), qualified(relname),
					 partition_expr(attr_value_sql(pk->name, pk->type), pk->type));
	if (sk->name)
		appendStringInfo(&sql, ", %s", index_sort_expr(sk));
	appendStringInfo(&sql, ", %s", partition_expr("pk", table_pk->type));
	if (table_sk->name)
		appendStringInfoString(&sql, ", sk");
	appendStringInfo(&sql, ") WHERE %s", storage_index_predicate(pk, sk));
	exec_ddl(sql.data);
}

void
storage_drop_index(const char *index_relname)
{
	exec_ddl(psprintf("DROP INDEX %s", qualified(index_relname)));
}

void
storage_drop_relation(const char *relname)
{
	exec_ddl(psprintf("DROP TABLE %s", qualified(relname)));
}

/* ---------- plans ---------- */

/* Prepare and keep a plan in the table's cache; `*slot` caches it. */
static SPIPlanPtr
get_plan(SPIPlanPtr *slot, const char *sql, int nargs, Oid *argtypes)
{
	SPIPlanPtr	plan;

	if (*slot)
		return *slot;
	/*
	 * Always the generic plan: these statements are key lookups and range
	 * scans whose best plan does not depend on the values, and a custom plan
	 * would be planned again on every call.
	 */
	plan = SPI_prepare_cursor(sql, nargs, argtypes, CURSOR_OPT_GENERIC_PLAN);
	if (plan == NULL)
		st_internal_error("could not prepare \"%s\": %s", sql,
						  SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		st_internal_error("could not keep plan");
	*slot = plan;
	return plan;
}

/*
 * The cached plan of a slot, preparing it from the SQL expression only on
 * first use: the text is not even built once the plan exists.
 */
#define CACHED_PLAN(slot, sql, nargs, types) \
	(*(slot) ? *(slot) : get_plan((slot), (sql), (nargs), (types)))

/* "<partition expr> = <param> [AND sk = $2]" for the table's primary key. */
static char *
key_match_sql(StTable *t)
{
	char	   *param = t->pk.type == AV_N ? "$1" : "stdesign.key_ix($1)";

	if (t->sk.name)
		return psprintf("%s " OP("=") " %s AND sk " OP("=") " $2", partition_expr("pk", t->pk.type), param);
	return psprintf("%s " OP("=") " %s", partition_expr("pk", t->pk.type), param);
}

static int
key_args(StTable *t, const StKey *key, Oid *types, Datum *values)
{
	types[0] = storage_key_typoid(t->pk.type);
	values[0] = key->pk;
	if (!t->sk.name)
		return 1;
	types[1] = storage_key_typoid(t->sk.type);
	values[1] = key->sk;
	return 2;
}

/* Copy the jsonb of column 1 of the first result row into the caller's context. */
static Jsonb *
first_item(ItemPointer ctid)
{
	bool		isnull;
	Datum		d;
	Jsonb	   *result;

	if (SPI_processed == 0)
		return NULL;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		return NULL;
	result = (Jsonb *) SPI_datumTransfer(PointerGetDatum(PG_DETOAST_DATUM(d)), false, -1);
	if (ctid)
	{
		ItemPointer p = (ItemPointer) DatumGetPointer(SPI_getbinval(SPI_tuptable->vals[0],
																	SPI_tuptable->tupdesc, 2, &isnull));

		ItemPointerCopy(p, ctid);
	}
	return result;
}

/* The item with this key, read (or, with ctid, read and locked FOR UPDATE). */
static Jsonb *
read_by_key(StTable *t, const StKey *key, ItemPointer ctid)
{
	Oid			types[2];
	Datum		values[2];
	int			n = key_args(t, key, types, values);
	SPIPlanPtr	plan;
	Jsonb	   *result;

	SPI_connect();
	if (ctid)
		plan = CACHED_PLAN(&t->plan_get_for_update,
						   psprintf("SELECT item, ctid FROM ONLY %s WHERE %s FOR UPDATE",
									t->qualified, key_match_sql(t)),
						   n, types);
	else
		plan = CACHED_PLAN(&t->plan_get,
						   psprintf("SELECT item FROM ONLY %s WHERE %s", t->qualified, key_match_sql(t)),
						   n, types);
	if (SPI_execute_plan(plan, values, NULL, ctid == NULL, 1) != SPI_OK_SELECT)
		st_internal_error("read by key failed");
	result = first_item(ctid);
	SPI_finish();
	return result;
}

/* The btree comparison proc of a key type for a strategy (<, <=, =, >=, >). */
static RegProcedure
key_cmp_proc(AvType type, StrategyNumber strategy)
{
	static const RegProcedure text_procs[] = {F_TEXT_LT, F_TEXT_LE, F_TEXTEQ, F_TEXT_GE, F_TEXT_GT};
	static const RegProcedure numeric_procs[] = {F_NUMERIC_LT, F_NUMERIC_LE, F_NUMERIC_EQ, F_NUMERIC_GE, F_NUMERIC_GT};
	static const RegProcedure bytea_procs[] = {F_BYTEALT, F_BYTEALE, F_BYTEAEQ, F_BYTEAGE, F_BYTEAGT};

	if (type == AV_N)
		return numeric_procs[strategy - 1];
	if (type == AV_B)
		return bytea_procs[strategy - 1];
	return text_procs[strategy - 1];
}

/* The btree value of a partition-key Datum: key_ix of its bytes, or the number. */
static Datum
partition_value(AvType type, Datum pk)
{
	bytea	   *raw;

	if (type == AV_N)
		return pk;
	raw = DatumGetByteaPP(pk);
	return PointerGetDatum(st_key_ix(VARDATA_ANY(raw), VARSIZE_ANY_EXHDR(raw)));
}

/* The key-index scan keys of a key: the partition key's btree value, the sort key. */
static int
key_scan_keys(StTable *t, const StKey *key, ScanKeyData *keys)
{
	int			nkeys = t->sk.name ? 2 : 1;

	ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, key_cmp_proc(t->pk.type, BTEqualStrategyNumber),
				partition_value(t->pk.type, key->pk));
	if (nkeys == 2)
	{
		ScanKeyInit(&keys[1], 2, BTEqualStrategyNumber, key_cmp_proc(t->sk.type, BTEqualStrategyNumber),
					key->sk);
		keys[1].sk_collation = t->sk.type == AV_S ? C_COLLATION_OID : InvalidOid;
	}
	return nkeys;
}

/* A copy of the item of the row in slot (NULL for a NULL item), and its ctid when asked. */
static Jsonb *
slot_item(StTable *t, TupleTableSlot *slot, ItemPointer ctid)
{
	bool		isnull;
	Datum		d = slot_getattr(slot, t->item_attnum, &isnull);

	if (isnull)
		return NULL;
	if (ctid)
		ItemPointerCopy(&slot->tts_tid, ctid);
	return DatumGetJsonbPCopy(d);
}

/*
 * May a read or write skip the executor and go straight to the relation?
 * Only when the executor would have nothing more to check: the user holds
 * the privileges (SELECT; and UPDATE for a locking read or a write), and no
 * row-level security applies.  Otherwise the SQL statement runs, and
 * Postgres applies both (raising the usual errors).
 */
bool
storage_direct_ok(Oid relid, AclMode mode)
{
	if (check_enable_rls(relid, InvalidOid, true) == RLS_ENABLED)
		return false;
	return pg_class_aclmask(relid, GetUserId(), mode, ACLMASK_ALL) == mode;
}

void
storage_require_privilege(StTable *t, AclMode mode)
{
	AclResult	res = pg_class_aclcheck(t->relid, GetUserId(), mode);

	if (res != ACLCHECK_OK)
		aclcheck_error(res, OBJECT_TABLE, t->relname);
}

/* Are the key index and the item column known (direct reads and writes need both)? */
static bool
key_layout_known(StTable *t)
{
	return OidIsValid(t->key_index) && t->item_attnum > 0;
}

/*
 * A read sees the transaction's own writes, also those made earlier in the
 * same SQL statement, whose snapshot was taken before them (DynamoDB: a
 * strongly consistent read reflects every write acknowledged before it).
 * The earlier writes are closed under a command id of their own
 * (CommandCounterIncrement: a no-op when nothing was written since the last
 * one), and the read runs under a copy of the statement's snapshot with the
 * current command id: it sees those writes and nothing else new, so the
 * statement's view of other transactions stays what it was, in every
 * isolation level; a VOLATILE function running its own query would see the
 * same (and, in READ COMMITTED, also what committed since).  A statement
 * that wrote nothing reads under its own snapshot, with no copy: the
 * common path costs one test.  Returns whether a snapshot was pushed;
 * end_read pops it (an error pops it with the (sub)transaction's abort).
 */
static bool
begin_read(void)
{
	CommandCounterIncrement();
	if (ActiveSnapshotSet())
	{
		if (GetActiveSnapshot()->curcid == GetCurrentCommandId(false))
			return false;
		PushCopiedSnapshot(GetActiveSnapshot());
	}
	else
		PushActiveSnapshot(GetTransactionSnapshot());
	UpdateActiveSnapshotCommandId();
	return true;
}

static void
end_read(bool pushed)
{
	if (pushed)
		PopActiveSnapshot();
}

/*
 * GetItem without SPI: one probe of the key index, under the statement's
 * snapshot (see begin_read).  A point read is the most frequent operation, and starting an
 * executor for it costs more than the probe; the plan would be this very
 * index scan anyway.  Falls back to the prepared statement when the index
 * is not known (it is looked up with the table's definition).
 */
static Jsonb *
probe_key_index(StTable *t, const StKey *key)
{
	Relation	rel = table_open(t->relid, AccessShareLock);
	Relation	idx = index_open(t->key_index, AccessShareLock);
	ScanKeyData keys[2];
	int			nkeys = key_scan_keys(t, key, keys);
	Snapshot	snapshot = GetActiveSnapshot();
	IndexScanDesc scan;
	TupleTableSlot *slot;
	Jsonb	   *result = NULL;

	scan = index_beginscan(rel, idx, snapshot, nkeys, 0);
	index_rescan(scan, keys, nkeys, NULL, 0);
	slot = table_slot_create(rel, NULL);
	if (index_getnext_slot(scan, ForwardScanDirection, slot))
		result = slot_item(t, slot, NULL);
	ExecDropSingleTupleTableSlot(slot);
	index_endscan(scan);
	/* the locks stay until the transaction ends, as the executor's would */
	index_close(idx, NoLock);
	table_close(rel, NoLock);
	return result;
}

Jsonb *
storage_get(StTable *t, const StKey *key)
{
	bool		pushed = begin_read();
	Jsonb	   *item;

	if (key_layout_known(t) && storage_direct_ok(t->relid, ACL_SELECT))
		item = probe_key_index(t, key);
	else
		item = read_by_key(t, key, NULL);
	end_read(pushed);
	return item;
}

/* Equality of two key values of one type (numbers numerically, others by bytes). */
static bool
key_datum_equal(AvType type, Datum a, Datum b)
{
	struct varlena *x;
	struct varlena *y;

	if (type == AV_N)
		return DatumGetBool(DirectFunctionCall2(numeric_eq, a, b));
	x = PG_DETOAST_DATUM_PACKED(a);
	y = PG_DETOAST_DATUM_PACKED(b);
	return VARSIZE_ANY_EXHDR(x) == VARSIZE_ANY_EXHDR(y) &&
		memcmp(VARDATA_ANY(x), VARDATA_ANY(y), VARSIZE_ANY_EXHDR(x)) == 0;
}

/* Does the row in slot still carry this key (a concurrent UPDATE may have changed it)? */
static bool
slot_has_key(StTable *t, TupleTableSlot *slot, const StKey *key)
{
	bool		isnull;
	Datum		pk = slot_getattr(slot, 1, &isnull);

	if (isnull || !key_datum_equal(t->pk.type, pk, key->pk))
		return false;
	if (t->sk.name)
	{
		Datum		sk = slot_getattr(slot, 2, &isnull);

		if (isnull || !key_datum_equal(t->sk.type, sk, key->sk))
			return false;
	}
	return true;
}

/*
 * SELECT ... FOR UPDATE without an executor: probe the key index under a
 * fresh snapshot (as a locking statement would take one, after the
 * transaction's own earlier writes), lock the row found, and in READ
 * COMMITTED follow it to its latest version, as FOR UPDATE does.  NULL when
 * there is no such item (or it was deleted, or its key changed meanwhile).
 * Without lock, the same read stops at the version found.
 */
static Jsonb *
read_latest(StTable *t, const StKey *key, ItemPointer ctid, bool lock)
{
	Relation	rel;
	Relation	idx;
	ScanKeyData keys[2];
	int			nkeys;
	Snapshot	snapshot;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	Jsonb	   *result = NULL;
	bool		found;

	CommandCounterIncrement();
	snapshot = RegisterSnapshot(GetTransactionSnapshot());
	rel = table_open(t->relid, lock ? RowShareLock : AccessShareLock);
	idx = index_open(t->key_index, AccessShareLock);
	nkeys = key_scan_keys(t, key, keys);
	scan = index_beginscan(rel, idx, snapshot, nkeys, 0);
	index_rescan(scan, keys, nkeys, NULL, 0);
	slot = table_slot_create(rel, NULL);
	found = index_getnext_slot(scan, ForwardScanDirection, slot);
	index_endscan(scan);
	if (found && !lock)
		result = slot_item(t, slot, ctid);
	else if (found)
	{
		ItemPointerData tid = slot->tts_tid;
		TM_FailureData tmfd;
		TM_Result	res;

		res = table_tuple_lock(rel, &tid, snapshot, slot, GetCurrentCommandId(true),
							   LockTupleExclusive, LockWaitBlock,
							   IsolationUsesXactSnapshot() ? 0 : TUPLE_LOCK_FLAG_FIND_LAST_VERSION,
							   &tmfd);
		switch (res)
		{
			case TM_Ok:
				if (slot_has_key(t, slot, key))
					result = slot_item(t, slot, ctid);
				break;
			case TM_Deleted:
				if (IsolationUsesXactSnapshot())
					st_serialization_failure("delete");
				break;
			case TM_Updated:
				st_serialization_failure("update");
				break;
			default:
				st_internal_error("unexpected result %d locking an item", (int) res);
		}
	}
	ExecDropSingleTupleTableSlot(slot);
	index_close(idx, NoLock);
	table_close(rel, NoLock);
	UnregisterSnapshot(snapshot);
	return result;
}

Jsonb *
storage_get_for_update(StTable *t, const StKey *key, ItemPointer ctid)
{
	if (key_layout_known(t) && storage_direct_ok(t->relid, ACL_SELECT | ACL_UPDATE))
		return read_latest(t, key, ctid, true);
	return read_by_key(t, key, ctid);
}

bool
storage_can_replace_unlocked(StTable *t)
{
	return key_layout_known(t) && storage_row_update_allowed(t->relid);
}

Jsonb *
storage_get_latest(StTable *t, const StKey *key, ItemPointer ctid)
{
	return read_latest(t, key, ctid, false);
}

bool
storage_replace_unlocked(StTable *t, ItemPointer ctid, Jsonb *item)
{
	return storage_row_update(t->relid, t->item_attnum, ctid, item, false);
}

/* INSERT ... ON CONFLICT DO UPDATE of the items of `source` ("VALUES ($1)", ...). */
static char *
upsert_sql(StTable *t, const char *source)
{
	return psprintf("INSERT INTO %s AS t (item) %s ON CONFLICT (%s%s) DO UPDATE SET item = excluded.item",
					t->qualified, source, partition_expr("pk", t->pk.type),
					t->sk.name ? ", sk" : "");
}

/*
 * One item as INSERT ... ON CONFLICT DO UPDATE: written directly where the
 * statement would do nothing more (storage_row_upsert_many, looking for the
 * key first as the statement does, so that a put over an existing item
 * leaves no dead speculative insertion behind).  Through SPI, each call
 * starts an executor, which prepares every GSI's partial-index predicate
 * again (copied, planned, compiled: about 45,000 instructions for the
 * type and length checks of one GSI) where the direct writer keeps them
 * compiled per backend (index_cache.c).
 */
void
storage_upsert(StTable *t, Jsonb *item)
{
	Oid			types[1] = {JSONBOID};
	Datum		values[1] = {PointerGetDatum(item)};
	SPIPlanPtr	plan;
	bool		probe = true;

	if (key_layout_known(t) &&
		storage_row_upsert_many(t->relid, t->key_index, t->item_attnum, &item, 1, &probe))
	{
		storage_respect_key_locks(t, &item, 1);
		return;
	}
	SPI_connect();
	plan = CACHED_PLAN(&t->plan_upsert, upsert_sql(t, "VALUES ($1)"), 1, types);
	if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_INSERT)
		st_internal_error("put failed");
	SPI_finish();
	storage_respect_key_locks(t, &item, 1);
}

/*
 * Many items as one INSERT ... ON CONFLICT DO UPDATE: written directly
 * (storage_row_upsert_many) where that statement would do nothing more, else as
 * INSERT ... SELECT unnest($1) ON CONFLICT DO UPDATE -- one executor start
 * for the lot, where a statement per item pays it per item.
 */
void
storage_upsert_many(StTable *t, Jsonb **items, int n, bool *probe)
{
	Oid			types[1] = {JSONBARRAYOID};
	Datum	   *elems;
	Datum		values[1];
	SPIPlanPtr	plan;

	if (n == 0)
		return;
	if (key_layout_known(t) &&
		storage_row_upsert_many(t->relid, t->key_index, t->item_attnum, items, n, probe))
	{
		storage_respect_key_locks(t, items, n);
		return;
	}

	elems = palloc(sizeof(Datum) * n);
	for (int i = 0; i < n; i++)
		elems[i] = PointerGetDatum(items[i]);
	values[0] = PointerGetDatum(construct_array(elems, n, JSONBOID, -1, false, TYPALIGN_INT));
	SPI_connect();
	plan = CACHED_PLAN(&t->plan_upsert_many, upsert_sql(t, "SELECT pg_catalog.unnest($1)"), 1, types);
	if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_INSERT)
		st_internal_error("put of many items failed");
	SPI_finish();
	storage_respect_key_locks(t, items, n);
}

bool
storage_insert(StTable *t, Jsonb *item, ItemPointer ctid)
{
	Oid			types[1] = {JSONBOID};
	Datum		values[1] = {PointerGetDatum(item)};
	SPIPlanPtr	plan;
	bool		inserted;

	/* directly where the statement would do nothing more (see storage_upsert) */
	if (key_layout_known(t))
	{
		StRowInsert r = storage_row_insert(t->relid, t->key_index, t->item_attnum, item, ctid);

		if (r != ST_ROW_NOT_DIRECT)
		{
			if (r == ST_ROW_INSERTED)
				storage_respect_key_locks(t, &item, 1);
			return r == ST_ROW_INSERTED;
		}
	}
	SPI_connect();
	plan = CACHED_PLAN(&t->plan_insert,
					psprintf("INSERT INTO %s (item) VALUES ($1) ON CONFLICT DO NOTHING RETURNING ctid",
							 t->qualified),
					1, types);
	if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_INSERT_RETURNING)
		st_internal_error("insert failed");
	inserted = SPI_processed == 1;
	if (inserted && ctid)
	{
		bool		isnull;

		ItemPointerCopy((ItemPointer) DatumGetPointer(SPI_getbinval(SPI_tuptable->vals[0],
																	SPI_tuptable->tupdesc, 1, &isnull)),
						ctid);
	}
	SPI_finish();
	if (inserted)
		storage_respect_key_locks(t, &item, 1);
	return inserted;
}

/*
 * Has the relation rewrite rules?  Then a statement on it may be replaced
 * (DO INSTEAD) or joined by others (DO ALSO), and what it reports is no
 * longer the row count of the statement written: it is not checked.
 */
static bool
has_rules(StTable *t)
{
	Relation	rel = table_open(t->relid, AccessShareLock);
	bool		rules = rel->rd_rules != NULL;

	table_close(rel, NoLock);
	return rules;
}

bool
storage_replace(StTable *t, ItemPointer ctid, Jsonb *item)
{
	Oid			types[2] = {TIDOID, JSONBOID};
	Datum		values[2] = {PointerGetDatum(ctid), PointerGetDatum(item)};
	SPIPlanPtr	plan;
	bool		replaced;

	if (t->item_attnum > 0 && storage_row_update_allowed(t->relid))
		return storage_row_update(t->relid, t->item_attnum, ctid, item, true);
	SPI_connect();
	/* ONLY: a ctid names a row of this relation, not of an inheritance child */
	plan = CACHED_PLAN(&t->plan_update,
					psprintf("UPDATE ONLY %s SET item = $2 WHERE ctid " OP("=") " $1", t->qualified),
					2, types);
	replaced = SPI_execute_plan(plan, values, NULL, false, 0) == SPI_OK_UPDATE && SPI_processed == 1;
	/* a rule may have replaced the UPDATE (DO INSTEAD) by something else, or by nothing */
	if (!replaced && !has_rules(t))
		st_internal_error("update of a locked item failed");
	SPI_finish();
	return replaced;
}

void
storage_delete_ctid(StTable *t, ItemPointer ctid)
{
	Oid			types[1] = {TIDOID};
	Datum		values[1] = {PointerGetDatum(ctid)};
	SPIPlanPtr	plan;

	if (t->item_attnum > 0 && storage_row_delete_allowed(t->relid))
	{
		storage_row_delete(t->relid, ctid, true);
		return;
	}
	SPI_connect();
	plan = CACHED_PLAN(&t->plan_delete,
					psprintf("DELETE FROM ONLY %s WHERE ctid " OP("=") " $1", t->qualified),
					1, types);
	if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_DELETE && !has_rules(t))
		st_internal_error("delete of a locked item failed");
	SPI_finish();
}

static Jsonb *
delete_under_rules(StTable *t, const StKey *key, bool want_old, bool *deleted)
{
	Oid			types[2];
	Datum		values[2];
	int			n = key_args(t, key, types, values);
	Jsonb	   *old = want_old ? read_by_key(t, key, NULL) : NULL;
	int			res;

	SPI_connect();
	res = SPI_execute_with_args(psprintf("DELETE FROM ONLY %s WHERE %s", t->qualified, key_match_sql(t)),
								n, types, values, NULL, false, 0);
	if (res < 0)
		st_internal_error("delete failed");
	*deleted = res == SPI_OK_DELETE && SPI_processed > 0;
	SPI_finish();
	return old;
}

Jsonb *
storage_delete(StTable *t, const StKey *key, bool want_old, bool *deleted)
{
	Oid			types[2];
	Datum		values[2];
	int			n = key_args(t, key, types, values);
	SPIPlanPtr	plan;
	Jsonb	   *result;

	/*
	 * Directly: the item's latest version read without a lock, deleted if it
	 * is still the latest (else read again, as a DELETE re-checks the row's
	 * new version in READ COMMITTED).
	 */
	if (key_layout_known(t) && storage_row_delete_allowed(t->relid))
	{
		for (int attempt = 0; attempt < ST_DIRECT_DELETE_TRIES; attempt++)
		{
			ItemPointerData ctid;
			Jsonb	   *old = read_latest(t, key, &ctid, false);

			if (old == NULL || storage_row_delete(t->relid, &ctid, false))
			{
				*deleted = old != NULL;
				return want_old ? old : NULL;
			}
		}
		/* still losing races to other writers: the statement waits its turn */
	}

	/*
	 * A DELETE ... RETURNING is refused on a relation with a DO INSTEAD rule
	 * (unless the rule has a RETURNING clause): the item is read first, and
	 * the DELETE, which the rules rewrite as they would a user's, returns
	 * nothing.
	 */
	if (has_rules(t))
		return delete_under_rules(t, key, want_old, deleted);

	SPI_connect();
	plan = CACHED_PLAN(&t->plan_delete_returning,
					psprintf("DELETE FROM ONLY %s WHERE %s RETURNING item", t->qualified, key_match_sql(t)),
					n, types);
	if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_DELETE_RETURNING)
		st_internal_error("delete failed");
	*deleted = SPI_processed > 0;
	result = want_old ? first_item(NULL) : NULL;
	SPI_finish();
	return result;
}

/* ---------- locks on keys that have no item ---------- */

/*
 * A transaction's condition on an item that does not exist (a
 * ConditionCheck, a Delete, a conditional Put or Update) must hold until the
 * transaction ends, and there is no row to lock.  The key's absence is held
 * by an advisory lock of the transaction on (relation, hash of the key),
 * taken after no item with the key was found and checked again once taken
 * (storage_lock_absent_key).  Nothing is written: no trigger fires, logical
 * decoding sees nothing, and neither INSERT privilege nor a row-security
 * policy is involved.
 *
 * Every stdesign write that may create an item respects those locks once it
 * has written (storage_respect_key_locks): its new index entry is in place,
 * so a transaction taking a key's lock afterwards finds it (and waits for
 * its writer); a transaction that took the lock before is waited for.  To
 * keep that cheap, a transaction holding absent-key locks on a relation also
 * holds a relation-wide flag lock (ShareLock), and a writer that finds no
 * other transaction holding the flag in a mode conflicting with
 * RowExclusiveLock knows that no key of the relation is held: one look into
 * the lock table per write or per batch of items, in shared mode and
 * without taking the flag, and key locks only while some transaction holds
 * absent keys of the relation.  Writers never hold a key
 * lock while waiting for anything else.
 *
 * Key locks show in pg_locks as advisory locks with objsubid
 * ST_LOCK_KEY_FIELD4 (classid: the relation, objid: the key's hash); the
 * flag has ST_LOCK_FLAG_FIELD4.  Advisory locks of SQL's
 * pg_advisory_lock functions have objsubid 1 or 2: they never collide.
 */
#define ST_LOCK_KEY_FIELD4	0x5354
#define ST_LOCK_FLAG_FIELD4 0x5355

/* The hash of a key as the key index compares it (numbers by value, others by bytes). */
static uint32
key_hash(StTable *t, const StKey *key)
{
	Datum		pk = partition_value(t->pk.type, key->pk);
	uint32		h;

	if (t->pk.type == AV_N)
		h = DatumGetUInt32(DirectFunctionCall1(hash_numeric, pk));
	else
	{
		bytea	   *b = DatumGetByteaPP(pk);

		h = hash_bytes((const unsigned char *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));
	}
	if (t->sk.name)
	{
		uint32		hs;

		if (t->sk.type == AV_N)
			hs = DatumGetUInt32(DirectFunctionCall1(hash_numeric, key->sk));
		else
		{
			struct varlena *b = PG_DETOAST_DATUM_PACKED(key->sk);

			hs = hash_bytes((const unsigned char *) VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b));
		}
		h = hash_combine(h, hs);
	}
	return h;
}

static void
key_lock_tag(LOCKTAG *tag, StTable *t, const StKey *key)
{
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, t->relid, key_hash(t, key), ST_LOCK_KEY_FIELD4);
}

static void
flag_lock_tag(LOCKTAG *tag, StTable *t)
{
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, t->relid, 0, ST_LOCK_FLAG_FIELD4);
}

typedef enum KeyState
{
	KEY_ABSENT,
	KEY_PRESENT,				/* committed, or written by this transaction */
	KEY_BEING_WRITTEN			/* by another transaction still running */
} KeyState;

/*
 * Is there a row with the key, as a unique index check sees rows (a dirty
 * snapshot: committed, or being inserted or deleted by a transaction still
 * running)?  For one being written, *xwait and *spec_token say whom to wait
 * for.
 */
static KeyState
key_state(StTable *t, const StKey *key, TransactionId *xwait, uint32 *spec_token)
{
	Relation	rel = table_open(t->relid, AccessShareLock);
	Relation	idx = index_open(t->key_index, AccessShareLock);
	SnapshotData dirty;
	ScanKeyData keys[2];
	int			nkeys = key_scan_keys(t, key, keys);
	IndexScanDesc scan;
	TupleTableSlot *slot;
	KeyState	state = KEY_ABSENT;

	InitDirtySnapshot(dirty);
	scan = index_beginscan(rel, idx, &dirty, nkeys, 0);
	index_rescan(scan, keys, nkeys, NULL, 0);
	slot = table_slot_create(rel, NULL);
	if (index_getnext_slot(scan, ForwardScanDirection, slot))
	{
		*xwait = TransactionIdIsValid(dirty.xmin) ? dirty.xmin : dirty.xmax;
		*spec_token = dirty.speculativeToken;
		state = TransactionIdIsValid(*xwait) ? KEY_BEING_WRITTEN : KEY_PRESENT;
	}
	ExecDropSingleTupleTableSlot(slot);
	index_endscan(scan);
	index_close(idx, NoLock);
	table_close(rel, NoLock);
	return state;
}

bool
storage_lock_absent_key(StTable *t, const StKey *key)
{
	LOCKTAG		flag;
	LOCKTAG		tag;

	/* the key index is what says whether a key exists */
	if (!OidIsValid(t->key_index))
		st_internal_error("the key index of table %s is missing", t->name);
	flag_lock_tag(&flag, t);
	key_lock_tag(&tag, t, key);
	(void) LockAcquire(&flag, ShareLock, false, false);
	for (;;)
	{
		TransactionId xwait = InvalidTransactionId;
		uint32		spec_token = 0;
		KeyState	state;

		CHECK_FOR_INTERRUPTS();
		(void) LockAcquire(&tag, ExclusiveLock, false, false);
		state = key_state(t, key, &xwait, &spec_token);
		if (state == KEY_ABSENT)
			return true;
		/* never wait for a writer while holding what it may wait for */
		LockRelease(&tag, ExclusiveLock, false);
		if (state == KEY_PRESENT)
		{
			/* committed since this transaction's snapshot was taken */
			if (IsolationUsesXactSnapshot())
				ereport(ERROR,
						(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
						 errmsg("could not serialize access due to concurrent insert")));
			return false;
		}
		if (spec_token)
			SpeculativeInsertionWait(xwait, spec_token);
		else
			XactLockTableWait(xwait, NULL, NULL, XLTW_None);
	}
}

void
storage_unlock_absent_key(StTable *t, const StKey *key)
{
	LOCKTAG		tag;

	key_lock_tag(&tag, t, key);
	LockRelease(&tag, ExclusiveLock, false);
}

/* The key of a stored item, as the set_keys trigger computes it. */
static void
stored_item_key(StTable *t, Jsonb *item, StKey *key)
{
	Trigger		trigger;
	char	   *args[4];
	Datum		values[2];

	memset(&trigger, 0, sizeof(trigger));
	args[0] = t->pk.name;
	args[1] = (char *) av_type_name(t->pk.type);
	args[2] = t->sk.name;
	args[3] = t->sk.name ? (char *) av_type_name(t->sk.type) : NULL;
	trigger.tgnargs = t->sk.name ? 4 : 2;
	trigger.tgargs = args;
	storage_set_keys_values(&trigger, item, values);
	key->pk = values[0];
	key->sk = t->sk.name ? values[1] : (Datum) 0;
}

void
storage_respect_key_locks(StTable *t, Jsonb **items, int n)
{
	LOCKTAG		flag;
	VirtualTransactionId *holders;
	bool		held;

	/*
	 * Whether another transaction holds the flag, read from the lock table
	 * under its partition's lock in shared mode, without entering a lock
	 * of our own: when none does, the lock's entry is not even there, and
	 * writers do not queue behind each other on the partition's lock.  It
	 * orders with a transaction taking the flag as taking and releasing the
	 * flag ourselves would: one taking it after this look finds our index
	 * entry, already in place, when it checks its key.
	 */
	flag_lock_tag(&flag, t);
	holders = GetLockConflicts(&flag, RowExclusiveLock, NULL);
	held = VirtualTransactionIdIsValid(holders[0]);
	pfree(holders);
	if (!held)
		return;
	/* some transaction holds absent keys of the relation: wait for those of these items */
	for (int i = 0; i < n; i++)
	{
		StKey		key;
		LOCKTAG		tag;

		stored_item_key(t, items[i], &key);
		key_lock_tag(&tag, t, &key);
		(void) LockAcquire(&tag, ShareLock, false, false);
		LockRelease(&tag, ShareLock, false);
	}
}

/* ---------- queries ---------- */

static const char *
bound_op(StBoundKind kind, bool lower)
{
	if (kind == ST_BOUND_INCLUSIVE)
		return lower ? OP(">=") : OP("<=");
	return lower ? OP(">") : OP("<");
}

/* The key param expression of a key type: key_ix for S and B. */
static const char *
param_key(AvType type, const char *param)
{
	return type == AV_N ? param : psprintf("stdesign.key_ix(%s)", param);
}

/*
 * The order of a key space after its partition key, as (column, parameter)
 * pairs: the sort key, and for an index the table's key.  Parameters name
 * the StPosition members: $5 index sort key, $6 table partition key, $7
 * table sort key (query numbering; scans shift them, see scan_sql).
 */
typedef struct OrderCols
{
	int			n;
	char	   *col[4];
	char	   *param[4];
} OrderCols;

static void
order_cols(StTable *t, StIndex *ix, const char *isk_param, const char *tpk_param,
		   const char *tsk_param, OrderCols *oc)
{
	oc->n = 0;
	if (ix)
	{
		if (ix->sk.name)
		{
			oc->col[oc->n] = index_sort_expr(&ix->sk);
			oc->param[oc->n++] = pstrdup(isk_param);
		}
		oc->col[oc->n] = partition_expr("pk", t->pk.type);
		oc->param[oc->n++] = (char *) param_key(t->pk.type, tpk_param);
	}
	if (t->sk.name)
	{
		oc->col[oc->n] = "sk";
		oc->param[oc->n++] = pstrdup(tsk_param);
	}
}

/* "AND (c1, c2) > (p1, p2)": after a position in the given direction. */
static void
append_after(StringInfo sql, const OrderCols *oc, int from, bool backward)
{
	if (oc->n <= from)
		return;
	appendStringInfoString(sql, " AND (");
	for (int i = from; i < oc->n; i++)
		appendStringInfo(sql, "%s%s", i > from ? ", " : "", oc->col[i]);
	appendStringInfo(sql, ") %s (", backward ? OP("<") : OP(">"));
	for (int i = from; i < oc->n; i++)
		appendStringInfo(sql, "%s%s", i > from ? ", " : "", oc->param[i]);
	appendStringInfoChar(sql, ')');
}

static void
append_order_by(StringInfo sql, const char *first, const OrderCols *oc, bool backward)
{
	const char *dir = backward ? " DESC" : "";

	appendStringInfoString(sql, " ORDER BY ");
	if (first)
		appendStringInfo(sql, "%s%s%s", first, dir, oc->n ? ", " : "");
	for (int i = 0; i < oc->n; i++)
		appendStringInfo(sql, "%s%s%s", i ? ", " : "", oc->col[i], dir);
}

/* The SELECT of one query variant over the table or an index. */
char *
storage_query_sql(StTable *t, StIndex *ix, const StQueryRange *r)
{
	StringInfoData sql;
	const StKeyDef *pk = ix ? &ix->pk : &t->pk;
	const StKeyDef *sk = ix ? &ix->sk : &t->sk;
	char	   *pexpr;
	char	   *sexpr = NULL;
	OrderCols	oc;

	if (ix)
	{
		pexpr = partition_expr(attr_value_sql(pk->name, pk->type), pk->type);
		if (sk->name)
			sexpr = index_sort_expr(sk);
	}
	else
	{
		pexpr = partition_expr("pk", pk->type);
		if (sk->name)
			sexpr = "sk";
	}
	order_cols(t, ix, "$5", "$6", "$7", &oc);

	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT item FROM ONLY %s WHERE %s " OP("=") " %s", t->qualified, pexpr,
					 param_key(pk->type, "$1"));
	if (ix)
		appendStringInfo(&sql, " AND %s", storage_index_predicate(pk, sk));
	if (sexpr && r->lower_kind != ST_BOUND_NONE)
		appendStringInfo(&sql, " AND %s %s $2", sexpr, bound_op(r->lower_kind, true));
	if (sexpr && r->upper_kind != ST_BOUND_NONE)
		appendStringInfo(&sql, " AND %s %s $3", sexpr, bound_op(r->upper_kind, false));
	if (r->start)
		append_after(&sql, &oc, 0, r->backward);
	if (oc.n > 0)
		append_order_by(&sql, NULL, &oc, r->backward);
	appendStringInfoString(&sql, " LIMIT $4");
	return sql.data;
}

/*
 * Run a prepared read-only plan through a cursor, 256 rows at a time, and
 * give each row's item to callback in a per-row context of the caller's (so
 * that a long result never piles up in memory).  Called inside SPI.
 */
static void
run_cursor(SPIPlanPtr plan, Datum *values, const char *nulls, MemoryContext caller,
		   StRowCallback callback, void *arg)
{
	MemoryContext rowcxt = AllocSetContextCreate(caller, "stdesign row", ALLOCSET_DEFAULT_SIZES);
	Portal		portal = SPI_cursor_open(NULL, plan, values, nulls, true);
	bool		go_on = true;

	while (go_on)
	{
		SPI_cursor_fetch(portal, true, 256);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed && go_on; i++)
		{
			bool		isnull;
			Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
			MemoryContext spi_cxt = MemoryContextSwitchTo(rowcxt);

			go_on = callback(DatumGetJsonbP(d), arg);
			MemoryContextSwitchTo(spi_cxt);
			MemoryContextReset(rowcxt);
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	MemoryContextDelete(rowcxt);
}

static Oid
key_param_type(const StKeyDef *k)
{
	return storage_key_typoid(k->name ? k->type : AV_S);
}

static void storage_query_spi(StTable *t, StIndex *ix, const StQueryRange *r,
							  StRowCallback callback, void *arg);

/*
 * A query without a start position, straight on the btree of its key space:
 * the partition key's equality and the sort key's bounds as scan keys, in
 * either direction, under the statement's snapshot.  It is the plan the
 * prepared statement would run, without an executor start per call.
 */
static void
scan_key_space(StTable *t, StIndex *ix, const StQueryRange *r,
			   StRowCallback callback, void *arg)
{
	const StKeyDef *pk = ix ? &ix->pk : &t->pk;
	const StKeyDef *sk = ix ? &ix->sk : &t->sk;
	Relation	rel = table_open(t->relid, AccessShareLock);
	Relation	idx = index_open(ix ? ix->index_oid : t->key_index, AccessShareLock);
	Snapshot	snapshot = GetActiveSnapshot();
	ScanKeyData keys[3];
	int			nkeys = 0;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	MemoryContext caller = CurrentMemoryContext;
	MemoryContext rowcxt = AllocSetContextCreate(caller, "stdesign row", ALLOCSET_DEFAULT_SIZES);
	int64		n = 0;

	ScanKeyInit(&keys[nkeys++], 1, BTEqualStrategyNumber, key_cmp_proc(pk->type, BTEqualStrategyNumber),
				partition_value(pk->type, r->pk));
	if (sk->name && r->lower_kind != ST_BOUND_NONE)
	{
		StrategyNumber st = r->lower_kind == ST_BOUND_INCLUSIVE ? BTGreaterEqualStrategyNumber : BTGreaterStrategyNumber;

		ScanKeyInit(&keys[nkeys], 2, st, key_cmp_proc(sk->type, st), r->lower);
		keys[nkeys++].sk_collation = sk->type == AV_S ? C_COLLATION_OID : InvalidOid;
	}
	if (sk->name && r->upper_kind != ST_BOUND_NONE)
	{
		StrategyNumber st = r->upper_kind == ST_BOUND_INCLUSIVE ? BTLessEqualStrategyNumber : BTLessStrategyNumber;

		ScanKeyInit(&keys[nkeys], 2, st, key_cmp_proc(sk->type, st), r->upper);
		keys[nkeys++].sk_collation = sk->type == AV_S ? C_COLLATION_OID : InvalidOid;
	}

	scan = index_beginscan(rel, idx, snapshot, nkeys, 0);
	index_rescan(scan, keys, nkeys, NULL, 0);
	slot = table_slot_create(rel, NULL);
	while ((r->limit < 0 || n < r->limit) &&
		   index_getnext_slot(scan, r->backward ? BackwardScanDirection : ForwardScanDirection, slot))
	{
		bool		isnull;
		Datum		d = slot_getattr(slot, t->item_attnum, &isnull);
		bool		go_on;

		n++;
		if (isnull)
			continue;
		MemoryContextSwitchTo(rowcxt);
		go_on = callback(DatumGetJsonbP(d), arg);
		MemoryContextSwitchTo(caller);
		MemoryContextReset(rowcxt);
		if (!go_on)
			break;
	}
	ExecDropSingleTupleTableSlot(slot);
	index_endscan(scan);
	index_close(idx, NoLock);
	table_close(rel, NoLock);
	MemoryContextDelete(rowcxt);
}

void
storage_query(StTable *t, StIndex *ix, const StQueryRange *r,
			  StRowCallback callback, void *arg)
{
	bool		pushed = begin_read();

	if (r->start == NULL && OidIsValid(ix ? ix->index_oid : t->key_index) && t->item_attnum > 0 &&
		storage_direct_ok(t->relid, ACL_SELECT))
		scan_key_space(t, ix, r, callback, arg);
	else
		storage_query_spi(t, ix, r, callback, arg);
	end_read(pushed);
}

static void
storage_query_spi(StTable *t, StIndex *ix, const StQueryRange *r,
			  StRowCallback callback, void *arg)
{
	const StKeyDef *pk = ix ? &ix->pk : &t->pk;
	const StKeyDef *sk = ix ? &ix->sk : &t->sk;
	StPlanSet  *ps = ix ? &ix->plans : &t->plans;
	Oid			types[7];
	Datum		values[7];
	char		nulls[7] = {' ', 'n', 'n', 'n', 'n', 'n', 'n'};
	SPIPlanPtr	plan;
	MemoryContext caller = CurrentMemoryContext;

	types[0] = storage_key_typoid(pk->type);
	types[1] = types[2] = key_param_type(sk);
	types[3] = INT8OID;
	types[4] = ix ? key_param_type(&ix->sk) : TEXTOID;
	types[5] = storage_key_typoid(t->pk.type);
	types[6] = key_param_type(&t->sk);
	memset(values, 0, sizeof(values));
	values[0] = r->pk;
	if (r->lower_kind != ST_BOUND_NONE)
	{
		values[1] = r->lower;
		nulls[1] = ' ';
	}
	if (r->upper_kind != ST_BOUND_NONE)
	{
		values[2] = r->upper;
		nulls[2] = ' ';
	}
	if (r->limit >= 0)
	{
		values[3] = Int64GetDatum(r->limit);
		nulls[3] = ' ';
	}
	if (r->start)
	{
		/* only the members the key space has: the others stay NULL */
		values[4] = r->start->index_sk;
		values[5] = r->start->table_pk;
		values[6] = r->start->table_sk;
		nulls[4] = (ix && ix->sk.name) ? ' ' : 'n';
		nulls[5] = ' ';
		nulls[6] = t->sk.name ? ' ' : 'n';
	}

	SPI_connect();
	plan = CACHED_PLAN(&ps->query[r->lower_kind][r->upper_kind][r->backward ? 1 : 0][r->start ? 1 : 0],
					storage_query_sql(t, ix, r), 7, types);
	run_cursor(plan, values, nulls, caller, callback, arg);
	SPI_finish();
}

/*
 * The SELECT of a scan over the table or an index, in key order.  Params:
 * $1 limit, $2 index partition key, $3 index sort key, $4 table partition
 * key, $5 table sort key (the position to resume after), $6 segment, $7
 * total segments.  Segments split the items by a hash of the table's
 * partition key, so they are disjoint and together complete.
 */
static char *
scan_sql(StTable *t, StIndex *ix, bool from_start, bool segmented)
{
	StringInfoData sql;
	OrderCols	rest;
	OrderCols	pos;
	char	   *first;
	const char *cond = "WHERE";

	order_cols(t, ix, "$3", "$4", "$5", &rest);
	first = ix ? partition_expr(attr_value_sql(ix->pk.name, ix->pk.type), ix->pk.type)
		: partition_expr("pk", t->pk.type);

	/* the whole position: partition key first, then the order after it */
	pos.n = 0;
	pos.col[pos.n] = first;
	pos.param[pos.n++] = (char *) (ix ? param_key(ix->pk.type, "$2") : param_key(t->pk.type, "$4"));
	for (int i = 0; i < rest.n; i++)
	{
		pos.col[pos.n] = rest.col[i];
		pos.param[pos.n++] = rest.param[i];
	}

	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT item FROM ONLY %s", t->qualified);
	if (ix)
	{
		appendStringInfo(&sql, " WHERE %s", storage_index_predicate(&ix->pk, &ix->sk));
		cond = "AND";
	}
	if (from_start)
	{
		appendStringInfo(&sql, " %s TRUE", cond);
		append_after(&sql, &pos, 0, false);
		cond = "AND";
	}
	if (segmented)
		appendStringInfo(&sql, " %s (pg_catalog.hashtext(pk::pg_catalog.text) " OP("&")
						 " 2147483647) " OP("%%") " $7 " OP("=") " $6", cond);
	append_order_by(&sql, first, &rest, false);
	appendStringInfoString(&sql, " LIMIT $1");
	return sql.data;
}

int
storage_segment_of(StTable *t, Datum pk, int total_segments)
{
	Oid			out;
	bool		varlena;
	char	   *text;
	int32		hash;

	/* the scan's own rule: (hashtext(pk::text) & 2147483647) % total */
	getTypeOutputInfo(storage_key_typoid(t->pk.type), &out, &varlena);
	text = OidOutputFunctionCall(out, pk);
	hash = DatumGetInt32(DirectFunctionCall1Coll(hashtext, C_COLLATION_OID,
												 CStringGetTextDatum(text)));
	return (hash & 2147483647) % Max(1, total_segments);
}

void
storage_scan(StTable *t, StIndex *ix, const StScanRange *r, StRowCallback callback, void *arg)
{
	StPlanSet  *ps = ix ? &ix->plans : &t->plans;
	Oid			types[7];
	Datum		values[7];
	char		nulls[7] = {'n', 'n', 'n', 'n', 'n', 'n', 'n'};
	MemoryContext caller = CurrentMemoryContext;
	bool		segmented = r->total_segments > 1;
	SPIPlanPtr	plan;
	bool		pushed;

	types[0] = INT8OID;
	types[1] = ix ? storage_key_typoid(ix->pk.type) : TEXTOID;
	types[2] = ix ? key_param_type(&ix->sk) : TEXTOID;
	types[3] = storage_key_typoid(t->pk.type);
	types[4] = key_param_type(&t->sk);
	types[5] = types[6] = INT4OID;
	memset(values, 0, sizeof(values));
	if (r->limit >= 0)
	{
		values[0] = Int64GetDatum(r->limit);
		nulls[0] = ' ';
	}
	if (r->start)
	{
		/* only the members the key space has: the others stay NULL */
		values[1] = r->start->index_pk;
		values[2] = r->start->index_sk;
		values[3] = r->start->table_pk;
		values[4] = r->start->table_sk;
		nulls[1] = ix ? ' ' : 'n';
		nulls[2] = (ix && ix->sk.name) ? ' ' : 'n';
		nulls[3] = ' ';
		nulls[4] = t->sk.name ? ' ' : 'n';
	}
	values[5] = Int32GetDatum(r->segment);
	values[6] = Int32GetDatum(Max(1, r->total_segments));
	nulls[5] = nulls[6] = ' ';

	pushed = begin_read();
	SPI_connect();
	plan = CACHED_PLAN(&ps->scan[r->start ? 1 : 0][segmented ? 1 : 0],
					scan_sql(t, ix, r->start != NULL, segmented), 7, types);
	run_cursor(plan, values, nulls, caller, callback, arg);
	SPI_finish();
	end_read(pushed);
}
