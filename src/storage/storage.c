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
#include "catalog/pg_am_d.h"
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
#include "commands/trigger.h"
#include "utils/guc.h"
#include "utils/plancache.h"

#include "catalog/dependency.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/syscache.h"

#include "catalog/st_layout.h"
#include "item/av_jsonb.h"
#include "common/st_common.h"
#include "item/av.h"
#include "key_trigger.h"
#include "row_write.h"
#include "stream_capture.h"
#include "st_storage.h"

/* Reads of a distributed table's shard on this node by the direct paths (storage_shard_direct_reads). */
static int64 shard_direct_reads = 0;

/* A distributed table's shard on this node, to read directly (see "distributed tables"). */
static StTable *local_shard(StTable *t, Datum pk, AclMode mode);

/* A read sent whole to the node holding the partition's shard (see "delegated reads"). */
static bool delegate_get(StTable *t, const StKey *key, Jsonb **item);
static bool delegate_query(StTable *t, const StQueryRange *r, StRowCallback callback, void *arg);
static void create_delegated_reads(StTable *t);
static Oid	key_param_type(const StKeyDef *k);

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

/* The key value of attribute `name` read from src (a typed item), typed per the key type. */
static char *
attr_value_sql_src(const char *src, const char *name, AvType type)
{
	char	   *lit = quote_literal_cstr(name);

	switch (type)
	{
		case AV_N:
			return psprintf("(((%s " OP("->") " %s) " OP("->>") " 'N')::pg_catalog.numeric)", src, lit);
		case AV_B:
			return psprintf("pg_catalog.decode((%s " OP("->") " %s) " OP("->>") " 'B', 'base64')", src, lit);
		default:
			return psprintf("((%s " OP("->") " %s) " OP("->>") " 'S')", src, lit);
	}
}

