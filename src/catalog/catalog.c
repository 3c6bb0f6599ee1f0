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
 * forgets the default table.  Invalid entries are rebuilt on next use, and
 * their prepared plans freed.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "common/cryptohash.h"
#include "common/hashfn.h"
#include "common/sha2.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "st_catalog.h"
#include "common/st_common.h"

char	   *st_default_table_guc = NULL;

static HTAB *table_cache = NULL;
static char *cached_default = NULL;	/* in CacheMemoryContext */
static bool default_valid = false;
static Oid	catalog_relid = InvalidOid;	/* stdesign.tables, once known */
static int64 catalog_loads = 0;	/* catalog reads by this backend, for tests */

static void
free_plan(SPIPlanPtr plan)
{
	if (plan)
		SPI_freeplan(plan);
}

static void
free_planset(StPlanSet *ps)
{
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			free_plan(ps->scan[i][j]);
	for (int i = 0; i < ST_BOUND_KINDS; i++)
		for (int j = 0; j < ST_BOUND_KINDS; j++)
			for (int k = 0; k < 2; k++)
				for (int l = 0; l < 2; l++)
					free_plan(ps->query[i][j][k][l]);
}

/* Release what an entry holds (its plans and its memory), keeping the hash slot. */
static void
release_entry(StTable *t)
{
	free_plan(t->plan_get);
	free_plan(t->plan_get_for_update);
	free_plan(t->plan_upsert);
	free_plan(t->plan_upsert_many);
	free_plan(t->plan_insert);
	free_plan(t->plan_update);
	free_plan(t->plan_delete);
	free_plan(t->plan_delete_returning);
	free_planset(&t->plans);
	for (int i = 0; i < t->nindexes; i++)
		free_planset(&t->indexes[i].plans);
	if (t->cxt)
		MemoryContextDelete(t->cxt);
	t->cxt = NULL;
	t->nindexes = 0;
	t->indexes = NULL;
	t->plan_get = t->plan_get_for_update = t->plan_upsert = t->plan_insert = NULL;
	t->plan_upsert_many = NULL;
	t->plan_update = t->plan_delete = t->plan_delete_returning = NULL;
	memset(&t->plans, 0, sizeof(t->plans));
	t->valid = false;
}

static void
relcache_callback(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	StTable    *t;

	if (table_cache == NULL)
		return;
	/*
	 * Only mark entries invalid here: freeing plans inside an invalidation
	 * callback is not safe, since one may be executing.
	 */
	hash_seq_init(&status, table_cache);
	while ((t = hash_seq_search(&status)) != NULL)
	{
		if (relid == InvalidOid || t->relid == relid)
			t->valid = false;
	}
	if (relid == InvalidOid || relid == catalog_relid)
	{
		default_valid = false;
		catalog_relid = InvalidOid;
		hash_seq_init(&status, table_cache);
		while ((t = hash_seq_search(&status)) != NULL)
			t->valid = false;
	}
}

void
catalog_init(void)
{
	HASHCTL		ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = ST_TABLE_NAME_MAX + 1;
	ctl.entrysize = sizeof(StTable);
	ctl.hcxt = CacheMemoryContext;
	table_cache = hash_create("stdesign table cache", 16, &ctl,
							  HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	CacheRegisterRelcacheCallback(relcache_callback, (Datum) 0);
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

static void
load_indexes(StTable *t)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];
	MemoryContext old;

	args[0] = CStringGetTextDatum(t->name);
	if (SPI_execute_with_args("SELECT index_name, is_local, pk_name, pk_type, sk_name, sk_type,"
							  " projection_type, non_key_attributes::pg_catalog.text[], pg_index"
							  " FROM stdesign.indexes WHERE table_name OPERATOR(pg_catalog.=) $1"
							  " ORDER BY created_at, index_name",
							  1, argtypes, args, NULL, false, 0) != SPI_OK_SELECT)
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
	Oid			nsp = get_namespace_oid("stdesign", true);
	Oid			relid = OidIsValid(nsp) ? get_relname_relid("tables", nsp) : InvalidOid;

	return OidIsValid(relid) && get_attnum(relid, "key_index") == InvalidAttrNumber;
}

