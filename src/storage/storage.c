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
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/acl.h"
#include "utils/rls.h"
#include "miscadmin.h"

#include "catalog/pg_proc.h"
#include "utils/syscache.h"

#include "row_write.h"
#include "st_layout.h"
#include "st_storage.h"

/* Reads and deletes of an item that other writers keep changing, before the statement runs. */
#define ST_DIRECT_DELETE_TRIES 3

/* ---------- SQL text of key expressions ---------- */

/* The key value of attribute `name` read from item, typed per the key type. */
static char *
attr_value_sql(const char *name, AvType type)
{
	char	   *lit = quote_literal_cstr(name);

	switch (type)
	{
		case AV_N:
			return psprintf("(((item -> %s) ->> 'N')::numeric)", lit);
		case AV_B:
			return psprintf("decode((item -> %s) ->> 'B', 'base64')", lit);
		default:
			return psprintf("((item -> %s) ->> 'S')", lit);
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
		return psprintf("(%s COLLATE \"C\")", v);
	return v;
}

/* The partial-index predicate of an index: its key attributes are present. */
char *
storage_index_predicate(const StKeyDef *pk, const StKeyDef *sk)
{
	if (sk->name)
		return psprintf("(item ? %s AND item ? %s)",
						quote_literal_cstr(pk->name), quote_literal_cstr(sk->name));
	return psprintf("(item ? %s)", quote_literal_cstr(pk->name));
}

Oid
storage_key_typoid(AvType type)
{
	switch (type)
	{
		case AV_N:
			return NUMERICOID;
		case AV_B:
			return BYTEAOID;
		default:
			return TEXTOID;
	}
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

/* How deep this backend is in DDL statements of stdesign's own (see storage_in_own_ddl). */
static int	own_ddl_depth = 0;

bool
storage_in_own_ddl(void)
{
	return own_ddl_depth > 0;
}

/*
 * Run one of stdesign's own DDL statements.  The layout guard (the DDL
 * event trigger) lets these through: they build or drop a layout a piece
 * at a time.
 */
static void
exec_ddl(const char *sql)
{
	own_ddl_depth++;
	PG_TRY();
	{
		SPI_connect();
		if (SPI_execute(sql, false, 0) < 0)
			elog(ERROR, "stdesign: could not execute: %s", sql);
		SPI_finish();
	}
	PG_FINALLY();
	{
		own_ddl_depth--;
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
	Oid			fn = storage_set_keys_oid();
	HeapTuple	tup;
	Oid			owner;
	Oid			saved_user;
	int			saved_sec;

	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "stdesign: function stdesign.set_keys() is missing");
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
			return "numeric";
		case AV_B:
			return "bytea";
		default:
			return "text COLLATE \"C\"";
	}
}

/*
 * The relation of a new table: pk, sk and item, the key columns kept equal to
 * the item's key attributes by the stdesign.set_keys() trigger (see
 * key_trigger.c), and the unique key index.
 */
void
storage_create_relation(const char *relname, const StKeyDef *pk, const StKeyDef *sk)
{
	StringInfoData sql;
	char	   *rel = qualified(relname);

	initStringInfo(&sql);
	appendStringInfo(&sql, "CREATE TABLE %s (pk %s NOT NULL", rel, column_type_sql(pk->type));
	if (sk->name)
		appendStringInfo(&sql, ", sk %s NOT NULL", column_type_sql(sk->type));
	appendStringInfoString(&sql, ", item jsonb NOT NULL) USING stdesign");
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
					 quote_identifier(storage_key_index_name(relname)), rel,
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
		elog(ERROR, "stdesign: could not prepare \"%s\": %s", sql,
			 SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "stdesign: could not keep plan");
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
		return psprintf("%s = %s AND sk = $2", partition_expr("pk", t->pk.type), param);
	return psprintf("%s = %s", partition_expr("pk", t->pk.type), param);
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
						   psprintf("SELECT item, ctid FROM %s WHERE %s FOR UPDATE",
									t->qualified, key_match_sql(t)),
						   n, types);
	else
		plan = CACHED_PLAN(&t->plan_get,
						   psprintf("SELECT item FROM %s WHERE %s", t->qualified, key_match_sql(t)),
						   n, types);
	if (SPI_execute_plan(plan, values, NULL, ctid == NULL, 1) != SPI_OK_SELECT)
		elog(ERROR, "stdesign: read by key failed");
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

/* Are the key index and the item column known (direct reads and writes need both)? */
static bool
key_layout_known(StTable *t)
{
	return OidIsValid(t->key_index) && t->item_attnum > 0;
}

/*
 * GetItem without SPI: one probe of the key index, under the statement's
 * snapshot.  A point read is the most frequent operation, and starting an
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
	Snapshot	snapshot = ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot();
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
	if (key_layout_known(t) && storage_direct_ok(t->relid, ACL_SELECT))
		return probe_key_index(t, key);
	return read_by_key(t, key, NULL);
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
					ereport(ERROR,
							(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
							 errmsg("could not serialize access due to concurrent delete")));
				break;
			case TM_Updated:
				ereport(ERROR,
						(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
						 errmsg("could not serialize access due to concurrent update")));
				break;
			default:
				elog(ERROR, "stdesign: unexpected result %d locking an item", (int) res);
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
	return key_layout_known(t) && row_update_allowed(t->relid);
}

Jsonb *
storage_get_latest(StTable *t, const StKey *key, ItemPointer ctid)
{
	return read_latest(t, key, ctid, false);
}

bool
storage_replace_unlocked(StTable *t, ItemPointer ctid, Jsonb *item)
{
	return row_update(t->relid, t->item_attnum, ctid, item, false);
}

/* INSERT ... ON CONFLICT DO UPDATE of the items of `source` ("VALUES ($1)", ...). */
static char *
upsert_sql(StTable *t, const char *source)
{
	return psprintf("INSERT INTO %s AS t (item) %s ON CONFLICT (%s%s) DO UPDATE SET item = excluded.item",
					t->qualified, source, partition_expr("pk", t->pk.type),
					t->sk.name ? ", sk" : "");
}

void
storage_upsert(StTable *t, Jsonb *item)
{
	Oid			types[1] = {JSONBOID};
	Datum		values[1] = {PointerGetDatum(item)};
	SPIPlanPtr	plan;

	SPI_connect();
	plan = CACHED_PLAN(&t->plan_upsert, upsert_sql(t, "VALUES ($1)"), 1, types);
	if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "stdesign: put failed");
	SPI_finish();
}

