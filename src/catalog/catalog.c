/*-------------------------------------------------------------------------
 *
 * catalog.c
 *		catalog_lookup: table definitions from stdesign.tables and
 *		stdesign.indexes, cached per backend.
 *
 * Cache entries live in their own memory contexts under CacheMemoryContext
 * and are keyed by the DynamoDB table name.  A relcache invalidation of a
 * data relation marks its entry invalid (an index was added or dropped, or
 * the table was dropped); an invalidation of stdesign.tables, which
 * st_create_table and st_drop_table send, marks every entry invalid and
 * forgets the default table.  Invalid entries are rebuilt on next use,
 * their relation's layout checked again (catalog_layout_problem), and the
 * old definition with its prepared plans freed once no caller holds it:
 * catalog_lookup pins a definition for as long as the caller's memory
 * context lives, because a user trigger on the table may call st_* on it
 * while an outer call is still executing the old definition's plans.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "common/cryptohash.h"
#include "common/hashfn.h"
#include "common/sha2.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "access/table.h"
#include "utils/rel.h"

#include "st_catalog.h"
#include "common/st_common.h"
#include "st_layout.h"
#include "common/st_inval.h"

char	   *st_default_table_guc = NULL;

/* A hash slot: a DynamoDB table name and its current definition. */
typedef struct CacheSlot
{
	char		name[ST_TABLE_NAME_MAX + 1];	/* hash key */
	StTable    *table;			/* NULL until loaded */
} CacheSlot;

/* A pin of a definition by a caller's memory context (see pin_table). */
typedef struct TablePin
{
	MemoryContextCallback cb;
	StTable    *table;
	MemoryContext cxt;
} TablePin;

static HTAB *table_cache = NULL;
static StTable *retired_tables = NULL;	/* replaced, still pinned */
static char *cached_default = NULL;	/* in CacheMemoryContext */
static bool default_valid = false;
static Oid	catalog_relid = InvalidOid;	/* stdesign.tables, once known */
static int64 catalog_loads = 0;	/* catalog reads by this backend, for tests */
static int64 kept_in_use = 0;	/* definitions replaced while in use, for tests */

/*
 * catalog_sql_is_0_1_0's answer once known (-1: not known), forgotten with
 * every invalidation of stdesign.tables (ALTER EXTENSION UPDATE adds its
 * key_index column; DROP EXTENSION drops it); catalog_invals counts those
 * invalidations, so that an answer computed while one arrived is not kept.
 */
static int	sql_is_0_1_0 = -1;
static uint64 catalog_invals = 0;

static void
free_plan(SPIPlanPtr plan)
{
	if (plan)
		SPI_freeplan(plan);
}

/* The slots of StPlanSet.multi (storage.c's multi_plan_slot). */
#define MULTI_PLAN_SLOTS ((ST_MAX_INDEX_RANGE_KEYS + 2) * ST_BOUND_KINDS * ST_BOUND_KINDS * 8)

static void
free_planset(StPlanSet *ps)
{
	if (ps->multi)
	{
		for (int i = 0; i < MULTI_PLAN_SLOTS; i++)
			free_plan(ps->multi[i]);
		pfree(ps->multi);
		ps->multi = NULL;
	}
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			free_plan(ps->scan[i][j]);
	for (int i = 0; i < ST_BOUND_KINDS; i++)
		for (int j = 0; j < ST_BOUND_KINDS; j++)
			for (int k = 0; k < 2; k++)
				for (int l = 0; l < 2; l++)
					free_plan(ps->query[i][j][k][l]);
}

/* Free a definition no one uses any more: its plans, then its memory (itself included). */
static void
free_table(StTable *t)
{
	free_plan(t->plan_get);
	free_plan(t->plan_get_for_update);
	free_plan(t->plan_upsert);
	free_plan(t->plan_upsert_many);
	free_plan(t->plan_insert);
	free_plan(t->plan_update);
	free_plan(t->plan_delete);
	free_plan(t->plan_delete_returning);
	free_plan(t->plan_partition_count);
	free_planset(&t->plans);
	for (int i = 0; i < t->nindexes; i++)
		free_planset(&t->indexes[i].plans);
	MemoryContextDelete(t->cxt);
}

/*
 * A definition replaced by a newer one: freed now if no caller holds it,
 * else when the last one lets go.  A user trigger on a table can call st_*
 * on that same table while an outer call on it is executing one of its
 * plans: if an invalidation arrived in between, the nested call loads a
 * new definition, and the outer one must still find its plans and memory
 * where they were.
 */