/* The same, from the item column. */
static char *
attr_value_sql(const char *name, AvType type)
{
	return attr_value_sql_src("item", name, type);
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
index_sort_expr_src(const char *src, const StKeyDef *sk)
{
	char	   *v = attr_value_sql_src(src, sk->name, sk->type);

	if (sk->type == AV_S)
		return psprintf("(%s COLLATE pg_catalog.\"C\")", v);
	return v;
}

static char *
index_sort_expr(const StKeyDef *sk)
{
	return index_sort_expr_src("item", sk);
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

/*
 * A multi-attribute GSI key (catalog.h): the predicate of its partial
 * btree is every key attribute there as the index can hold it, and the
 * RANGE attributes' strings and binaries at most INDEX_SK_MAX_BYTES
 * together ("Aggregated size of all range keys", DynamoDB's words for the
 * sort key's limit), which keeps the largest entry under a btree page's
 * limit.  For one HASH and at most one RANGE attribute it is
 * storage_index_predicate's, word for word.
 */
char *
storage_index_keys_predicate(int npk, int nsk, const StKeyDef *keys)
{
	StringInfoData sql;
	StringInfoData sum;

	if (npk <= 1 && nsk <= 1)
	{
		StKeyDef	none = {NULL, AV_S};

		return storage_index_predicate(&keys[0], nsk ? &keys[1] : &none);
	}
	initStringInfo(&sql);
	initStringInfo(&sum);
	appendStringInfoChar(&sql, '(');
	for (int i = 0; i < npk + nsk; i++)
	{
		appendStringInfo(&sql, "%s%s", i ? " AND " : "",
						 index_key_ok_sql(&keys[i], i < npk ? INDEX_PK_MAX_BYTES : INDEX_SK_MAX_BYTES));
		if (i >= npk && keys[i].type != AV_N)
			appendStringInfo(&sum, "%spg_catalog.octet_length(%s)", sum.len ? " " OP("+") " " : "",
							 attr_value_sql(keys[i].name, keys[i].type));
	}
	if (sum.len > 0)
		appendStringInfo(&sql, " AND (%s) " OP("<=") " %d", sum.data, INDEX_SK_MAX_BYTES);
	appendStringInfoChar(&sql, ')');
	return sql.data;
}

/*
 * The partition expression of a multi-attribute GSI key: one btree column
 * for all its HASH attributes, stdesign.key_ix of their values as text
 * joined by commas (a string quoted as a literal, a number without
 * trailing zeros, a binary in hex: equal values, and only they, give
 * equal text), read from src, the item or a query's jsonb of the values.
 * Equality is all a partition key is compared by; one column of at most
 * 288 bytes leaves the sort-key attributes their room in the entry.
 */
static char *
multi_partition_expr(int npk, const StKeyDef *keys, const char *src)
{
	StringInfoData sql;

	initStringInfo(&sql);
	appendStringInfoString(&sql, "stdesign.key_ix(");
	for (int i = 0; i < npk; i++)
	{
		char	   *lit = quote_literal_cstr(keys[i].name);

		if (i > 0)
			appendStringInfoString(&sql, " " OP("||") " ',' " OP("||") " ");
		switch (keys[i].type)
		{
			case AV_N:
				appendStringInfo(&sql, "(pg_catalog.trim_scale(((%s " OP("->") " %s) " OP("->>")
								 " 'N')::pg_catalog.numeric))::pg_catalog.text", src, lit);
				break;
			case AV_B:
				appendStringInfo(&sql, "pg_catalog.encode(pg_catalog.decode((%s " OP("->") " %s) " OP("->>")
								 " 'B', 'base64'), 'hex')", src, lit);
				break;
			default:
				appendStringInfo(&sql, "pg_catalog.quote_literal((%s " OP("->") " %s) " OP("->>") " 'S')",
								 src, lit);
				break;
		}
	}
	appendStringInfoChar(&sql, ')');
	return sql.data;
}

static char *query_multi_sql(StTable *t, StIndex *ix, const StQueryRange *r, bool scan, bool segmented);
static void run_multi(StTable *t, StIndex *ix, const StQueryRange *r, bool scan, int segment, int total_segments,
					  StRowCallback callback, void *arg);

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
					 int npk, int nsk, const StKeyDef *keys,
					 const StKeyDef *table_pk, const StKeyDef *table_sk)
{
	StringInfoData sql;
	StKeyDef	none = {NULL, AV_S};
	const StKeyDef *pk = &keys[0];
	const StKeyDef *sk = nsk ? &keys[npk] : &none;

	initStringInfo(&sql);
	if (npk > 1 || nsk > 1)
	{
		/*
		 * A multi-attribute key: its HASH attributes in one column, each
		 * RANGE attribute in its own with its type's order, then the
		 * table's key.
		 */
		appendStringInfo(&sql, "CREATE INDEX %s ON %s (%s",
						 quote_identifier(index_relname), qualified(relname),
						 multi_partition_expr(npk, keys, "item"));
		for (int i = npk; i < npk + nsk; i++)
			appendStringInfo(&sql, ", %s", index_sort_expr(&keys[i]));
		appendStringInfo(&sql, ", %s", partition_expr("pk", table_pk->type));
		if (table_sk->name)
			appendStringInfoString(&sql, ", sk");
		appendStringInfo(&sql, ") WHERE %s", storage_index_keys_predicate(npk, nsk, keys));
		exec_ddl(sql.data);
		return;
	}
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

/*
 * Time to live's expiry of an item: stdesign.ttl_expiry (ttl_expiry.c), the
 * number of the attribute or NULL, the key of the time-to-live index and
 * what the expiry query compares, in the same words so that the planner
 * matches the one to the other.
 */
static char *
ttl_expiry_sql(const char *attribute)
{
	return psprintf("stdesign.ttl_expiry(item, %s::pg_catalog.text)", quote_literal_cstr(attribute));
}

/* Its whole second (ttl_second, ttl_expiry.c): the index's key. */
static char *
ttl_second_sql(const char *attribute)
{
	return psprintf("stdesign.ttl_second(item, %s::pg_catalog.text)", quote_literal_cstr(attribute));
}

/* The shard of a row's key (ttl_expiry.c): the index's first column. */
static const char *
ttl_shard_sql(bool has_sk)
{
	return has_sk ? "stdesign.ttl_shard(pk, sk)" : "stdesign.ttl_shard(pk)";
}

/*
 * The time-to-live index: a btree over the shard of the key and the
 * expiry's second, partial on there being one, so that the items without
 * a Number in the attribute cost nothing but the expression's evaluation
 * on a write.  Built as a GSI's btree is (on a Citus table, Citus builds
 * it on every shard).
 */
void
storage_create_ttl_index(const char *relname, const char *index_relname, const char *attribute,
						 bool has_sk)
{
	char	   *e = ttl_second_sql(attribute);

	exec_ddl(psprintf("CREATE INDEX %s ON %s (%s, %s) WHERE %s IS NOT NULL",
					  quote_identifier(index_relname), qualified(relname),
					  ttl_shard_sql(has_sk), e, e));
}

/* Whether node is column attno of the indexed relation. */
static bool
is_column(Node *node, AttrNumber attno)
{
	return node != NULL && IsA(node, Var) && attno != InvalidAttrNumber &&
		((Var *) node)->varattno == attno;
}

/* Whether node is a call of stdesign's function name, and its arguments. */
static bool
is_stdesign_call(Node *node, const char *name, List **args)
{
	FuncExpr   *f = node != NULL && IsA(node, FuncExpr) ? (FuncExpr *) node : NULL;
	char	   *fname = f ? get_func_name(f->funcid) : NULL;

	if (fname == NULL || strcmp(fname, name) != 0 ||
		get_func_namespace(f->funcid) != get_namespace_oid("stdesign", false))
		return false;
	*args = f->args;
	return true;
}

/*
 * Whether node is the expiry of the item's attribute as the index has it:
 * stdesign.<name>(item, '<attribute>'::text).
 */
static bool
is_expiry_of(Node *node, const char *name, AttrNumber item, const char *attribute)
{
	List	   *args;
	Const	   *c;

	if (!is_stdesign_call(node, name, &args) || list_length(args) != 2 ||
		!is_column(linitial(args), item) || !IsA(lsecond(args), Const))
		return false;
	c = (Const *) lsecond(args);
	return c->consttype == TEXTOID && !c->constisnull &&
		strcmp(TextDatumGetCString(c->constvalue), attribute) == 0;
}

/*
 * Whether index_relname, in the data schema, is the time-to-live index of
 * relation relid on `attribute`, as storage_create_ttl_index makes it: a
 * btree of relid, not unique, no constraint's, without options or column
 * orderings of its own, over stdesign.ttl_shard(pk[, sk]) and
 * stdesign.ttl_second(item, attribute), or (as made before the shards)
 * over stdesign.ttl_expiry(item, attribute) alone, partial on the last
 * being NOT NULL.  A name is not enough: anyone may add indexes of their
 * own to a table's relation (or to another's under this name), and an
 * owner's own index is not dropped for this one.  The index's table is
 * checked before the index is opened, so that another relation's index of
 * the name is never locked.
 */
bool
storage_is_ttl_index(Oid relid, const char *index_relname, const char *attribute, bool has_sk)
{
	Oid			ix = get_relname_relid(index_relname, get_namespace_oid(ST_DATA_SCHEMA, false));
	AttrNumber	pk = get_attnum(relid, "pk");
	AttrNumber	sk = has_sk ? get_attnum(relid, "sk") : InvalidAttrNumber;
	AttrNumber	item = get_attnum(relid, "item");
	Relation	ind;
	List	   *exprs;
	List	   *pred;
	List	   *args;
	int			natts;
	bool		result;

	if (!OidIsValid(ix) || get_rel_relkind(ix) != RELKIND_INDEX ||
		IndexGetRelation(ix, true) != relid || (has_sk && sk == InvalidAttrNumber))
		return false;
	ind = index_open(ix, AccessShareLock);
	exprs = RelationGetIndexExpressions(ind);
	pred = RelationGetIndexPredicate(ind);
	natts = ind->rd_index->indnatts;
	/* an exclusion constraint's index is a constraint's: no indisexclusion test */
	result = ind->rd_rel->relam == BTREE_AM_OID && !ind->rd_index->indisunique &&
		!OidIsValid(get_index_constraint(ix)) && ind->rd_options == NULL &&
		(natts == 1 || natts == 2) && ind->rd_index->indnkeyatts == natts &&
		list_length(exprs) == natts && list_length(pred) == 1 && IsA(linitial(pred), NullTest);
	for (int i = 0; result && i < natts; i++)
		result = ind->rd_indoption[i] == 0;
	if (result && natts == 2)
		result = is_stdesign_call(linitial(exprs), "ttl_shard", &args) &&
			list_length(args) == (has_sk ? 2 : 1) &&
			is_column(linitial(args), pk) &&
			(!has_sk || is_column(lsecond(args), sk)) &&
			is_expiry_of(lsecond(exprs), "ttl_second", item, attribute);
	else if (result)
		result = is_expiry_of(linitial(exprs), "ttl_expiry", item, attribute);
	if (result)
	{
		NullTest   *nt = (NullTest *) linitial(pred);

		result = nt->nulltesttype == IS_NOT_NULL && equal(nt->arg, llast(exprs));
	}
	index_close(ind, AccessShareLock);
	return result;
}

/* Whether no relation of the data schema has this name. */
bool
storage_name_free(const char *relname)
{
	return !OidIsValid(get_relname_relid(relname, get_namespace_oid(ST_DATA_SCHEMA, false)));
}

void
storage_drop_relation(const char *relname)
{
	exec_ddl(psprintf("DROP TABLE %s", qualified(relname)));
}

/*
 * The stream's capture trigger, attached as the owner of
 * stdesign.stream_capture() (EXECUTE on it is revoked, as on set_keys) and
 * fired ALWAYS: also for a session with session_replication_role =
 * replica, whose changes are changes of the table all the same.  The same
 * function BEFORE TRUNCATE refuses a TRUNCATE, which would remove every
 * item and write no record (DynamoDB has no such operation; a DELETE
 * writes the REMOVE records).
 */
void
storage_stream_attach(const char *relname, int64 stream_id, const char *view_type,
					  const char *pk, const char *sk)
{
	StringInfoData args;

	initStringInfo(&args);
	appendStringInfo(&args, "'" INT64_FORMAT "', %s, %s", stream_id,
					 quote_literal_cstr(view_type), quote_literal_cstr(pk));
	if (sk)
		appendStringInfo(&args, ", %s", quote_literal_cstr(sk));
	exec_ddl_as_set_keys_owner(psprintf("CREATE TRIGGER stream_capture AFTER INSERT OR UPDATE OR DELETE ON %s"
										" FOR EACH ROW EXECUTE FUNCTION stdesign.stream_capture(%s)",
										qualified(relname), args.data));
	exec_ddl_as_set_keys_owner(psprintf("CREATE TRIGGER stream_truncate BEFORE TRUNCATE ON %s"
										" FOR EACH STATEMENT EXECUTE FUNCTION stdesign.stream_capture(%s)",
										qualified(relname), args.data));
	exec_ddl_as_set_keys_owner(psprintf("ALTER TABLE %s ENABLE ALWAYS TRIGGER stream_capture",
										qualified(relname)));
	exec_ddl_as_set_keys_owner(psprintf("ALTER TABLE %s ENABLE ALWAYS TRIGGER stream_truncate",
										qualified(relname)));
}

/*
 * Every trigger of the relation that runs stdesign.stream_capture(), by
 * its function and whatever its name: the owner may rename the stream's
 * and give its own trigger that name, which must not be dropped in its
 * stead (the stream's would go on capturing into a disabled stream).
 */
void
storage_stream_detach(const char *relname)
{
	Oid			fn = storage_stream_capture_oid();
	Oid			relid = get_relname_relid(relname, get_namespace_oid(ST_DATA_SCHEMA, false));
	Relation	rel;
	TriggerDesc *td;
	List	   *names = NIL;
	ListCell   *lc;

	if (!OidIsValid(relid) || !OidIsValid(fn))
		return;
	rel = table_open(relid, ShareRowExclusiveLock);
	td = rel->trigdesc ? CopyTriggerDesc(rel->trigdesc) : NULL;
	table_close(rel, NoLock);
	for (int i = 0; td && i < td->numtriggers; i++)
		if (td->triggers[i].tgfoid == fn)
			names = lappend(names, pstrdup(td->triggers[i].tgname));
	foreach(lc, names)
		exec_ddl_as_set_keys_owner(psprintf("DROP TRIGGER %s ON %s",
											quote_identifier((char *) lfirst(lc)),
											qualified(relname)));
}

/* ---------- Citus ---------- */

static void create_delegated_functions(StTable *t);

/* The number of shards of a distributed relation. */
static int
shard_count_of(Oid relid)
{
	Oid			types[1] = {REGCLASSOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	bool		isnull;
	int			n;

	SPI_connect();
	if (SPI_execute_with_args("SELECT pg_catalog.count(*)::pg_catalog.int4 FROM pg_catalog.pg_dist_shard"
							  " WHERE logicalrelid OPERATOR(pg_catalog.=) $1",
							  1, types, values, NULL, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
		st_internal_error("could not count the shards of relation %u", relid);
	n = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	return n;
}

/*
 * create_distributed_table by pk, with what Citus needs told (only for this
 * call, as a function's SET clause would): the set_keys trigger is safe on
 * shards (citus.enable_unsafe_triggers; it checks the key columns there,
 * see key_trigger.c), and the key index, on stdesign.key_ix(pk), does hold
 * the distribution column, which Citus cannot see
 * (citus.allow_unsafe_constraints).  A colocation group of its own: pk is
 * COLLATE "C", unlike other tables' text columns.  The catalog rows go to
 * the workers first: the set_keys trigger of the shards verifies the rows
 * Citus copies into them against them.
 */
int
storage_distribute(StTable *t, int shard_count)
{
	Oid			types[2] = {REGCLASSOID, INT4OID};
	Datum		values[2] = {ObjectIdGetDatum(t->relid), Int32GetDatum(shard_count)};
	int			nest;
	GucContext	context = superuser() ? PGC_SUSET : PGC_USERSET;

	catalog_publish(t->name);
	if (t->distributed)
	{
		/* a table distributed by an earlier version gets its delegated reads */
		int			sequential = storage_citus_sequential_begin();

		create_delegated_reads(t);
		storage_citus_sequential_end(sequential);
		catalog_invalidate_all();
		return shard_count_of(t->relid);
	}

	/*
	 * A stream is captured and numbered in the coordinator's transaction
	 * (stream_capture.c); the shards' writes on the workers would write
	 * their records there, out of the stream's order.  Refused, as
	 * enabling a stream on a distributed table is (stream_ops.c).
	 */
	{
		Relation	rel = table_open(t->relid, AccessShareLock);
		bool		streamed = storage_stream_target(rel) != NULL;

		table_close(rel, AccessShareLock);
		if (streamed)
			st_error_hint(ST_ERR_VALIDATION, "Disable its stream first (st_stream_disable).",
						  "A table with an enabled stream cannot be distributed: TableName: %s", t->name);
	}

	/*
	 * The first time, the workers need the rows at once: the set_keys
	 * trigger of the shards checks the items Citus copies into them
	 * against them (a transaction that then rolls back leaves them there,
	 * naming a table no worker has: docs/citus.md).
	 */
	catalog_publish_now(t->name);
	nest = NewGUCNestLevel();
	(void) set_config_option("citus.enable_unsafe_triggers", "on", context, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	(void) set_config_option("citus.allow_unsafe_constraints", "on", context, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	/* the delegated functions are created in the same transaction: one connection per worker */
	(void) set_config_option("citus.multi_shard_modify_mode", "sequential", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	catalog_own_ddl_enter();
	PG_TRY();
	{
		SPI_connect();
		if (SPI_execute_with_args("SELECT pg_catalog.create_distributed_table($1, 'pk',"
								  " colocate_with => 'none', shard_count => $2)",
								  2, types, values, NULL, false, 0) != SPI_OK_SELECT)
			st_internal_error("create_distributed_table failed");
		/* the items copied into the shards stay in the coordinator's relation, unseen, until this */
		if (SPI_execute_with_args("SELECT pg_catalog.truncate_local_data_after_distributing_table($1)",
								  1, types, values, NULL, false, 0) != SPI_OK_SELECT)
			st_internal_error("truncate_local_data_after_distributing_table failed");
		SPI_finish();
	}
	PG_FINALLY();
	{
		catalog_own_ddl_leave();
	}
	PG_END_TRY();
	create_delegated_functions(t);
	create_delegated_reads(t);
	AtEOXact_GUC(true, nest);
	catalog_invalidate_all();
	return shard_count_of(t->relid);
}

/*
 * The table's delegated functions, stdesign_data."<relation>_get"(pk, sk)
 * and "<relation>_query"(pk, sk_prefix, limit) (docs/citus.md):
 * distributed by pk with the table (create_distributed_function), so that
 * Citus runs a call of one at the worker holding pk's shard, where
 * st_get / st_query read the shard directly (local_shard).  Not made for a
 * relation name too long to take the suffix.
 */
static void
create_delegated_functions(StTable *t)
{
	char	   *ext_schema;
	MemoryContext caller = CurrentMemoryContext;
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		values[2];
	char	   *get_name = psprintf("%s_get", t->relname);
	char	   *query_name = psprintf("%s_query", t->relname);
	char	   *table = quote_literal_cstr(t->name);

	if (strlen(query_name) >= NAMEDATALEN)
		return;
	SPI_connect();
	if (SPI_execute("SELECT n.nspname FROM pg_catalog.pg_extension AS e JOIN pg_catalog.pg_namespace AS n"
					" ON n.oid OPERATOR(pg_catalog.=) e.extnamespace WHERE e.extname OPERATOR(pg_catalog.=) 'stdesign'",
					false, 1) != SPI_OK_SELECT || SPI_processed != 1)
		st_internal_error("the schema of extension stdesign is unknown");
	ext_schema = MemoryContextStrdup(caller,
									 quote_identifier(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1)));
	SPI_finish();

	exec_ddl(psprintf("CREATE FUNCTION %s.%s(pk pg_catalog.text, sk pg_catalog.text DEFAULT NULL)"
					  " RETURNS pg_catalog.jsonb LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp"
					  " AS $st$BEGIN RETURN %s.st_get(pk, sk, %s); END$st$",
					  ST_DATA_SCHEMA, quote_identifier(get_name), ext_schema, table));
	exec_ddl(psprintf("CREATE FUNCTION %s.%s(pk pg_catalog.text, sk_prefix pg_catalog.text DEFAULT NULL,"
					  " \"limit\" pg_catalog.int4 DEFAULT NULL)"
					  " RETURNS pg_catalog.jsonb LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp"
					  " AS $st$BEGIN RETURN (SELECT COALESCE(pg_catalog.jsonb_agg(x), '[]')"
					  " FROM %s.st_query(pk, sk_prefix, %s, \"limit\" => \"limit\") AS x); END$st$",
					  ST_DATA_SCHEMA, quote_identifier(query_name), ext_schema, table));
	values[1] = CStringGetTextDatum(t->qualified);
	SPI_connect();
	values[0] = CStringGetTextDatum(psprintf("%s.%s(pg_catalog.text, pg_catalog.text)",
											 ST_DATA_SCHEMA, quote_identifier(get_name)));
	if (SPI_execute_with_args("SELECT pg_catalog.create_distributed_function($1::pg_catalog.regprocedure,"
							  " 'pk', colocate_with => $2)", 2, types, values, NULL, false, 0) != SPI_OK_SELECT)
		st_internal_error("create_distributed_function failed");
	values[0] = CStringGetTextDatum(psprintf("%s.%s(pg_catalog.text, pg_catalog.text, pg_catalog.int4)",
											 ST_DATA_SCHEMA, quote_identifier(query_name)));
	if (SPI_execute_with_args("SELECT pg_catalog.create_distributed_function($1::pg_catalog.regprocedure,"
							  " 'pk', colocate_with => $2)", 2, types, values, NULL, false, 0) != SPI_OK_SELECT)
		st_internal_error("create_distributed_function failed");
	SPI_finish();
}

/*
 * The table's delegated read functions, stdesign_data."<relation>_dget"(pk,
 * sk) and "<relation>_dquery"(pk, lower_kind, lower, upper_kind, upper,
 * backward, "limit"), with the types of its key columns, rows (item,
 * direct): distributed by pk with the table and force_delegation, so that
 * Citus delegates the coordinator's calls of them from inside st_get,
 * st_query and the API (see "delegated reads").  PL/pgSQL: a wrapper a
 * non-superuser may create, which calls the C function with the table's
 * name.  Not made for a relation name too long to take the suffix.
 */
static void
create_delegated_reads(StTable *t)
{
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		values[2];
	char	   *get_name = psprintf("%s_dget", t->relname);
	char	   *query_name = psprintf("%s_dquery", t->relname);
	char	   *table = quote_literal_cstr(t->name);
	char	   *pk = format_type_be_qualified(storage_key_typoid(t->pk.type));
	char	   *sk = format_type_be_qualified(key_param_type(&t->sk));
	const char *rows = "TABLE(item pg_catalog.jsonb, direct pg_catalog.bool)";

	if (strlen(query_name) >= NAMEDATALEN)
		return;
	exec_ddl(psprintf("CREATE OR REPLACE FUNCTION %s.%s(pk %s, sk %s) RETURNS %s LANGUAGE plpgsql"
					  " AS $st$BEGIN RETURN QUERY SELECT * FROM stdesign.st_delegated_get(pk, sk, %s); END$st$",
					  ST_DATA_SCHEMA, quote_identifier(get_name), pk, sk, rows, table));
	exec_ddl(psprintf("CREATE OR REPLACE FUNCTION %s.%s(pk %s, lower_kind pg_catalog.int4, lower %s,"
					  " upper_kind pg_catalog.int4, upper %s, backward pg_catalog.bool, \"limit\" pg_catalog.int8)"
					  " RETURNS %s LANGUAGE plpgsql"
					  " AS $st$BEGIN RETURN QUERY SELECT * FROM stdesign.st_delegated_query(pk, lower_kind, lower,"
					  " upper_kind, upper, backward, \"limit\", %s); END$st$",
					  ST_DATA_SCHEMA, quote_identifier(query_name), pk, sk, sk, rows, table));
	values[1] = CStringGetTextDatum(t->qualified);
	SPI_connect();
	values[0] = CStringGetTextDatum(psprintf("%s.%s(%s, %s)", ST_DATA_SCHEMA, quote_identifier(get_name), pk, sk));
	if (SPI_execute_with_args("SELECT pg_catalog.create_distributed_function($1::pg_catalog.regprocedure,"
							  " 'pk', colocate_with => $2, force_delegation => true)",
							  2, types, values, NULL, false, 0) != SPI_OK_SELECT)
		st_internal_error("create_distributed_function failed");
	values[0] = CStringGetTextDatum(psprintf("%s.%s(%s, pg_catalog.int4, %s, pg_catalog.int4, %s, pg_catalog.bool, pg_catalog.int8)",
											 ST_DATA_SCHEMA, quote_identifier(query_name), pk, sk, sk));
	if (SPI_execute_with_args("SELECT pg_catalog.create_distributed_function($1::pg_catalog.regprocedure,"
							  " 'pk', colocate_with => $2, force_delegation => true)",
							  2, types, values, NULL, false, 0) != SPI_OK_SELECT)
		st_internal_error("create_distributed_function failed");
	SPI_finish();
}

/*
 * A distributed table's relation and its delegated functions, dropped over
 * one connection per worker: Citus refuses a command on a distributed
 * function after a transaction used several (as DROP TABLE of a
 * distributed table would, for the next table dropped in the statement).
 */
int
storage_citus_sequential_begin(void)
{
	int			nest = NewGUCNestLevel();

	(void) set_config_option("citus.multi_shard_modify_mode", "sequential", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	return nest;
}

void
storage_citus_sequential_end(int nest)
{
	AtEOXact_GUC(true, nest);
}

void
storage_drop_distributed_relation(const char *relname)
{
	int			nest = storage_citus_sequential_begin();

	exec_ddl(psprintf("DROP FUNCTION IF EXISTS %s.%s(pg_catalog.text, pg_catalog.text),"
					  " %s.%s(pg_catalog.text, pg_catalog.text, pg_catalog.int4)",
					  ST_DATA_SCHEMA, quote_identifier(psprintf("%s_get", relname)),
					  ST_DATA_SCHEMA, quote_identifier(psprintf("%s_query", relname))));
	if (strlen(relname) + strlen("_dquery") < NAMEDATALEN)
		exec_ddl(psprintf("DROP FUNCTION IF EXISTS %s.%s, %s.%s",
						  ST_DATA_SCHEMA, quote_identifier(psprintf("%s_dget", relname)),
						  ST_DATA_SCHEMA, quote_identifier(psprintf("%s_dquery", relname))));
	storage_drop_relation(relname);
	storage_citus_sequential_end(nest);
}

int64
storage_shard_direct_reads(void)
{
	return shard_direct_reads;
}

void
storage_publish_catalog(const char *table_name)
{
	catalog_publish(table_name);
}

/* ---------- plans ---------- */

/* Prepare and keep a plan in the table's cache; `*slot` caches it. */
static SPIPlanPtr
get_plan(SPIPlanPtr *slot, const char *sql, int nargs, Oid *argtypes, bool distributed)
{
	SPIPlanPtr	plan;

	if (*slot)
		return *slot;
	/*
	 * Always the generic plan: these statements are key lookups and range
	 * scans whose best plan does not depend on the values, and a custom plan
	 * would be planned again on every call.  Except on a Citus distributed
	 * table: Citus routes a statement to its shard by the value of pk, which
	 * a generic plan does not know outside Citus's fast path.
	 */
	plan = SPI_prepare_cursor(sql, nargs, argtypes,
							  distributed ? CURSOR_OPT_CUSTOM_PLAN : CURSOR_OPT_GENERIC_PLAN);
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
#define CACHED_PLAN(t, slot, sql, nargs, types) \
	(*(slot) ? *(slot) : get_plan((slot), (sql), (nargs), (types), (t)->distributed))

/*
 * "ONLY " before the relation in a fallback statement: the rows of this
 * relation, never an inheritance child's.  A Citus distributed table has
 * no children and its statements are routed as they are written.
 */
#define ONLY_KW(t) ((t)->distributed ? "" : "ONLY ")

/*
 * plan_cache_mode = force_generic_plan in the session would override the
 * custom plans of a distributed table: while its statements run, it is
 * force_custom_plan (as a function's SET clause would set it; an error
 * undoes it with the (sub)transaction).  Returns the GUC nest level to end,
 * or -1 for a table that is not distributed.
 */
static int
dist_plans_begin(StTable *t)
{
	int			nest;

	if (!t->distributed || plan_cache_mode != PLAN_CACHE_MODE_FORCE_GENERIC_PLAN)
		return -1;
	nest = NewGUCNestLevel();
	(void) set_config_option("plan_cache_mode", "force_custom_plan", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	return nest;
}

static void
dist_plans_end(int nest)
{
	if (nest >= 0)
		AtEOXact_GUC(true, nest);
}

/*
 * "<partition expr> = <param> [AND sk = $2]" for the table's primary key.
 * On a distributed table also "pk = $1" (the same rows: key_ix keeps
 * equality), by which Citus routes the statement to one shard.
 */
static char *
key_match_sql(StTable *t)
{
	char	   *param = t->pk.type == AV_N ? "$1" : "stdesign.key_ix($1)";
	const char *route = (t->distributed && t->pk.type != AV_N) ? "pk " OP("=") " $1 AND " : "";

	if (t->sk.name)
		return psprintf("%s%s " OP("=") " %s AND sk " OP("=") " $2", route, partition_expr("pk", t->pk.type), param);
	return psprintf("%s%s " OP("=") " %s", route, partition_expr("pk", t->pk.type), param);
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
	int			nest;
	Oid			types[2];
	Datum		values[2];
	int			n = key_args(t, key, types, values);
	SPIPlanPtr	plan;
	Jsonb	   *result;

	nest = dist_plans_begin(t);
	SPI_connect();
	if (ctid)
		plan = CACHED_PLAN(t, &t->plan_get_for_update,
						   psprintf("SELECT item, %s FROM %s%s WHERE %s FOR UPDATE",
									t->distributed ? "'(0,0)'::pg_catalog.tid" : "ctid",
									ONLY_KW(t), t->qualified, key_match_sql(t)),
						   n, types);
	else
		plan = CACHED_PLAN(t, &t->plan_get,
						   psprintf("SELECT item FROM %s%s WHERE %s", ONLY_KW(t), t->qualified,
									key_match_sql(t)),
						   n, types);
	if (SPI_execute_plan(plan, values, NULL, ctid == NULL, 1) != SPI_OK_SELECT)
		st_internal_error("read by key failed");
	result = first_item(ctid);
	SPI_finish();
	dist_plans_end(nest);
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

/*
 * Refuse a write in a read-only transaction, and so on a hot standby (where
 * every transaction is read-only), as the executor refuses a statement that
 * writes (ExecCheckXactReadOnly), with its error: cannot execute INSERT in
 * a read-only transaction (SQLSTATE 25006).  stdesign writes most rows
 * without an executor (row_write.c), where nothing else would refuse them;
 * and an item write that ends up writing nothing (the Delete of a missing
 * item, a failed condition) is refused all the same, as an UPDATE or DELETE
 * that matches no row is.  So every function of this file that writes, or
 * reads an item to write it (a locking read, the read of an optimistic
 * update), calls it first, before it reads, locks or writes anything.
 */
void
storage_prevent_write(const char *cmdname)
{
	PreventCommandIfReadOnly(cmdname);
	PreventCommandIfParallelMode(cmdname);
	PreventCommandDuringRecovery(cmdname);
}

void
storage_require_privilege(StTable *t, AclMode mode)
{
	AclResult	res = pg_class_aclcheck(t->relid, GetUserId(), mode);

	if (res != ACLCHECK_OK)
		aclcheck_error(res, OBJECT_TABLE, t->relname);
}

/*
 * Are the key index and the item column known (direct reads and writes need
 * both)?  Never on a Citus distributed table: its relation on the
 * coordinator is an empty shell, the items are in the shards, and every
 * read and write is a statement Citus routes (see the banner of the
 * section "distributed tables").
 */
static bool
key_layout_known(StTable *t)
{
	return OidIsValid(t->key_index) && t->item_attnum > 0 && !t->distributed;
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

	scan = st_index_beginscan(rel, idx, snapshot, nkeys, 0);
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
	StTable    *shard = local_shard(t, key->pk, ACL_SELECT);

	if (shard)
		item = probe_key_index(shard, key);
	else if (t->distributed && delegate_get(t, key, &item))
		;
	else if (key_layout_known(t) && storage_direct_ok(t->relid, ACL_SELECT))
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
	scan = st_index_beginscan(rel, idx, snapshot, nkeys, 0);
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
	storage_prevent_write("SELECT FOR UPDATE");
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
	storage_prevent_write("UPDATE");
	return read_latest(t, key, ctid, false);
}

bool
storage_replace_unlocked(StTable *t, ItemPointer ctid, Jsonb *item)
{
	storage_prevent_write("UPDATE");
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

/* ---------- distributed tables ---------- */

/*
 * On a Citus distributed table (st_distribute_table) the relation on the
 * coordinator is an empty shell: the items live in its shards, on the
 * workers.  Every read and write is then a SQL statement that Citus routes
 * (custom plans: see get_plan), never a direct access to the relation:
 *
 *	- a statement on one item names its pk ("pk = $1", and the item's key
 *	  columns in an INSERT), by which Citus sends it to the one shard that
 *	  holds the partition; the set_keys trigger on the shard checks that
 *	  the key columns are the item's, it cannot move a row to another shard;
 *	- a row locked by a locking read is replaced or deleted by its key, not
 *	  by its ctid (a ctid is only unique within a shard);
 *	- queries of one partition name pk too and go to one shard; GSI queries
 *	  and scans go to every shard, Citus merging their results in the
 *	  statement's ORDER BY with its LIMIT;
 *	- a transaction writing items on several workers commits them with
 *	  Citus's two-phase commit.
 *
 * The key locks of missing items (storage_lock_absent_key) stay locks of
 * the coordinator: they order the coordinator's sessions (docs/citus.md).
 */

/* The key columns' values of a stored item, as the set_keys trigger computes them. */
static void stored_item_key(StTable *t, Jsonb *item, StKey *key);
static bool rls_hides_key(StTable *t, const StKey *key);

/*
 * A write that would create an item whose key a row hidden by row-level
 * security holds: refused, as Postgres refuses an INSERT of that key (the
 * unique index, which knows no policy, tells the key exists); with
 * insufficient_privilege, as a policy's refusal (the endpoint answers
 * AccessDeniedException), rather than as a conflict that retrying could end.
 */
static void
hidden_key_error(StTable *t)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("cannot write the item: an item with its key exists in table \"%s\", hidden by row-level security",
					t->relname)));
}

/* $1 pk, [$2 sk,] item: the parameters of a distributed write of item. */
static int
dist_item_args(StTable *t, Jsonb *item, Oid *types, Datum *values)
{
	StKey		key;
	int			n;

	stored_item_key(t, item, &key);
	n = key_args(t, &key, types, values);
	types[n] = JSONBOID;
	values[n] = PointerGetDatum(item);
	return n + 1;
}

/* "INSERT INTO rel (pk, [sk,] item) VALUES ($1, [$2,] $n)" */
static char *
dist_insert_sql(StTable *t)
{
	return psprintf("INSERT INTO %s AS t (pk, %sitem) VALUES ($1, %s)", t->qualified,
					t->sk.name ? "sk, " : "", t->sk.name ? "$2, $3" : "$2");
}

/* Put one item: INSERT ... ON CONFLICT DO UPDATE, routed by its pk. */
static void
dist_upsert(StTable *t, Jsonb *item)
{
	int			nest;
	Oid			types[3];
	Datum		values[3];
	int			n = dist_item_args(t, item, types, values);
	SPIPlanPtr	plan;

	nest = dist_plans_begin(t);
	SPI_connect();
	plan = CACHED_PLAN(t, &t->plan_upsert,
					   psprintf("%s ON CONFLICT (%s%s) DO UPDATE SET item = excluded.item",
								dist_insert_sql(t), partition_expr("pk", t->pk.type),
								t->sk.name ? ", sk" : ""),
					   n, types);
	if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_INSERT)
		st_internal_error("put failed");
	SPI_finish();
	dist_plans_end(nest);
}

/* Replace or delete the item with this key (a row this transaction has locked). */
static void
dist_write_by_key(StTable *t, const StKey *key, Jsonb *item)
{
	int			nest;
	Oid			types[3];
	Datum		values[3];
	int			n = key_args(t, key, types, values);
	SPIPlanPtr	plan;
	int			expected = item ? SPI_OK_UPDATE : SPI_OK_DELETE;

	nest = dist_plans_begin(t);
	SPI_connect();
	if (item)
	{
		types[n] = JSONBOID;
		values[n] = PointerGetDatum(item);
		plan = CACHED_PLAN(t, &t->plan_update,
						   psprintf("UPDATE %s SET item = $%d WHERE %s", t->qualified, n + 1, key_match_sql(t)),
						   n + 1, types);
	}
	else
		plan = CACHED_PLAN(t, &t->plan_delete,
						   psprintf("DELETE FROM %s WHERE %s", t->qualified, key_match_sql(t)),
						   n, types);
	if (SPI_execute_plan(plan, values, NULL, false, 0) != expected)
		st_internal_error("%s of a locked item failed", item ? "update" : "delete");
	SPI_finish();
	dist_plans_end(nest);
}

/*
 * On a Citus worker, the shards of a distributed table placed on this node
 * are relations of its own: a GetItem or a Query of one partition whose
 * shard is here (a call Citus delegated to this node, or any call made on
 * it) reads the shard directly, by the same direct paths as an
 * undistributed table, without a statement for Citus to route.  The
 * shards are found once per definition through Citus's metadata (its hash
 * ranges and this node's placements); a partition's shard is the one whose
 * range holds the hash of pk by its type's hash function, as Citus hashes
 * it.  A shard named otherwise than "<relation>_<shard id>" (Citus cuts
 * long names) is not used: its reads are routed statements as on the
 * coordinator.
 */
typedef struct StShardMap
{
	int			n;
	int32	   *min;
	int32	   *max;
	Oid		   *relid;
	Oid		   *key_index;
	char	   *get_call;		/* the delegated read statements (NULL: none; see delegate_get) */
	char	   *query_call;
} StShardMap;

static void load_delegates(StTable *t, StShardMap *map);

static StShardMap *
load_shard_map(StTable *t)
{
	Oid			types[1] = {REGCLASSOID};
	Datum		values[1] = {ObjectIdGetDatum(t->relid)};
	Oid			nsp = get_rel_namespace(t->relid);
	MemoryContext old;
	StShardMap *map = MemoryContextAllocZero(t->cxt, sizeof(StShardMap));

	SPI_connect();
	if (SPI_execute_with_args("SELECT s.shardid, s.shardminvalue::pg_catalog.int4, s.shardmaxvalue::pg_catalog.int4"
							  " FROM pg_catalog.pg_dist_shard AS s"
							  " JOIN pg_catalog.pg_dist_placement AS p USING (shardid)"
							  " WHERE s.logicalrelid OPERATOR(pg_catalog.=) $1"
							  " AND p.groupid OPERATOR(pg_catalog.=) (SELECT groupid FROM pg_catalog.pg_dist_local_group)"
							  " AND p.shardstate OPERATOR(pg_catalog.=) 1",
							  1, types, values, NULL, false, 0) != SPI_OK_SELECT)
		st_internal_error("could not read the shards of table %s", t->name);
	old = MemoryContextSwitchTo(t->cxt);
	map->min = palloc(sizeof(int32) * Max(1, SPI_processed));
	map->max = palloc(sizeof(int32) * Max(1, SPI_processed));
	map->relid = palloc(sizeof(Oid) * Max(1, SPI_processed));
	map->key_index = palloc(sizeof(Oid) * Max(1, SPI_processed));
	MemoryContextSwitchTo(old);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		bool		isnull[3];
		int64		shardid = DatumGetInt64(SPI_getbinval(tup, SPI_tuptable->tupdesc, 1, &isnull[0]));
		int32		lo = DatumGetInt32(SPI_getbinval(tup, SPI_tuptable->tupdesc, 2, &isnull[1]));
		int32		hi = DatumGetInt32(SPI_getbinval(tup, SPI_tuptable->tupdesc, 3, &isnull[2]));
		char	   *relname = psprintf("%s_" INT64_FORMAT, t->relname, shardid);
		char	   *ixname = psprintf("%s_" INT64_FORMAT, t->key_index_name, shardid);
		Oid			rel;
		Oid			ix;

		if (isnull[0] || isnull[1] || isnull[2] ||
			strlen(relname) >= NAMEDATALEN || strlen(ixname) >= NAMEDATALEN)
			continue;
		rel = get_relname_relid(relname, nsp);
		ix = get_relname_relid(ixname, nsp);
		if (!OidIsValid(rel) || !OidIsValid(ix))
			continue;
		map->min[map->n] = lo;
		map->max[map->n] = hi;
		map->relid[map->n] = rel;
		map->key_index[map->n] = ix;
		map->n++;
	}
	SPI_finish();
	load_delegates(t, map);
	return map;
}

/* Citus's hash of a partition key: its type's hash function (text: "C", a hash of the bytes). */
static int32
citus_pk_hash(StTable *t, Datum pk)
{
	switch (t->pk.type)
	{
		case AV_N:
			return DatumGetInt32(DirectFunctionCall1(hash_numeric, pk));
		case AV_B:
			return DatumGetInt32(DirectFunctionCall1(hashvarlena, pk));
		default:
			return DatumGetInt32(DirectFunctionCall1Coll(hashtext, C_COLLATION_OID, pk));
	}
}

/*
 * The definition of pk's shard, when it is on this node and may be read
 * directly: a copy of t naming the shard's relation and key index, or NULL.
 */
static StTable *
local_shard(StTable *t, Datum pk, AclMode mode)
{
	StShardMap *map;
	int32		h;

	if (!t->distributed || t->item_attnum <= 0)
		return NULL;
	if (t->shards == NULL)
		t->shards = load_shard_map(t);
	map = t->shards;
	if (map->n == 0)
		return NULL;
	h = citus_pk_hash(t, pk);
	for (int i = 0; i < map->n; i++)
	{
		StTable    *s;

		if (h < map->min[i] || h > map->max[i])
			continue;
		if (!storage_direct_ok(map->relid[i], mode))
			return NULL;
		s = palloc(sizeof(StTable));
		memcpy(s, t, sizeof(StTable));
		s->relid = map->relid[i];
		s->key_index = map->key_index[i];
		s->distributed = false;
		shard_direct_reads++;
		return s;
	}
	return NULL;
}

/*
 * Delegated reads.  On the coordinator (any node without the partition's
 * shard), a GetItem or a Query of one table partition from its start is
 * sent whole to the node holding the shard, which runs it by the direct
 * paths above, instead of a statement Citus routes row by row: the
 * coordinator calls the table's delegated read function,
 * stdesign_data."<relation>_dget"(pk, sk) or "<relation>_dquery"(pk, ...),
 * distributed by pk with the table and force_delegation (docs/citus.md).
 * Citus delegates a call of a distributed function made inside another
 * function only with force_delegation, when the distribution argument is
 * a constant after planning (a parameter of SPI's one-shot plan is) and
 * the call is in FROM (not a simple expression PL/pgSQL would evaluate
 * without Citus's executor); inside a transaction it runs the call on the
 * transaction's connection to that worker, so the read sees the
 * transaction's own writes there.  The function's rows are the items (in
 * their stored form) with a flag saying whether the node read its own
 * shard directly; a call Citus ran here instead (no delegation possible)
 * still answers, by routed statements: it never delegates again
 * (in_delegated_read), which also keeps a worker from sending the call on.
 */
static bool in_delegated_read = false;

/* Reads this backend delegated that a node answered from its own shard (storage_shard_delegated_reads). */
static int64 shard_delegated_reads = 0;

/* The table's delegated read functions, when Citus delegates them (distributed, force_delegation). */
static void
load_delegates(StTable *t, StShardMap *map)
{
	Oid			types[2] = {TEXTOID, OIDOID};
	Datum		values[2];
	MemoryContext old;
	char	   *names[2] = {psprintf("%s_dget", t->relname), psprintf("%s_dquery", t->relname)};
	bool		found[2] = {false, false};

	if (strlen(names[1]) >= NAMEDATALEN)
		return;
	values[1] = ObjectIdGetDatum(get_rel_namespace(t->relid));
	SPI_connect();
	for (int i = 0; i < 2; i++)
	{
		values[0] = CStringGetTextDatum(names[i]);
		if (SPI_execute_with_args("SELECT true FROM pg_catalog.pg_proc AS p JOIN pg_catalog.pg_dist_object AS d"
								  " ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass"
								  " AND d.objid OPERATOR(pg_catalog.=) p.oid"
								  " WHERE p.proname OPERATOR(pg_catalog.=) $1 AND p.pronamespace OPERATOR(pg_catalog.=) $2"
								  " AND d.force_delegation",
								  2, types, values, NULL, false, 1) != SPI_OK_SELECT)
			st_internal_error("could not read the delegated functions of table %s", t->name);
		found[i] = SPI_processed == 1;
	}
	SPI_finish();
	old = MemoryContextSwitchTo(t->cxt);
	if (found[0])
		map->get_call = psprintf("SELECT item, direct FROM %s.%s($1, $2)",
								 ST_DATA_SCHEMA, quote_identifier(names[0]));
	if (found[1])
		map->query_call = psprintf("SELECT item, direct FROM %s.%s($1, $2, $3, $4, $5, $6, $7)",
								   ST_DATA_SCHEMA, quote_identifier(names[1]));
	MemoryContextSwitchTo(old);
}

/* The statement of a delegated read of t, or NULL when it is not to be delegated. */
static const char *
delegate_call(StTable *t, bool query)
{
	const char *sql;
	Oid			nsp;

	if (!t->distributed || in_delegated_read || t->item_attnum <= 0 || !st_citus_delegate_reads_guc)
		return NULL;
	if (t->shards == NULL)
		t->shards = load_shard_map(t);
	sql = query ? t->shards->query_call : t->shards->get_call;

	/*
	 * Only where a direct read would do on one node: a caller without the
	 * privileges, or under row security, gets the routed statement and the
	 * error or the rows one node would give.  Nor after this transaction
	 * changed the table's definition: the workers get it when it commits.
	 */
	if (sql == NULL || !storage_direct_ok(t->relid, ACL_SELECT) || catalog_publish_pending(t->name) ||
		st_namespace_aclcheck(get_rel_namespace(t->relid), GetUserId(), ACL_USAGE) != ACLCHECK_OK)
		return NULL;
	nsp = get_namespace_oid("stdesign", true);
	if (!OidIsValid(nsp) || st_namespace_aclcheck(nsp, GetUserId(), ACL_USAGE) != ACLCHECK_OK)
		return NULL;
	return sql;
}

/*
 * Run a delegated read: each item to callback (NULL: the first kept in
 * *first, copied to the caller's context), in a per-row context of the
 * caller's, as run_cursor does.
 */
static void
run_delegated(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls,
			  StRowCallback callback, void *arg, Jsonb **first)
{
	MemoryContext caller = CurrentMemoryContext;
	MemoryContext rowcxt;
	bool		direct = false;
	bool		go_on = true;
	int			nest = NewGUCNestLevel();

	/*
	 * A read needs no transaction of its own at the worker: outside a
	 * transaction block Citus then sends the call alone (a function call
	 * would otherwise open one, BEGIN and COMMIT around the call); a
	 * transaction that already wrote through Citus reads on its own
	 * connection, inside its transaction there, either way.
	 */
	(void) set_config_option("citus.function_opens_transaction_block", "off", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	SPI_connect();
	if (SPI_execute_with_args(sql, nargs, types, values, nulls, true, 0) != SPI_OK_SELECT)
		st_internal_error("delegated read failed: %s", sql);
	AtEOXact_GUC(true, nest);
	rowcxt = AllocSetContextCreate(caller, "stdesign row", ALLOCSET_DEFAULT_SIZES);
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		bool		dnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);

		direct |= DatumGetBool(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &dnull)) && !dnull;
		if (isnull || !go_on)
			continue;
		if (callback == NULL)
		{
			MemoryContext spi_cxt = MemoryContextSwitchTo(caller);

			*first = DatumGetJsonbPCopy(d);
			MemoryContextSwitchTo(spi_cxt);
			go_on = false;
			continue;
		}
		{
			MemoryContext spi_cxt = MemoryContextSwitchTo(rowcxt);

			go_on = callback(DatumGetJsonbP(d), arg);
			MemoryContextSwitchTo(spi_cxt);
			MemoryContextReset(rowcxt);
		}
	}
	MemoryContextDelete(rowcxt);
	SPI_finish();
	if (direct)
		shard_delegated_reads++;
}

/* GetItem at the node holding the shard; false when not delegated. */
static bool
delegate_get(StTable *t, const StKey *key, Jsonb **item)
{
	const char *sql = delegate_call(t, false);
	Oid			types[2];
	Datum		values[2] = {key->pk, t->sk.name ? key->sk : (Datum) 0};
	char		nulls[2] = {' ', t->sk.name ? ' ' : 'n'};

	if (sql == NULL)
		return false;
	types[0] = storage_key_typoid(t->pk.type);
	types[1] = key_param_type(&t->sk);
	*item = NULL;
	run_delegated(sql, 2, types, values, nulls, NULL, NULL, item);
	return true;
}

/* A Query of a table partition from its start at the node holding the shard; false when not delegated. */
static bool
delegate_query(StTable *t, const StQueryRange *r, StRowCallback callback, void *arg)
{
	const char *sql = delegate_call(t, true);
	Oid			types[7];
	Datum		values[7];
	char		nulls[7] = {' ', ' ', 'n', ' ', 'n', ' ', 'n'};

	if (sql == NULL)
		return false;
	types[0] = storage_key_typoid(t->pk.type);
	types[1] = types[3] = INT4OID;
	types[2] = types[4] = key_param_type(&t->sk);
	types[5] = BOOLOID;
	types[6] = INT8OID;
	values[0] = r->pk;
	values[1] = Int32GetDatum((int32) r->lower_kind);
	values[2] = r->lower;
	values[3] = Int32GetDatum((int32) r->upper_kind);
	values[4] = r->upper;
	values[5] = BoolGetDatum(r->backward);
	values[6] = Int64GetDatum(r->limit);
	if (r->lower_kind != ST_BOUND_NONE)
		nulls[2] = ' ';
	if (r->upper_kind != ST_BOUND_NONE)
		nulls[4] = ' ';
	if (r->limit >= 0)
		nulls[6] = ' ';
	run_delegated(sql, 7, types, values, nulls, callback, arg, NULL);
	return true;
}

/*
 * The node's side of a delegated read (the functions' C part): the key
 * arguments must have the types of the table's key columns (the functions
 * are callable by anyone, with any arguments).
 */
void
storage_check_key_arg(StTable *t, bool sort_key, Oid argtype)
{
	const StKeyDef *k = sort_key ? &t->sk : &t->pk;
	Oid			want = sort_key ? key_param_type(k) : storage_key_typoid(k->type);

	if (argtype != want)
		st_error(ST_ERR_VALIDATION, "A key argument of type %s does not match the key attribute %s of table %s",
				 format_type_be(argtype), k->name ? k->name : "(none)", t->name);
}

Jsonb *
storage_delegated_get(StTable *t, const StKey *key, bool *direct)
{
	int64		before = shard_direct_reads;
	bool		was = in_delegated_read;
	Jsonb	   *item;

	in_delegated_read = true;
	PG_TRY();
	{
		item = storage_get(t, key);
	}
	PG_FINALLY();
	{
		in_delegated_read = was;
	}
	PG_END_TRY();
	*direct = shard_direct_reads > before;
	return item;
}

void
storage_delegated_query(StTable *t, const StQueryRange *r, StRowCallback callback, void *arg, bool *direct)
{
	int64		before = shard_direct_reads;
	bool		was = in_delegated_read;

	in_delegated_read = true;
	PG_TRY();
	{
		storage_query(t, NULL, r, callback, arg);
	}
	PG_FINALLY();
	{
		in_delegated_read = was;
	}
	PG_END_TRY();
	*direct = shard_direct_reads > before;
}

int64
storage_shard_delegated_reads(void)
{
	return shard_delegated_reads;
}

/* Does an item with the key exist (committed, or written by this transaction)? */
static bool
dist_key_exists(StTable *t, const StKey *key)
{
	Oid			types[2];
	Datum		values[2];
	int			n = key_args(t, key, types, values);
	bool		found;

	SPI_connect();
	if (SPI_execute_with_args(psprintf("SELECT true FROM %s WHERE %s", t->qualified, key_match_sql(t)),
							  n, types, values, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("read by key failed");
	found = SPI_processed > 0;
	SPI_finish();
	return found;
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

	storage_prevent_write("INSERT");
	if (t->distributed)
	{
		dist_upsert(t, item);
		storage_respect_key_locks(t, &item, 1);
		return;
	}
	if (key_layout_known(t) &&
		storage_row_upsert_many(t->relid, t->key_index, t->item_attnum, &item, 1, &probe))
	{
		storage_respect_key_locks(t, &item, 1);
		return;
	}
	SPI_connect();
	plan = CACHED_PLAN(t, &t->plan_upsert, upsert_sql(t, "VALUES ($1)"), 1, types);
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

	storage_prevent_write("INSERT");
	if (n == 0)
		return;
	/* one statement per item: each goes to the shard of its pk */
	if (t->distributed)
	{
		for (int i = 0; i < n; i++)
			dist_upsert(t, items[i]);
		storage_respect_key_locks(t, items, n);
		return;
	}
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
	plan = CACHED_PLAN(t, &t->plan_upsert_many, upsert_sql(t, "SELECT pg_catalog.unnest($1)"), 1, types);
	if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_INSERT)
		st_internal_error("put of many items failed");
	SPI_finish();
	storage_respect_key_locks(t, items, n);
}

bool
storage_insert_new_many(StTable *t, Jsonb **items, int n)
{
	storage_prevent_write("INSERT");
	if (n == 0)
		return true;
	if (!key_layout_known(t) ||
		!storage_row_insert_many(t->relid, t->key_index, t->item_attnum, items, n))
		return false;
	storage_respect_key_locks(t, items, n);
	return true;
}

static void flag_lock_tag(LOCKTAG *tag, StTable *t);

StStorageLoad *
storage_load_begin(StTable *t)
{
	storage_prevent_write("INSERT");
	if (!key_layout_known(t))
		return NULL;
	return storage_row_load_begin(t->relid, t->key_index, t->item_attnum);
}

void
storage_load(StStorageLoad *l, Jsonb **items, int n)
{
	storage_row_load(l, items, n);
}

bool
storage_load_dedupes(StStorageLoad *l)
{
	return storage_row_load_dedupes(l);
}

void
storage_load_end(StTable *t, StStorageLoad *l)
{
	LOCKTAG		flag;
	VirtualTransactionId *holders;

	storage_row_load_end(l);

	/*
	 * The keys' index entries are in place only now: a transaction holding
	 * absent keys of the relation may have taken them while they were not,
	 * and is waited for as a whole (the load no longer knows its keys; see
	 * storage_respect_key_locks).
	 */
	flag_lock_tag(&flag, t);
	holders = GetLockConflicts(&flag, RowExclusiveLock, NULL);
	for (int i = 0; VirtualTransactionIdIsValid(holders[i]); i++)
		(void) VirtualXactLock(holders[i], true);
	pfree(holders);
}

bool
storage_table_is_empty(StTable *t)
{
	Relation	rel;
	Relation	ind;
	IndexScanDesc scan;
	bool		empty;

	if (!key_layout_known(t))
		return false;
	rel = table_open(t->relid, AccessShareLock);
	ind = index_open(t->key_index, AccessShareLock);
	/* SnapshotAny: dead entries too, so that "empty" is never wrong */
	scan = st_index_beginscan(rel, ind, SnapshotAny, 0, 0);
	index_rescan(scan, NULL, 0, NULL, 0);
	empty = index_getnext_tid(scan, ForwardScanDirection) == NULL;
	index_endscan(scan);
	index_close(ind, NoLock);
	table_close(rel, NoLock);
	return empty;
}

bool
storage_insert(StTable *t, Jsonb *item, ItemPointer ctid)
{
	int			nest;
	Oid			types[1] = {JSONBOID};
	Datum		values[1] = {PointerGetDatum(item)};
	SPIPlanPtr	plan;
	bool		inserted;

	Oid			dtypes[3];
	Datum		dvalues[3];
	int			nargs = 1;
	Oid		   *argtypes = types;
	Datum	   *args = values;

	storage_prevent_write("INSERT");

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
	if (t->distributed)
	{
		nargs = dist_item_args(t, item, dtypes, dvalues);
		argtypes = dtypes;
		args = dvalues;
	}
	nest = dist_plans_begin(t);
	SPI_connect();
	plan = CACHED_PLAN(t, &t->plan_insert,
					t->distributed
					? psprintf("%s ON CONFLICT DO NOTHING RETURNING '(0,0)'::pg_catalog.tid", dist_insert_sql(t))
					: psprintf("INSERT INTO %s (item) VALUES ($1) ON CONFLICT DO NOTHING RETURNING ctid",
							   t->qualified),
					nargs, argtypes);
	if (SPI_execute_plan(plan, args, NULL, false, 0) != SPI_OK_INSERT_RETURNING)
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
	dist_plans_end(nest);
	if (inserted)
		storage_respect_key_locks(t, &item, 1);
	else
	{
		StKey		key;

		stored_item_key(t, item, &key);
		if (rls_hides_key(t, &key))
			hidden_key_error(t);
	}
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

	storage_prevent_write("UPDATE");
	if (t->distributed)
	{
		StKey		key;

		stored_item_key(t, item, &key);
		dist_write_by_key(t, &key, item);
		return true;
	}
	if (t->item_attnum > 0 && storage_row_update_allowed(t->relid))
		return storage_row_update(t->relid, t->item_attnum, ctid, item, true);
	SPI_connect();
	/* ONLY: a ctid names a row of this relation, not of an inheritance child */
	plan = CACHED_PLAN(t, &t->plan_update,
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
storage_delete_ctid(StTable *t, ItemPointer ctid, const StKey *key)
{
	Oid			types[1] = {TIDOID};
	Datum		values[1] = {PointerGetDatum(ctid)};
	SPIPlanPtr	plan;

	storage_prevent_write("DELETE");
	if (t->distributed)
	{
		dist_write_by_key(t, key, NULL);
		return;
	}
	if (t->item_attnum > 0 && storage_row_delete_allowed(t->relid))
	{
		storage_row_delete(t->relid, ctid, true);
		return;
	}
	SPI_connect();
	plan = CACHED_PLAN(t, &t->plan_delete,
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
	res = SPI_execute_with_args(psprintf("DELETE FROM %s%s WHERE %s", ONLY_KW(t), t->qualified, key_match_sql(t)),
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
	int			nest;
	Oid			types[2];
	Datum		values[2];
	int			n = key_args(t, key, types, values);
	SPIPlanPtr	plan;
	Jsonb	   *result;

	storage_prevent_write("DELETE");
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

	nest = dist_plans_begin(t);
	SPI_connect();
	plan = CACHED_PLAN(t, &t->plan_delete_returning,
					psprintf("DELETE FROM %s%s WHERE %s RETURNING item", ONLY_KW(t), t->qualified,
							 key_match_sql(t)),
					n, types);
	if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_DELETE_RETURNING)
		st_internal_error("delete failed");
	*deleted = SPI_processed > 0;
	result = want_old ? first_item(NULL) : NULL;
	SPI_finish();
	dist_plans_end(nest);
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
	scan = st_index_beginscan(rel, idx, &dirty, nkeys, 0);
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

/*
 * Row-level security: is there an item with the key that the transaction's
 * snapshot sees (in READ COMMITTED, a new snapshot) but that the role's own
 * read, under its policies, does not return?  Asked only once a write found
 * no item to read and the key index has the key.  Such an item is, for the
 * role, a missing item (as a row a policy hides is for a statement), but
 * its key is taken.  In READ COMMITTED the item may also have been
 * committed, or deleted, between two snapshots: the role's read comes
 * between two looks that see it, so that neither passes for a hidden item.
 */
static bool
key_visible(StTable *t, const StKey *key)
{
	Relation	rel = table_open(t->relid, AccessShareLock);
	Relation	idx = index_open(t->key_index, AccessShareLock);
	Snapshot	snapshot;
	ScanKeyData keys[2];
	int			nkeys = key_scan_keys(t, key, keys);
	IndexScanDesc scan;
	TupleTableSlot *slot;
	bool		found;

	snapshot = RegisterSnapshot(IsolationUsesXactSnapshot() ? GetTransactionSnapshot() :
								GetLatestSnapshot());
	scan = st_index_beginscan(rel, idx, snapshot, nkeys, 0);
	index_rescan(scan, keys, nkeys, NULL, 0);
	slot = table_slot_create(rel, NULL);
	found = index_getnext_slot(scan, ForwardScanDirection, slot);
	ExecDropSingleTupleTableSlot(slot);
	index_endscan(scan);
	UnregisterSnapshot(snapshot);
	index_close(idx, NoLock);
	table_close(rel, NoLock);
	return found;
}

static bool
rls_hides_key(StTable *t, const StKey *key)
{
	bool		readable;

	if (t->distributed || !OidIsValid(t->key_index) ||
		check_enable_rls(t->relid, InvalidOid, true) != RLS_ENABLED)
		return false;
	if (!key_visible(t, key))
		return false;
	/* the role's read, with a snapshot no older than the look's */
	PushActiveSnapshot(GetTransactionSnapshot());
	readable = read_by_key(t, key, NULL) != NULL;
	PopActiveSnapshot();
	return !readable && key_visible(t, key);
}

StKeyHold
storage_lock_absent_key(StTable *t, const StKey *key)
{
	LOCKTAG		flag;
	LOCKTAG		tag;

	storage_prevent_write("SELECT FOR UPDATE");
	/* the key index is what says whether a key exists */
	if (!OidIsValid(t->key_index) && !t->distributed)
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
		/*
		 * A distributed table: the shard's index is on a worker; an item
		 * being written by another transaction is not seen, and that
		 * writer waits for this lock once it has written (see
		 * storage_respect_key_locks) before it can commit.
		 */
		if (t->distributed)
			state = dist_key_exists(t, key) ? KEY_PRESENT : KEY_ABSENT;
		else
			state = key_state(t, key, &xwait, &spec_token);
		if (state == KEY_ABSENT)
			return ST_KEY_HELD;
		/* never wait for a writer while holding what it may wait for */
		LockRelease(&tag, ExclusiveLock, false);
		if (state == KEY_PRESENT)
		{
			/* there all along, but not for this role: missing, as for a statement */
			if (rls_hides_key(t, key))
				return ST_KEY_HIDDEN;
			/* committed since this transaction's snapshot was taken */
			if (IsolationUsesXactSnapshot())
				ereport(ERROR,
						(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
						 errmsg("could not serialize access due to concurrent insert")));
			return ST_KEY_EXISTS;
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

	if (ix && ix->multi)
		return query_multi_sql(t, ix, r, false, false);

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
	appendStringInfo(&sql, "SELECT item FROM %s%s WHERE %s " OP("=") " %s", ONLY_KW(t), t->qualified, pexpr,
					 param_key(pk->type, "$1"));
	/* Citus routes a query of one partition (of the table or an LSI) to its shard by pk */
	if (t->distributed && (ix ? ix->is_local : pk->type != AV_N))
		appendStringInfoString(&sql, " AND pk " OP("=") " $1");
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
static int64
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

	scan = st_index_beginscan(rel, idx, snapshot, nkeys, 0);
	index_rescan(scan, keys, nkeys, NULL, 0);
	slot = table_slot_create(rel, NULL);
	while ((r->limit < 0 || n < r->limit) &&
		   index_getnext_slot(scan, r->backward ? BackwardScanDirection : ForwardScanDirection, slot))
	{
		bool		isnull;
		Datum		d;
		bool		go_on;

		n++;
		if (callback == NULL)
			continue;			/* only counting */
		d = slot_getattr(slot, t->item_attnum, &isnull);
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
	return n;
}

/*
 * A multi-attribute GSI (catalog.h): the SELECT of a Query or Scan over its
 * btree.  A Query ($1 the values of the HASH attributes and of the first
 * multi_neq RANGE attributes, a typed map; $2 and $3 the bounds of the next
 * RANGE attribute) reads one range of the index: the partition column and
 * those RANGE attributes equal, the next one bounded.  A Scan (scan true)
 * reads the whole index in its order.  $4 the limit, $5 the start key (a
 * typed map: every key attribute of the index and of the table), after
 * which the read resumes, compared as a row with the index's columns.
 * A parallel Scan's segment (segmented): $6 the segment, $7 their number,
 * the items split by their table partition key as a Scan of the table
 * splits them (scan_sql), so that ExclusiveStartKey's segment is checked
 * alike.  Each parameter is cast to its type, so that the statement can be
 * PREPAREd as is (tests EXPLAIN it).
 */
static char *
query_multi_sql(StTable *t, StIndex *ix, const StQueryRange *r, bool scan, bool segmented)
{
	StringInfoData sql;
	StringInfoData left;
	StringInfoData right;
	const char *dir = r->backward ? " DESC" : "";
	int			first_free = scan ? 0 : ix->npk + r->multi_neq;
	const char *cond = " WHERE ";

	initStringInfo(&sql);
	initStringInfo(&left);
	initStringInfo(&right);
	appendStringInfo(&sql, "SELECT item FROM %s%s", ONLY_KW(t), t->qualified);
	if (!scan)
	{
		appendStringInfo(&sql, " WHERE %s " OP("=") " %s", multi_partition_expr(ix->npk, ix->keys, "item"),
						 multi_partition_expr(ix->npk, ix->keys, "$1::pg_catalog.jsonb"));
		cond = " AND ";
		for (int i = ix->npk; i < ix->npk + r->multi_neq; i++)
			appendStringInfo(&sql, " AND %s " OP("=") " %s", index_sort_expr(&ix->keys[i]),
							 index_sort_expr_src("$1::pg_catalog.jsonb", &ix->keys[i]));
		if (first_free < ix->npk + ix->nsk)
		{
			const StKeyDef *k = &ix->keys[first_free];
			const char *type = format_type_be_qualified(storage_key_typoid(k->type));

			if (r->lower_kind != ST_BOUND_NONE)
				appendStringInfo(&sql, " AND %s %s $2::%s", index_sort_expr(k), bound_op(r->lower_kind, true), type);
			if (r->upper_kind != ST_BOUND_NONE)
				appendStringInfo(&sql, " AND %s %s $3::%s", index_sort_expr(k), bound_op(r->upper_kind, false), type);
		}
	}
	appendStringInfo(&sql, "%s%s", cond, storage_index_keys_predicate(ix->npk, ix->nsk, ix->keys));
	if (segmented)
		appendStringInfoString(&sql, " AND (pg_catalog.hashtext(pk::pg_catalog.text) " OP("&")
							   " 2147483647) " OP("%") " $7::pg_catalog.int4 " OP("=") " $6::pg_catalog.int4");

	/* the order: the columns after those the condition fixes, then the table's key */
	if (scan)
	{
		appendStringInfoString(&left, multi_partition_expr(ix->npk, ix->keys, "item"));
		appendStringInfoString(&right, multi_partition_expr(ix->npk, ix->keys, "$5::pg_catalog.jsonb"));
	}
	for (int i = Max(first_free, ix->npk); i < ix->npk + ix->nsk; i++)
	{
		appendStringInfo(&left, "%s%s", left.len ? ", " : "", index_sort_expr(&ix->keys[i]));
		appendStringInfo(&right, "%s%s", right.len ? ", " : "", index_sort_expr_src("$5::pg_catalog.jsonb", &ix->keys[i]));
	}
	appendStringInfo(&left, "%s%s", left.len ? ", " : "", partition_expr("pk", t->pk.type));
	appendStringInfo(&right, ", %s",
					 partition_expr(attr_value_sql_src("$5::pg_catalog.jsonb", t->pk.name, t->pk.type), t->pk.type));
	if (t->sk.name)
	{
		appendStringInfoString(&left, ", sk");
		appendStringInfo(&right, ", %s", t->sk.type == AV_S
						 ? psprintf("(%s COLLATE pg_catalog.\"C\")",
									attr_value_sql_src("$5::pg_catalog.jsonb", t->sk.name, t->sk.type))
						 : attr_value_sql_src("$5::pg_catalog.jsonb", t->sk.name, t->sk.type));
	}
	if (r->start)
		appendStringInfo(&sql, " AND (%s) %s (%s)", left.data, r->backward ? OP("<") : OP(">"), right.data);
	appendStringInfoString(&sql, " ORDER BY ");
	{
		/* every column of the order, each with the direction */
		char	   *cols = pstrdup(left.data);
		char	   *c = cols;
		int			depth = 0;
		char	   *start = c;

		for (; *c; c++)
		{
			if (*c == '(')
				depth++;
			else if (*c == ')')
				depth--;
			else if (*c == ',' && depth == 0 && c[1] == ' ')
			{
				*c = '\0';
				appendStringInfo(&sql, "%s%s, ", start, dir);
				start = c + 2;
				c++;
			}
		}
		appendStringInfo(&sql, "%s%s", start, dir);
	}
	appendStringInfoString(&sql, " LIMIT $4::pg_catalog.int8");
	return sql.data;
}

/*
 * The slot of a multi-attribute GSI's plan (StPlanSet.multi, freed with the
 * catalog entry as every cached plan is): one per shape of query_multi_sql's
 * statement, a Scan or a Query by the number of RANGE attributes given with
 * =, its bounds, direction, start and segment.
 */
#define MULTI_PLAN_SLOTS ((ST_MAX_INDEX_RANGE_KEYS + 2) * ST_BOUND_KINDS * ST_BOUND_KINDS * 8)

static SPIPlanPtr *
multi_plan_slot(StIndex *ix, const StQueryRange *r, bool scan, bool segmented)
{
	int			shape = scan ? 0 : 1 + r->multi_neq;
	int			lower = scan ? 0 : (int) r->lower_kind;
	int			upper = scan ? 0 : (int) r->upper_kind;
	int			slot;

	if (ix->plans.multi == NULL)
		ix->plans.multi = MemoryContextAllocZero(TopMemoryContext, sizeof(SPIPlanPtr) * MULTI_PLAN_SLOTS);
	slot = ((((shape * ST_BOUND_KINDS + lower) * ST_BOUND_KINDS + upper) * 2 + (r->backward ? 1 : 0)) * 2
			+ (r->start ? 1 : 0)) * 2 + (segmented ? 1 : 0);
	Assert(slot >= 0 && slot < MULTI_PLAN_SLOTS);
	return &ix->plans.multi[slot];
}

/* Run a Query or Scan of a multi-attribute GSI (query_multi_sql), its plan cached per shape. */
static void
run_multi(StTable *t, StIndex *ix, const StQueryRange *r, bool scan, int segment, int total_segments,
		  StRowCallback callback, void *arg)
{
	Oid			types[7];
	Datum		values[7];
	char		nulls[7] = {'n', 'n', 'n', 'n', 'n', ' ', ' '};
	bool		segmented = total_segments > 1;
	MemoryContext caller = CurrentMemoryContext;
	int			free_key = scan ? -1 : ix->npk + r->multi_neq;
	SPIPlanPtr	plan;
	int			nest;

	types[0] = JSONBOID;
	types[1] = types[2] = free_key >= 0 && free_key < ix->npk + ix->nsk
		? storage_key_typoid(ix->keys[free_key].type) : TEXTOID;
	types[3] = INT8OID;
	types[4] = JSONBOID;
	types[5] = types[6] = INT4OID;
	memset(values, 0, sizeof(values));
	values[5] = Int32GetDatum(segment);
	values[6] = Int32GetDatum(Max(1, total_segments));
	if (!scan && r->multi_eq)
	{
		values[0] = JsonbPGetDatum(av_item_to_jsonb(r->multi_eq, true));
		nulls[0] = ' ';
	}
	if (!scan && r->lower_kind != ST_BOUND_NONE)
	{
		values[1] = r->lower;
		nulls[1] = ' ';
	}
	if (!scan && r->upper_kind != ST_BOUND_NONE)
	{
		values[2] = r->upper;
		nulls[2] = ' ';
	}
	if (r->limit >= 0)
	{
		values[3] = Int64GetDatum(r->limit);
		nulls[3] = ' ';
	}
	if (r->start && r->start->key)
	{
		values[4] = JsonbPGetDatum(av_item_to_jsonb(r->start->key, true));
		nulls[4] = ' ';
	}
	nest = dist_plans_begin(t);
	SPI_connect();
	/* a generic plan, as the other key reads' (get_plan): one index range scan whatever the values */
	plan = CACHED_PLAN(t, multi_plan_slot(ix, r, scan, segmented), query_multi_sql(t, ix, r, scan, segmented),
					   segmented ? 7 : 5, types);
	run_cursor(plan, values, nulls, caller, callback, arg);
	SPI_finish();
	dist_plans_end(nest);
}

static void
query_multi(StTable *t, StIndex *ix, const StQueryRange *r, StRowCallback callback, void *arg)
{
	run_multi(t, ix, r, false, 0, 1, callback, arg);
}

void
storage_query(StTable *t, StIndex *ix, const StQueryRange *r,
			  StRowCallback callback, void *arg)
{
	bool		pushed;
	StTable    *shard;

	if (ix && ix->multi)
	{
		pushed = begin_read();
		query_multi(t, ix, r, callback, arg);
		end_read(pushed);
		return;
	}
	pushed = begin_read();
	shard = (ix == NULL && r->start == NULL) ? local_shard(t, r->pk, ACL_SELECT) : NULL;

	if (shard)
		(void) scan_key_space(shard, NULL, r, callback, arg);
	else if (t->distributed && ix == NULL && r->start == NULL && delegate_query(t, r, callback, arg))
		;
	else if (r->start == NULL && OidIsValid(ix ? ix->index_oid : t->key_index) && t->item_attnum > 0 &&
			 !t->distributed && storage_direct_ok(t->relid, ACL_SELECT))
		(void) scan_key_space(t, ix, r, callback, arg);
	else
		storage_query_spi(t, ix, r, callback, arg);
	end_read(pushed);
}

static void
storage_query_spi(StTable *t, StIndex *ix, const StQueryRange *r,
			  StRowCallback callback, void *arg)
{
	int			nest;
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

	nest = dist_plans_begin(t);
	SPI_connect();
	plan = CACHED_PLAN(t, &ps->query[r->lower_kind][r->upper_kind][r->backward ? 1 : 0][r->start ? 1 : 0],
					storage_query_sql(t, ix, r), 7, types);
	run_cursor(plan, values, nulls, caller, callback, arg);
	SPI_finish();
	dist_plans_end(nest);
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
	appendStringInfo(&sql, "SELECT item FROM %s%s", ONLY_KW(t), t->qualified);
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
	int			nest;
	StPlanSet  *ps = ix ? &ix->plans : &t->plans;
	Oid			types[7];
	Datum		values[7];
	char		nulls[7] = {'n', 'n', 'n', 'n', 'n', 'n', 'n'};
	MemoryContext caller = CurrentMemoryContext;
	bool		segmented = r->total_segments > 1;
	SPIPlanPtr	plan;
	bool		pushed;

	if (ix && ix->multi)
	{
		StQueryRange qr;

		/* a parallel Scan: each segment the index's items of some table partitions, in the index's order */
		memset(&qr, 0, sizeof(qr));
		qr.limit = r->limit;
		qr.start = r->start;
		pushed = begin_read();
		run_multi(t, ix, &qr, true, r->segment, r->total_segments, callback, arg);
		end_read(pushed);
		return;
	}

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
	nest = dist_plans_begin(t);
	SPI_connect();
	plan = CACHED_PLAN(t, &ps->scan[r->start ? 1 : 0][segmented ? 1 : 0],
					scan_sql(t, ix, r->start != NULL, segmented), 7, types);
	run_cursor(plan, values, nulls, caller, callback, arg);
	SPI_finish();
	dist_plans_end(nest);
	end_read(pushed);
}

/*
 * Time to live: up to `limit` items whose attribute `attr` is a Number
 * (stored {"N": "..."}) with oldest <= value < now, locked FOR UPDATE and
 * skipping the items other transactions hold (those wait for the next
 * round), copied into the caller's context.  In READ COMMITTED an item
 * changed meanwhile is rechecked against the condition once locked, so an
 * item given a later expiry is not returned.  The condition is on the
 * keys of the table's time-to-live index (the shard, the expiry's second)
 * and on stdesign.ttl_expiry: a range scan per shard of the expired items
 * alone where the index is there (the planner's choice; a table enabled
 * before the index existed is read whole, with the same condition).
 * Returns how many.
 *
 * A Citus distributed table: unlocked candidates, every shard asked (Citus
 * runs no row-locking statement over several shards); the caller deletes
 * each by a conditional delete of its own, routed to its shard, which locks
 * the item and checks the expiry again, waiting for a transaction that
 * holds it instead of skipping it (docs/citus.md).
 */
int
storage_expired_items(StTable *t, const char *attr, Datum now, Datum oldest, int limit,
					  Jsonb ***items)
{
	Oid			types[3] = {NUMERICOID, NUMERICOID, INT4OID};
	Datum		values[3];
	MemoryContext caller = CurrentMemoryContext;
	char	   *e = ttl_expiry_sql(attr);
	char	   *second = ttl_second_sql(attr);
	StringInfoData shards;
	char	   *sql;
	int			count;

	storage_prevent_write("DELETE");

	values[0] = now;
	values[1] = oldest;
	values[2] = Int32GetDatum(limit);
	/*
	 * Each shard's range of seconds from the index (floor(v) <= floor(now)
	 * and floor(v) >= floor(oldest) are necessary), the exact bounds checked
	 * on the items; an index over the expiry alone takes the latter.
	 */
	initStringInfo(&shards);
	for (int i = 0; i < STORAGE_TTL_SHARDS; i++)
		appendStringInfo(&shards, "%s%d", i ? "," : "", i);
	sql = psprintf("SELECT item FROM %s WHERE %s " OP("=") " ANY ('{%s}'::pg_catalog.int4[])"
				   " AND %s " OP("<=") " CAST(pg_catalog.floor($1) AS pg_catalog.int8)"
				   " AND %s " OP(">=") " CAST(pg_catalog.floor($2) AS pg_catalog.int8)"
				   " AND %s " OP("<") " $1 AND %s " OP(">=") " $2 LIMIT $3%s",
				   t->qualified, ttl_shard_sql(t->sk.name != NULL), shards.data,
				   second, second, e, e, t->distributed ? "" : " FOR UPDATE SKIP LOCKED");
	SPI_connect();
	if (SPI_execute_with_args(sql, 3, types, values, NULL, false, 0) != SPI_OK_SELECT)
		st_internal_error("could not read the expired items of table %s", t->name);
	count = (int) SPI_processed;
	{
		MemoryContext spi = MemoryContextSwitchTo(caller);

		*items = palloc(sizeof(Jsonb *) * Max(count, 1));
		for (int i = 0; i < count; i++)
		{
			bool		isnull;
			Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);

			(*items)[i] = isnull ? NULL : DatumGetJsonbPCopy(d);
		}
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	return count;
}

/*
 * How many items the partition of pk holds, counting at most limit: the
 * key index's range, read without the items (an index-only scan where the
 * visibility map allows).  For the item collection limit's first pass.
 */
int64
storage_partition_count(StTable *t, Datum pk, int64 limit)
{
	Oid			types[2] = {storage_key_typoid(t->pk.type), INT8OID};
	Datum		values[2] = {pk, Int64GetDatum(limit)};
	char	   *param = t->pk.type == AV_N ? "$1" : "stdesign.key_ix($1)";
	SPIPlanPtr	plan;
	int64		count = 0;
	bool		isnull;

	/* directly, as a query reads (scan_key_space), where nothing forbids it */
	if (!t->distributed && key_layout_known(t) && storage_direct_ok(t->relid, ACL_SELECT))
	{
		StQueryRange r;
		bool		pushed = begin_read();

		memset(&r, 0, sizeof(r));
		r.pk = pk;
		r.limit = limit;
		count = scan_key_space(t, NULL, &r, NULL, NULL);
		end_read(pushed);
		return count;
	}
	SPI_connect();
	plan = CACHED_PLAN(t, &t->plan_partition_count,
					   psprintf("SELECT pg_catalog.count(*) FROM (SELECT FROM %s WHERE %s " OP("=") " %s LIMIT $2) s",
								t->qualified, partition_expr("pk", t->pk.type), param),
					   2, types);
	if (SPI_execute_plan(plan, values, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		st_internal_error("could not count the items of a partition of table %s", t->name);
	count = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	return count;
}