/*
 * Many items as one INSERT ... ON CONFLICT DO UPDATE: written directly
 * (row_upsert_many) where that statement would do nothing more, else as
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
		row_upsert_many(t->relid, t->key_index, t->item_attnum, items, n, probe))
		return;

	elems = palloc(sizeof(Datum) * n);
	for (int i = 0; i < n; i++)
		elems[i] = PointerGetDatum(items[i]);
	values[0] = PointerGetDatum(construct_array(elems, n, JSONBOID, -1, false, TYPALIGN_INT));
	SPI_connect();
	plan = CACHED_PLAN(&t->plan_upsert_many, upsert_sql(t, "SELECT unnest($1)"), 1, types);
	if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "stdesign: put of many items failed");
	SPI_finish();
}

bool
storage_insert(StTable *t, Jsonb *item, ItemPointer ctid)
{
	Oid			types[1] = {JSONBOID};
	Datum		values[1] = {PointerGetDatum(item)};
	SPIPlanPtr	plan;
	bool		inserted;

	SPI_connect();
	plan = CACHED_PLAN(&t->plan_insert,
					psprintf("INSERT INTO %s (item) VALUES ($1) ON CONFLICT DO NOTHING RETURNING ctid",
							 t->qualified),
					1, types);
	if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_INSERT_RETURNING)
		elog(ERROR, "stdesign: insert failed");
	inserted = SPI_processed == 1;
	if (inserted && ctid)
	{
		bool		isnull;

		ItemPointerCopy((ItemPointer) DatumGetPointer(SPI_getbinval(SPI_tuptable->vals[0],
																	SPI_tuptable->tupdesc, 1, &isnull)),
						ctid);
	}
	SPI_finish();
	return inserted;
}

void
storage_replace(StTable *t, ItemPointer ctid, Jsonb *item)
{
	Oid			types[2] = {TIDOID, JSONBOID};
	Datum		values[2] = {PointerGetDatum(ctid), PointerGetDatum(item)};
	SPIPlanPtr	plan;

	if (t->item_attnum > 0 && row_update_allowed(t->relid))
	{
		row_update(t->relid, t->item_attnum, ctid, item, true);
		return;
	}
	SPI_connect();
	plan = CACHED_PLAN(&t->plan_update,
					psprintf("UPDATE %s SET item = $2 WHERE ctid = $1", t->qualified),
					2, types);
	if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_UPDATE || SPI_processed != 1)
		elog(ERROR, "stdesign: update of a locked item failed");
	SPI_finish();
}

void
storage_delete_ctid(StTable *t, ItemPointer ctid)
{
	Oid			types[1] = {TIDOID};
	Datum		values[1] = {PointerGetDatum(ctid)};
	SPIPlanPtr	plan;

	if (t->item_attnum > 0 && row_delete_allowed(t->relid))
	{
		row_delete(t->relid, ctid, true);
		return;
	}
	SPI_connect();
	plan = CACHED_PLAN(&t->plan_delete,
					psprintf("DELETE FROM %s WHERE ctid = $1", t->qualified),
					1, types);
	if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_DELETE)
		elog(ERROR, "stdesign: delete of a locked item failed");
	SPI_finish();
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
	if (key_layout_known(t) && row_delete_allowed(t->relid))
	{
		for (int attempt = 0; attempt < ST_DIRECT_DELETE_TRIES; attempt++)
		{
			ItemPointerData ctid;
			Jsonb	   *old = read_latest(t, key, &ctid, false);

			if (old == NULL || row_delete(t->relid, &ctid, false))
			{
				*deleted = old != NULL;
				return want_old ? old : NULL;
			}
		}
		/* still losing races to other writers: the statement waits its turn */
	}

	SPI_connect();
	plan = CACHED_PLAN(&t->plan_delete_returning,
					psprintf("DELETE FROM %s WHERE %s RETURNING item", t->qualified, key_match_sql(t)),
					n, types);
	if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_DELETE_RETURNING)
		elog(ERROR, "stdesign: delete failed");
	*deleted = SPI_processed > 0;
	result = want_old ? first_item(NULL) : NULL;
	SPI_finish();
	return result;
}