static void
retire_table(StTable *t)
{
	t->valid = false;
	if (t->pins == 0)
	{
		free_table(t);
		return;
	}
	kept_in_use++;
	t->retired = true;
	t->next_retired = retired_tables;
	retired_tables = t;
}

/*
 * Free the retired definitions no one holds any more.  Not done from the
 * memory-context callbacks that unpin them: those run while contexts are
 * being reset, error recovery included, where freeing plans is no place
 * to be.
 */
static void
free_unpinned(void)
{
	StTable   **link = &retired_tables;

	while (*link)
	{
		StTable    *t = *link;

		if (t->pins > 0)
		{
			link = &t->next_retired;
			continue;
		}
		*link = t->next_retired;
		free_table(t);
	}
}

static void
unpin_table(void *arg)
{
	TablePin   *pin = (TablePin *) arg;

	pin->table->pins--;
	if (pin->table->pin_cxt == pin->cxt)
		pin->table->pin_cxt = NULL;
}

/*
 * Hold t for as long as the caller's current memory context lives: every
 * caller uses a definition within the call that looked it up, and its
 * context is reset only after that call returns.  One pin per context is
 * enough (a statement calling st_get a million times pins once per row,
 * in the row's context).
 */
static void
pin_table(StTable *t)
{
	TablePin   *pin;

	if (t->pin_cxt == CurrentMemoryContext)
		return;
	pin = MemoryContextAlloc(CurrentMemoryContext, sizeof(TablePin));
	pin->table = t;
	pin->cxt = CurrentMemoryContext;
	pin->cb.func = unpin_table;
	pin->cb.arg = pin;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &pin->cb);
	t->pins++;
	t->pin_cxt = CurrentMemoryContext;
}

static void
catalog_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PREPARE)
		free_unpinned();
}

static void
relcache_callback(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	CacheSlot  *slot;
	bool		all;

	if (table_cache == NULL)
		return;
	all = relid == InvalidOid || relid == catalog_relid;
	if (all)
	{
		default_valid = false;
		catalog_relid = InvalidOid;
		sql_is_0_1_0 = -1;
		catalog_invals++;
	}

	/*
	 * Only mark entries invalid here: freeing plans inside an invalidation
	 * callback is not safe, since one may be executing.
	 */
	hash_seq_init(&status, table_cache);
	while ((slot = hash_seq_search(&status)) != NULL)
	{
		if (slot->table && (all || slot->table->relid == relid))
			slot->table->valid = false;
	}
}

void
catalog_init(void)
{
	HASHCTL		ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = ST_TABLE_NAME_MAX + 1;
	ctl.entrysize = sizeof(CacheSlot);
	ctl.hcxt = CacheMemoryContext;
	table_cache = hash_create("stdesign table cache", 16, &ctl,
							  HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	st_relcache_callback(relcache_callback, (Datum) 0);
	RegisterXactCallback(catalog_xact_callback, NULL);
}

void
catalog_invalidate_all(void)
{
	Oid			nsp = get_namespace_oid("stdesign", false);
	Oid			relid = get_relname_relid("tables", nsp);

	if (OidIsValid(relid))
		CacheInvalidateRelcacheByRelid(relid);
}

/* ---------- names ---------- */

void
catalog_check_name(const char *name, const char *what, int maxlen)
{
	int			len = strlen(name);

	if (len < 3)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 3",
				 name, what);
	if (len > maxlen)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to %d",
				 name, what, maxlen);
	for (int i = 0; i < len; i++)
	{
		char		c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '_' || c == '-' || c == '.'))
			st_error(ST_ERR_VALIDATION,
					 "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
					 name, what);
	}
}

/* DynamoDB's message for a TableName ARN of the wrong form (value, path). */
#define ST_ARN_FORMAT_ERROR "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Valid ARN format is 'arn:<awsPartition>:<vendor>:<region>:<subscriber>:resourceType/resourceName', where Resource name must have length less than or equal to 255, Resource name must have length greater than or equal to 3, Resource name must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"

/*
 * Table ARNs.  A table's ARN is arn:aws:dynamodb:<region>:<account>:table/
 * <name>, with this server's region and account (ST_ARN_PREFIX: stdesign
 * has neither, so they are fixed).  DynamoDB accepts a table's ARN wherever
 * it takes a TableName ("You can also provide the Amazon Resource Name
 * (ARN) of the table in this parameter", API reference, e.g. PutItem).
 */