/* Fill entry t from the catalog; false when the table does not exist. */
static bool
load_table(StTable *t)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];
	HeapTuple	tup;
	TupleDesc	desc;
	MemoryContext old;
	bool		found;
	char	   *key_index;

	catalog_loads++;
	args[0] = CStringGetTextDatum(t->name);
	if (SPI_execute_with_args(catalog_sql_is_0_1_0()
							  ? "SELECT relation_name, pk_name, pk_type, sk_name, sk_type, NULL::pg_catalog.text"
							  " FROM stdesign.tables WHERE table_name OPERATOR(pg_catalog.=) $1"
							  : "SELECT relation_name, pk_name, pk_type, sk_name, sk_type, key_index"
							  " FROM stdesign.tables WHERE table_name OPERATOR(pg_catalog.=) $1",
							  1, argtypes, args, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.tables");
	found = SPI_processed == 1;
	if (!found)
		return false;

	t->cxt = AllocSetContextCreate(CacheMemoryContext, "stdesign table",
								   ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(t->cxt);
	tup = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	t->relname = spi_text(tup, desc, 1);
	t->qualified = psprintf("%s.%s", ST_DATA_SCHEMA, quote_identifier(t->relname));
	t->pk.name = spi_text(tup, desc, 2);
	t->pk.type = key_type(spi_text(tup, desc, 3));
	t->sk.name = spi_text(tup, desc, 4);
	t->sk.type = key_type(spi_text(tup, desc, 5));
	MemoryContextSwitchTo(old);

	t->relid = get_relname_relid(t->relname, get_namespace_oid(ST_DATA_SCHEMA, false));
	if (!OidIsValid(t->relid))
		st_internal_error("the relation of table %s is missing", t->name);
	key_index = spi_text(tup, desc, 6);
	/* NULL: a catalog row of a 0.1.0 dump, whose key index 0.1.0 named so */
	if (key_index == NULL)
		key_index = psprintf("%.54s_key", t->relname);
	t->key_index = get_relname_relid(key_index, get_namespace_oid(ST_DATA_SCHEMA, false));
	t->item_attnum = get_attnum(t->relid, "item");
	load_indexes(t);
	for (int i = 0; i < t->nindexes; i++)
		t->indexes[i].index_oid = get_relname_relid(t->indexes[i].pg_index,
													get_namespace_oid(ST_DATA_SCHEMA, false));
	t->valid = true;
	return true;
}

/*
 * Run fn inside a SPI connection of its own; SPI_connect nests, so this
 * works whether or not the caller is connected.
 */
static bool
load_table_spi(StTable *t)
{
	bool		found;

	SPI_connect();
	PG_TRY();
	{
		found = load_table(t);
	}
	PG_CATCH();
	{
		release_entry(t);
		PG_RE_THROW();
	}
	PG_END_TRY();
	SPI_finish();
	return found;
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
	StTable    *t;
	bool		found;

	if (table_cache == NULL)
		catalog_init();
	if (!OidIsValid(catalog_relid))
		catalog_relid = get_relname_relid("tables", get_namespace_oid("stdesign", false));
	if (name == NULL)
		name = catalog_default_table_name();
	if (strlen(name) > ST_TABLE_NAME_MAX)
	{
		if (missing_ok)
			return NULL;
		catalog_check_name(name, "tableName", ST_TABLE_NAME_MAX);
	}

	t = hash_search(table_cache, name, HASH_ENTER, &found);
	if (!found)
	{
		memset(((char *) t) + sizeof(t->name), 0, sizeof(StTable) - sizeof(t->name));
	}
	if (!t->valid)
	{
		release_entry(t);
		if (!load_table_spi(t))
		{
			hash_search(table_cache, name, HASH_REMOVE, NULL);
			if (missing_ok)
				return NULL;
			st_error(ST_ERR_RESOURCE_NOT_FOUND,
					 "Requested resource not found: Table: %s not found", name);
		}
	}
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