/* ---------- queries ---------- */

static const char *
bound_op(StBoundKind kind, bool lower)
{
	if (kind == ST_BOUND_INCLUSIVE)
		return lower ? ">=" : "<=";
	return lower ? ">" : "<";
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
	appendStringInfo(sql, ") %s (", backward ? "<" : ">");
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
	appendStringInfo(&sql, "SELECT item FROM %s WHERE %s = %s", t->qualified, pexpr,
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
	Snapshot	snapshot = ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot();
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
	if (r->start == NULL && OidIsValid(ix ? ix->index_oid : t->key_index) && t->item_attnum > 0 &&
		storage_direct_ok(t->relid, ACL_SELECT))
		scan_key_space(t, ix, r, callback, arg);
	else
		storage_query_spi(t, ix, r, callback, arg);
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
	appendStringInfo(&sql, "SELECT item FROM %s", t->qualified);
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
		appendStringInfo(&sql, " %s (hashtext(pk::text) & 2147483647) %% $7 = $6", cond);
	append_order_by(&sql, first, &rest, false);
	appendStringInfoString(&sql, " LIMIT $1");
	return sql.data;
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

	SPI_connect();
	plan = CACHED_PLAN(&ps->scan[r->start ? 1 : 0][segmented ? 1 : 0],
					scan_sql(t, ix, r->start != NULL, segmented), 7, types);
	run_cursor(plan, values, nulls, caller, callback, arg);
	SPI_finish();
}