bool
catalog_is_arn(const char *name)
{
	return strncmp(name, "arn:", 4) == 0;
}

char *
catalog_table_arn(const char *table_name)
{
	return psprintf("%s%s", ST_ARN_PREFIX, table_name);
}

/*
 * The table an ARN names, or NULL when it is not the ARN of a table of this
 * server (another service, region or account, an index's or a stream's).
 */
const char *
catalog_arn_table(const char *arn)
{
	size_t		n = strlen(ST_ARN_PREFIX);

	if (strncmp(arn, ST_ARN_PREFIX, n) != 0 || arn[n] == '\0' || strchr(arn + n, '/') != NULL)
		return NULL;
	return arn + n;
}

/*
 * A TableName given as an ARN, checked as DynamoDB checks it, in its words:
 * arn:<partition>:<vendor>:<region>:<account>:table/<name>, of partition
 * aws, this server's region and account, a table (not an index's or a
 * stream's ARN) whose name keeps the name's rules.  Another account's table
 * is no table here (ResourceNotFoundException; DynamoDB would ask that
 * account's permission).
 */
static const char *
arn_table_name(const char *arn, const char *what)
{
	const char *field[6];
	int			nfields = 0;
	const char *name;
	size_t		len;

	field[nfields++] = arn;
	for (const char *c = arn; *c && nfields < 6; c++)
		if (*c == ':')
			field[nfields++] = c + 1;
#define ARN_FIELD_IS(i, text) (strncmp(field[i], text ":", strlen(text) + 1) == 0)
	if (nfields < 6 || field[5][0] == '\0')
		st_error(ST_ERR_VALIDATION, ST_ARN_FORMAT_ERROR, arn, what);
	if (!ARN_FIELD_IS(1, "aws"))
		st_error(ST_ERR_VALIDATION, "1 validation error detected: Invalid AWS partition in '%s'", arn);
	if (!ARN_FIELD_IS(2, "dynamodb") || strncmp(field[5], "table/", 6) != 0)
		st_error(ST_ERR_VALIDATION, "1 validation error detected: Invalid resource type in '%s'", arn);
	if (!ARN_FIELD_IS(3, ST_ARN_REGION))
		st_error(ST_ERR_VALIDATION, "1 validation error detected: Invalid AWS region in '%s'", arn);
#undef ARN_FIELD_IS
	name = field[5] + 6;
	len = strlen(name);
	if (len < 3 && strchr(name, '/') == NULL)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Table name of ARN must have length greater than or equal to 3",
				 arn, what);
	if (len > ST_TABLE_NAME_MAX || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != len)
		st_error(ST_ERR_VALIDATION, ST_ARN_FORMAT_ERROR, arn, what);
	if (strncmp(field[4], ST_ARN_ACCOUNT ":", strlen(ST_ARN_ACCOUNT) + 1) != 0)
		st_error(ST_ERR_RESOURCE_NOT_FOUND, "Requested resource not found: Table: %s not found", name);
	return name;
}

const char *
catalog_table_name(const char *name_or_arn, const char *what)
{
	if (catalog_is_arn(name_or_arn))
		return arn_table_name(name_or_arn, what);
	catalog_check_name(name_or_arn, what, ST_TABLE_NAME_MAX);
	return name_or_arn;
}

/*
 * Names in schema stdesign_data.  Relations and indexes share one namespace
 * there, so each kind of object gets its own readable form that no other
 * kind can take: a table's is its name ([A-Za-z0-9_.-] only), its key
 * index's the name followed by ":key", a secondary index's the table's and
 * the index's names joined by "/".  A readable form that fits in a Postgres
 * identifier (63 bytes) is used as is; a longer one is cut to 30 bytes and
 * followed by "#" and 32 hex digits of the SHA-256 of the whole form, so
 * that two forms share a name only if their SHA-256 share 128 bits.  The
 * hashed form is also the way out when the readable one is taken (by a
 * relation of an older version of stdesign, or one restored without its
 * catalog rows): no readable form contains "#".  The names chosen are
 * recorded in the catalog and never derived again, so tables created by
 * older versions keep theirs.
 */
char *
catalog_pg_name(const char *readable, bool hashed)
{
	int			len = strlen(readable);
	uint8		digest[PG_SHA256_DIGEST_LENGTH];
	char		hex[33];
	pg_cryptohash_ctx *ctx;

	if (!hashed && len < NAMEDATALEN)
		return pstrdup(readable);
	ctx = pg_cryptohash_create(PG_SHA256);
	if (pg_cryptohash_init(ctx) < 0 ||
		pg_cryptohash_update(ctx, (const uint8 *) readable, len) < 0 ||
		pg_cryptohash_final(ctx, digest, sizeof(digest)) < 0)
		st_internal_error("could not compute SHA-256: %s", pg_cryptohash_error(ctx));
	pg_cryptohash_free(ctx);
	hex_encode((const char *) digest, 16, hex);
	hex[32] = '\0';
	return psprintf("%.30s#%s", readable, hex);
}

char *
catalog_key_index_form(const char *table_name)
{
	return psprintf("%s:key", table_name);
}

char *
catalog_index_form(const char *table_name, const char *index_name)
{
	return psprintf("%s/%s", table_name, index_name);
}

char *
catalog_ttl_index_form(const char *table_name)
{
	return psprintf("%s:ttl", table_name);
}

/* ---------- loading ---------- */

static AvType
key_type(const char *t)
{
	if (t == NULL)
		return AV_S;
	if (t[0] == 'N')
		return AV_N;
	if (t[0] == 'B')
		return AV_B;
	return AV_S;
}

static char *
spi_text(HeapTuple tup, TupleDesc desc, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(tup, desc, col, &isnull);

	return isnull ? NULL : TextDatumGetCString(d);
}

/*
 * A query on the catalog tables under the latest snapshot, as Postgres reads
 * its own catalogs: a definition must describe the relation as it is now,
 * once locked, not as the transaction's snapshot saw it.  Under REPEATABLE
 * READ the transaction's snapshot may predate an index dropped or a table
 * deleted by a transaction this one waited for (its lock), which would
 * describe a relation that no longer exists.
 */
static int
catalog_query(const char *sql, Datum arg, long tcount)
{
	Oid			argtype = TEXTOID;
	SPIPlanPtr	plan = SPI_prepare(sql, 1, &argtype);
	int			rc;

	if (plan == NULL)
		st_internal_error("could not prepare a query on the catalog: %s", SPI_result_code_string(SPI_result));
	/*
	 * A parallel worker (of st_import_file) cannot take a new snapshot: it
	 * reads with its leader's, the leader holding the relation's lock.
	 */
	rc = SPI_execute_snapshot(plan, &arg, NULL,
							  IsInParallelMode() ? GetTransactionSnapshot() : GetLatestSnapshot(),
							  InvalidSnapshot, true, false, tcount);
	SPI_freeplan(plan);
	return rc;
}

/*
 * An index's key attributes (StIndex.keys): from key_schema's arrays when
 * it has them (a multi-attribute GSI), else its pk and sk.  A row that
 * does not hold together (edited by hand) is an internal error.
 */
static void
load_index_keys(StIndex *ix, Datum names_d, bool names_null, Datum kinds_d, bool kinds_null)
{
	Datum	   *names = NULL;
	Datum	   *kinds = NULL;
	int			n = 0,
				nk = 0;

	if (!names_null && !kinds_null)
	{
		deconstruct_array(DatumGetArrayTypeP(names_d), TEXTOID, -1, false, TYPALIGN_INT, &names, NULL, &n);
		deconstruct_array(DatumGetArrayTypeP(kinds_d), TEXTOID, -1, false, TYPALIGN_INT, &kinds, NULL, &nk);
	}
	if (n == 0)
	{
		ix->npk = 1;
		ix->nsk = ix->sk.name ? 1 : 0;
		ix->keys = palloc0(sizeof(StKeyDef) * 2);
		ix->keys[0] = ix->pk;
		ix->keys[1] = ix->sk;
		ix->multi = false;
		return;
	}
	if (n != nk || n > ST_MAX_INDEX_KEYS)
		st_internal_error("the key_schema of index %s in stdesign.indexes is not valid", ix->name);
	ix->keys = palloc0(sizeof(StKeyDef) * n);
	ix->npk = ix->nsk = 0;
	for (int i = 0; i < n; i++)
	{
		char	   *name = TextDatumGetCString(names[i]);
		char	   *kind = TextDatumGetCString(kinds[i]);
		bool		hash = strlen(kind) == 2 && kind[1] == 'H';

		if (strlen(kind) != 2 || (!hash && kind[1] != 'R') || (hash && ix->nsk > 0) ||
			(kind[0] != 'S' && kind[0] != 'N' && kind[0] != 'B'))
			st_internal_error("the key_schema of index %s in stdesign.indexes is not valid", ix->name);
		ix->keys[i].name = name;
		ix->keys[i].type = key_type(kind);
		if (hash)
			ix->npk++;
		else
			ix->nsk++;
	}
	if (ix->npk < 1 || ix->npk > ST_MAX_INDEX_HASH_KEYS || ix->nsk > ST_MAX_INDEX_RANGE_KEYS ||
		strcmp(ix->keys[0].name, ix->pk.name) != 0 || ix->keys[0].type != ix->pk.type ||
		(ix->nsk > 0) != (ix->sk.name != NULL) ||
		(ix->nsk > 0 && (strcmp(ix->keys[ix->npk].name, ix->sk.name) != 0 ||
						 ix->keys[ix->npk].type != ix->sk.type)))
		st_internal_error("the key_schema of index %s in stdesign.indexes is not valid", ix->name);
	ix->multi = ix->npk > 1 || ix->nsk > 1;
}

static void
load_indexes(StTable *t)
{
	MemoryContext old;

	/*
	 * key_schema (NULL: one HASH attribute, pk_name, and at most one RANGE,
	 * sk_name) as two arrays in key order: names, and type letter followed
	 * by H or R.  A 0.1.0 catalog has no such column.
	 */
	if (catalog_query(psprintf("SELECT index_name, is_local, pk_name, pk_type, sk_name, sk_type,"
							   " projection_type, non_key_attributes::pg_catalog.text[], pg_index, %s"
							   " FROM stdesign.indexes WHERE table_name OPERATOR(pg_catalog.=) $1"
							   " ORDER BY created_at, index_name",
							   catalog_sql_is_0_1_0()
							   ? "NULL::pg_catalog.text[], NULL::pg_catalog.text[]"
							   : "(SELECT pg_catalog.array_agg(e OPERATOR(pg_catalog.->>) 'AttributeName' ORDER BY o)"
							   " FROM pg_catalog.jsonb_array_elements(key_schema) WITH ORDINALITY AS x(e, o)),"
							   " (SELECT pg_catalog.array_agg((e OPERATOR(pg_catalog.->>) 'AttributeType')"
							   " OPERATOR(pg_catalog.||) pg_catalog.left(e OPERATOR(pg_catalog.->>) 'KeyType', 1) ORDER BY o)"
							   " FROM pg_catalog.jsonb_array_elements(key_schema) WITH ORDINALITY AS x(e, o))"),
					  CStringGetTextDatum(t->name), 0) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.indexes");

	old = MemoryContextSwitchTo(t->cxt);
	t->nindexes = SPI_processed;
	t->indexes = palloc0(sizeof(StIndex) * Max(1, SPI_processed));
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		StIndex    *ix = &t->indexes[i];
		char	   *proj;
		bool		isnull;
		Datum		nk;
		Datum		names,
					kinds;
		bool		names_null,
					kinds_null;

		ix->name = spi_text(tup, desc, 1);
		ix->is_local = DatumGetBool(SPI_getbinval(tup, desc, 2, &isnull));
		ix->pk.name = spi_text(tup, desc, 3);
		ix->pk.type = key_type(spi_text(tup, desc, 4));
		ix->sk.name = spi_text(tup, desc, 5);
		ix->sk.type = key_type(spi_text(tup, desc, 6));
		proj = spi_text(tup, desc, 7);
		ix->projection = strcmp(proj, "KEYS_ONLY") == 0 ? ST_PROJECT_KEYS_ONLY :
			strcmp(proj, "INCLUDE") == 0 ? ST_PROJECT_INCLUDE : ST_PROJECT_ALL;
		nk = SPI_getbinval(tup, desc, 8, &isnull);
		if (!isnull)
		{
			ArrayType  *arr = DatumGetArrayTypeP(nk);
			Datum	   *elems;
			bool	   *nulls;
			int			n;

			deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
			ix->n_non_key = n;
			ix->non_key_attributes = palloc(sizeof(char *) * Max(1, n));
			for (int j = 0; j < n; j++)
				ix->non_key_attributes[j] = TextDatumGetCString(elems[j]);
		}
		ix->pg_index = spi_text(tup, desc, 9);
		names = SPI_getbinval(tup, desc, 10, &names_null);
		kinds = SPI_getbinval(tup, desc, 11, &kinds_null);
		load_index_keys(ix, names, names_null, kinds, kinds_null);
	}
	MemoryContextSwitchTo(old);
}

/*
 * Whether the extension's SQL objects are still those of 0.1.0: between
 * installing a new library and ALTER EXTENSION stdesign UPDATE, the old
 * catalog tables are read and written as 0.1.0 did (no key_index, no
 * table_id, tokens without a role), so that nothing breaks meanwhile.
 */
bool
catalog_sql_is_0_1_0(void)
{
	uint64		invals;
	Oid			nsp;
	Oid			relid;
	bool		old;

	if (table_cache == NULL)
		catalog_init();
	if (sql_is_0_1_0 >= 0)
		return sql_is_0_1_0 == 1;

	/* the lookups may process invalidations: keep the answer only if none came */
	invals = catalog_invals;
	nsp = get_namespace_oid("stdesign", true);
	relid = OidIsValid(nsp) ? get_relname_relid("tables", nsp) : InvalidOid;
	/* no stdesign.tables: not kept, no invalidation would say when it appears */
	if (!OidIsValid(relid))
		return false;
	old = get_attnum(relid, "key_index") == InvalidAttrNumber;
	if (invals == catalog_invals)
	{
		catalog_relid = relid;
		sql_is_0_1_0 = old ? 1 : 0;
	}
	return old;
}

/* A new, empty definition in a memory context of its own. */
static StTable *
new_table(MemoryContext parent)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "stdesign table",
											  ALLOCSET_SMALL_SIZES);
	StTable    *t = MemoryContextAllocZero(cxt, sizeof(StTable));

	t->cxt = cxt;
	return t;
}

/*
 * A lock stronger than a reader's is for a change of the table, which only
 * its relation's owner may make (docs/security.md): anyone else is
 * refused before it waits for the lock, which would hold up every reader
 * and writer queued behind it, as Postgres's DDL checks ownership before
 * it locks.  A relation already gone is left to the lock's own check.
 */
static void
check_owner_before_lock(Oid relid, LOCKMODE mode)
{
	HeapTuple	tup;
	Form_pg_class form;

	if (mode <= AccessShareLock)
		return;
	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		return;
	form = (Form_pg_class) GETSTRUCT(tup);
	if (!superuser() && !has_privs_of_role(GetUserId(), form->relowner))
	{
		char	   *relname = pstrdup(NameStr(form->relname));

		ReleaseSysCache(tup);
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, relname);
	}
	ReleaseSysCache(tup);
}

/*
 * Lock a table's relation (as a reader, or in the mode a change of the
 * table needs), then see that it still exists: a session that waited here
 * for a DROP TABLE (st_drop_table, DeleteTable) to commit finds it gone,
 * and the table with it.  A change takes its own mode at once, never an
 * AccessShareLock first: two DeleteTables of one table that both held it
 * would each wait for the other to let go (a deadlock).
 */
static bool
lock_relation(Oid relid, LOCKMODE mode)
{
	check_owner_before_lock(relid, mode);
	LockRelationOid(relid, mode);
	return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid));
}

/*
 * Fill t from the catalog row whose `key_column` (table_name or
 * relation_name) is `key`; false when there is none, or its relation is
 * gone.  The relation is locked.
 */
static bool
load_definition(StTable *t, const char *key_column, const char *key, LOCKMODE mode)
{
	HeapTuple	tup;
	TupleDesc	desc;
	MemoryContext old;
	char	   *key_index;

	catalog_loads++;
	/* a 0.1.0 catalog has no key_index: its key index has 0.1.0's name */
	if (catalog_query(psprintf("SELECT relation_name, pk_name, pk_type, sk_name, sk_type, table_name, %s"
							   " FROM stdesign.tables WHERE %s OPERATOR(pg_catalog.=) $1",
							   catalog_sql_is_0_1_0() ? "NULL::pg_catalog.text" : "key_index",
							   key_column),
					  CStringGetTextDatum(key), 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.tables");
	if (SPI_processed != 1)
		return false;

	old = MemoryContextSwitchTo(t->cxt);
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	strlcpy(t->name, spi_text(tup, desc, 6), sizeof(t->name));
	t->relname = spi_text(tup, desc, 1);
	t->qualified = psprintf("%s.%s", ST_DATA_SCHEMA, quote_identifier(t->relname));
	t->pk.name = spi_text(tup, desc, 2);
	t->pk.type = key_type(spi_text(tup, desc, 3));
	t->sk.name = spi_text(tup, desc, 4);
	t->sk.type = key_type(spi_text(tup, desc, 5));
	key_index = spi_text(tup, desc, 7);
	/* NULL: a 0.1.0 catalog or a row of a 0.1.0 dump, whose key index 0.1.0 named so */
	t->key_index_name = key_index ? key_index : psprintf("%.54s_key", t->relname);
	MemoryContextSwitchTo(old);

	t->relid = get_relname_relid(t->relname, get_namespace_oid(ST_DATA_SCHEMA, false));
	if (!OidIsValid(t->relid) || !lock_relation(t->relid, mode))
		return false;
	t->distributed = catalog_citus_distributed(t->relid);
	/* the indexes as they are once the relation is locked (no DDL on it meanwhile) */
	load_indexes(t);
	return true;
}

/*
 * Fill t, named t->name, from the catalog and check its relation's layout;
 * false when the table does not exist.
 */
static bool
load_table(StTable *t, LOCKMODE mode)
{
	char	   *problem;

	if (!load_definition(t, "table_name", t->name, mode))
		return false;
	problem = catalog_layout_problem(t, true);
	if (problem)
		st_internal_error("The relation %s of table %s no longer has the layout stdesign gave it: %s",
						  t->qualified, t->name, problem);
	t->valid = true;
	return true;
}

/*
 * A definition of table `name` read from the catalog, or NULL.  Inside a
 * SPI connection of its own (SPI_connect nests, so this works whether or
 * not the caller is connected); freed again on error.
 */
static StTable *
read_table(const char *name, LOCKMODE mode)
{
	StTable    *volatile t = new_table(CacheMemoryContext);
	bool		found;

	strlcpy(t->name, name, sizeof(t->name));
	SPI_connect();
	PG_TRY();
	{
		found = load_table(t, mode);
	}
	PG_CATCH();
	{
		MemoryContextDelete(t->cxt);
		PG_RE_THROW();
	}
	PG_END_TRY();
	SPI_finish();
	if (!found)
	{
		MemoryContextDelete(t->cxt);
		return NULL;
	}
	return t;
}

/*
 * The DDL guard's check of a relation some DDL statement touched (see
 * st_catalog.h).
 */
void
catalog_guard_relation(Oid relid)
{
	Relation	rel;
	bool		in_data_schema;
	bool		has_set_keys = false;
	Oid			set_keys = catalog_set_keys_oid();
	char	   *relname;
	StTable    *t;
	char	   *problem;

	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)) ||
		get_rel_relkind(relid) != RELKIND_RELATION)
		return;
	rel = table_open(relid, AccessShareLock);
	relname = pstrdup(RelationGetRelationName(rel));
	in_data_schema = RelationGetNamespace(rel) == get_namespace_oid(ST_DATA_SCHEMA, true);
	for (int i = 0; rel->trigdesc && i < rel->trigdesc->numtriggers; i++)
		has_set_keys |= rel->trigdesc->triggers[i].tgfoid == set_keys;
	table_close(rel, NoLock);
	if (!in_data_schema && !has_set_keys)
		return;

	t = new_table(CurrentMemoryContext);
	SPI_connect();
	if (!in_data_schema || !load_definition(t, "relation_name", relname, AccessShareLock))
	{
		SPI_finish();
		if (has_set_keys)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("relation \"%s\" has the trigger stdesign.set_keys() but is not the relation of a table in stdesign.tables",
							relname),
					 errdetail("A table's relation keeps its name and stays in schema %s.", ST_DATA_SCHEMA),
					 errhint("Tables are created with st_create_table and dropped with st_drop_table.")));
		return;
	}
	/*
	 * Once the set_keys trigger exists every piece must: a restore creates
	 * the trigger after the indexes, and a renamed key index is a missing one.
	 */
	SPI_finish();
	problem = catalog_layout_problem(t, has_set_keys);
	if (problem)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot change the layout of relation %s of stdesign table %s", t->qualified, t->name),
				 errdetail("After this statement %s.", problem),
				 errhint("stdesign reads and writes the relation by this layout: change a table through stdesign (UpdateTable, st_create_gsi, st_drop_gsi, st_drop_table).")));
	MemoryContextDelete(t->cxt);
}

static const char *
only_table_name(void)
{
	const char *result = NULL;

	if (default_valid)
		return cached_default;
	SPI_connect();
	if (SPI_execute("SELECT table_name FROM stdesign.tables LIMIT 2", false, 0) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.tables");
	if (cached_default)
		pfree(cached_default);
	cached_default = NULL;
	if (SPI_processed == 1)
	{
		char	   *name = spi_text(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

		cached_default = MemoryContextStrdup(CacheMemoryContext, name);
	}
	SPI_finish();
	default_valid = true;
	result = cached_default;
	return result;
}

const char *
catalog_default_table_name(void)
{
	const char *name;

	if (st_default_table_guc && st_default_table_guc[0] != '\0')
		return st_default_table_guc;
	name = only_table_name();
	if (name == NULL)
		st_error_hint(ST_ERR_VALIDATION,
					  "Pass \"table\", set stdesign.default_table, or create exactly one table.",
					  "No table given");
	return name;
}

StTable *
catalog_lookup(const char *name, bool missing_ok)
{
	return catalog_lookup_locked(name, missing_ok, AccessShareLock);
}

StTable *
catalog_lookup_locked(const char *name, bool missing_ok, LOCKMODE mode)
{
	char		key[ST_TABLE_NAME_MAX + 1];
	CacheSlot  *slot;
	StTable    *t;
	bool		found;

	/*
	 * A lock stronger than a write's is for a change of the table: during
	 * recovery the lock manager could not take it, and the change is
	 * refused as Postgres refuses LOCK TABLE in such a mode, with its error
	 * (25006).  In a read-only transaction the change's own statements are
	 * refused, with the same error.
	 */
	if (mode > RowExclusiveLock)
		PreventCommandDuringRecovery("LOCK TABLE");
	if (table_cache == NULL)
		catalog_init();
	if (!OidIsValid(catalog_relid))
		catalog_relid = get_relname_relid("tables", get_namespace_oid("stdesign", false));
	if (name == NULL)
		name = catalog_default_table_name();
	else if (catalog_is_arn(name))
		name = catalog_table_name(name, "tableName");
	if (strlen(name) > ST_TABLE_NAME_MAX)
	{
		if (missing_ok)
			return NULL;
		catalog_check_name(name, "tableName", ST_TABLE_NAME_MAX);
	}
	/* name may be an older definition's own, which the loop below may free */
	strlcpy(key, name, sizeof(key));
	name = key;
	free_unpinned();

	/*
	 * Until a valid definition's relation is locked: taking the lock can
	 * process invalidations (the relation altered, or dropped by the
	 * session this one waited for), which send us back to the catalog.
	 */
	for (int attempt = 0;; attempt++)
	{
		slot = hash_search(table_cache, name, HASH_ENTER, &found);
		if (!found)
			slot->table = NULL;
		if (slot->table && !slot->table->valid)
		{
			retire_table(slot->table);
			slot->table = NULL;
		}
		if (slot->table == NULL)
			slot->table = read_table(name, mode);
		t = slot->table;
		if (t == NULL)
		{
			hash_search(table_cache, name, HASH_REMOVE, NULL);
			if (missing_ok)
				return NULL;
			st_error(ST_ERR_RESOURCE_NOT_FOUND,
					 "Requested resource not found: Table: %s not found", name);
		}
		/*
		 * A valid definition's relation exists once locked: the lock, when
		 * new, processes the invalidations pending, and a DROP of the
		 * relation (by the session waited for, or by this transaction's
		 * earlier commands) invalidates it, as any change of its pg_class
		 * row does.  Only a definition just read looks its relation up.
		 */
		check_owner_before_lock(t->relid, mode);
		LockRelationOid(t->relid, mode);
		if (t->valid)
			break;
		t->valid = false;
		if (attempt >= 10)
			st_internal_error("the definition of table %s keeps changing", name);
	}
	pin_table(t);
	return t;
}

StIndex *
catalog_find_index(StTable *table, const char *index_name)
{
	for (int i = 0; i < table->nindexes; i++)
	{
		if (strcmp(table->indexes[i].name, index_name) == 0)
			return &table->indexes[i];
	}
	return NULL;
}

int64
catalog_load_count(void)
{
	return catalog_loads;
}

int64
catalog_kept_in_use_count(void)
{
	return kept_in_use;
}
