/*-------------------------------------------------------------------------
 *
 * ttl_ops.c
 *		Time to live: the table's setting (UpdateTimeToLive,
 *		DescribeTimeToLive) and the expiry of items.
 *
 * The setting lives in stdesign.tables (ttl_attribute, ttl_enabled,
 * ttl_updated_at).  DynamoDB's rules, from UpdateTimeToLive in its API
 * reference and what it answers: enabling while enabled is "TimeToLive is
 * already enabled", disabling while disabled "TimeToLive is already
 * disabled", and while enabled a request naming another attribute is
 * refused with the current one's name.  A change takes effect at once
 * (DynamoDB passes through ENABLING / DISABLING for up to an hour and
 * refuses further changes meanwhile; docs/differences.md).
 *
 * Expiry follows the Developer Guide's "Time to Live": an item expires when
 * its TTL attribute, a top-level Number of epoch seconds, is less than the
 * current time; items whose attribute is missing, of another type, or more
 * than five years in the past are never deleted.  Each deletion is the
 * path of a conditional DeleteItem (ops_delete_if): the item is read
 * locked and deleted only if it is still expired, so an item updated
 * meanwhile to a later expiry stays; secondary indexes and triggers see an
 * ordinary delete.  Until deleted, expired items stay readable.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "storage/lockdefs.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "catalog/st_catalog.h"
#include "item/av_jsonb.h"
#include "item_ops.h"
#include "storage/st_storage.h"
#include "storage/stream_capture.h"
#include "ttl_ops.h"

/* DynamoDB ignores expiry times more than five years in the past. */
#define TTL_MAX_AGE_SECONDS ((int64) 5 * 365 * 24 * 60 * 60)

static Av  *
s_value(const char *s)
{
	return av_new_str(AV_S, s, strlen(s));
}

/* ttl_enabled and ttl_attribute of a table's catalog row (it exists). */
static bool
read_setting(const char *table_name, char **attribute)
{
	Oid			type = TEXTOID;
	Datum		arg = CStringGetTextDatum(table_name);
	MemoryContext caller = CurrentMemoryContext;
	bool		enabled = false;

	*attribute = NULL;
	if (catalog_sql_is_0_1_0())
		return false;
	SPI_connect();
	if (SPI_execute_with_args("SELECT ttl_enabled, ttl_attribute FROM stdesign.tables"
							  " WHERE table_name OPERATOR(pg_catalog.=) $1",
							  1, &type, &arg, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.tables");
	if (SPI_processed == 1)
	{
		bool		isnull;
		char	   *attr = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);

		enabled = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		if (attr)
			*attribute = MemoryContextStrdup(caller, attr);
	}
	SPI_finish();
	return enabled && *attribute != NULL;
}

/*
 * The time-to-live index of a table is named <table>:ttl (no form can be
 * another's, catalog_ttl_index_form), hashed when that is too long, or
 * taken -- an index of the user's own may have any name.  Not recorded in
 * the catalog: a table has at most one, which these two names find.
 */
static void
ttl_index_names(const char *table_name, char **names)
{
	char	   *form = catalog_ttl_index_form(table_name);

	names[0] = catalog_pg_name(form, false);
	names[1] = catalog_pg_name(form, true);
}

static void
create_ttl_index(StTable *t, const char *attribute)
{
	char	   *names[2];

	ttl_index_names(t->name, names);
	for (int i = 0; i < 2; i++)
	{
		if (storage_name_free(names[i]))
		{
			storage_create_ttl_index(t->relname, names[i], attribute, t->sk.name != NULL);
			return;
		}
	}
	st_internal_error("the names of the time-to-live index of table %s are taken", t->name);
}

/*
 * Its index on attribute, when there is one (a table enabled before indexes
 * existed has none).
 */
static void
drop_ttl_index(StTable *t, const char *attribute)
{
	char	   *names[2];

	ttl_index_names(t->name, names);
	for (int i = 0; i < 2; i++)
		if (storage_is_ttl_index(t->relid, names[i], attribute, t->sk.name != NULL))
			storage_drop_index(names[i]);
}

/*
 * The lock of a change is taken first, on the relation: a self-exclusive
 * one to build the index (as adding a GSI), which lets readers through and
 * makes writers wait for the build; AccessExclusiveLock to drop it, before
 * anything weaker is held (as deleting a GSI: holding a weaker one that
 * blocks writers would deadlock with a writer that holds AccessShareLock
 * and waits for it).
 */
Av *
ops_ttl_update(const char *table_name, const char *attribute, bool enabled)
{
	StTable    *t = catalog_lookup_locked(table_name, false,
										  enabled ? ShareRowExclusiveLock : AccessExclusiveLock);
	char	   *current;
	bool		active = read_setting(t->name, &current);
	Oid			types[3] = {TEXTOID, TEXTOID, BOOLOID};
	Datum		args[3];
	Av		   *spec;

	if (catalog_sql_is_0_1_0())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("stdesign: time to live needs the catalog of stdesign 0.2.0"),
				 errhint("Run ALTER EXTENSION stdesign UPDATE.")));
	/* changing a table's setting is for its owner, as UpdateTable is */
	catalog_check_owner(t);
	if (active && strcmp(current, attribute) != 0)
		st_error(ST_ERR_VALIDATION,
				 "TimeToLive is active on a different AttributeName: current AttributeName is %s", current);
	if (active && enabled)
		st_error(ST_ERR_VALIDATION, "TimeToLive is already enabled");
	if (!active && !enabled)
		st_error(ST_ERR_VALIDATION, "TimeToLive is already disabled");

	args[0] = CStringGetTextDatum(t->name);
	args[1] = CStringGetTextDatum(attribute);
	args[2] = BoolGetDatum(enabled);
	/* as the catalog's owner (docs/security.md) */
	if (catalog_write("UPDATE stdesign.tables SET ttl_attribute = $2, ttl_enabled = $3,"
					  " ttl_updated_at = pg_catalog.now()"
					  " WHERE table_name OPERATOR(pg_catalog.=) $1",
					  3, types, args, NULL) != 1)
		st_internal_error("table %s is missing from the catalog", t->name);
	/* as the owner of the relation, who the check above says the caller is */
	if (enabled)
		create_ttl_index(t, attribute);
	else
		drop_ttl_index(t, attribute);

	spec = av_new(AV_M);
	av_map_put_nocheck(spec, "Enabled", 7, av_new_bool(enabled));
	av_map_put_nocheck(spec, "AttributeName", 13, s_value(attribute));
	return spec;
}

Av *
ops_ttl_describe(const char *table_name)
{
	StTable    *t = catalog_lookup(table_name, false);
	char	   *attribute;
	bool		enabled = read_setting(t->name, &attribute);
	Av		   *d = av_new(AV_M);

	av_map_put_nocheck(d, "TimeToLiveStatus", 16, s_value(enabled ? "ENABLED" : "DISABLED"));
	if (enabled)
		av_map_put_nocheck(d, "AttributeName", 13, s_value(attribute));
	return d;
}

char *
ops_ttl_attribute(const char *table_name)
{
	char	   *attribute;

	return read_setting(table_name, &attribute) ? attribute : NULL;
}

List *
ops_ttl_tables(void)
{
	MemoryContext caller = CurrentMemoryContext;
	List	   *tables = NIL;

	if (catalog_sql_is_0_1_0())
		return NIL;
	SPI_connect();
	if (SPI_execute("SELECT table_name FROM stdesign.tables WHERE ttl_enabled"
					" ORDER BY table_name", true, 0) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.tables");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		char	   *name = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		MemoryContext spi = MemoryContextSwitchTo(caller);

		tables = lappend(tables, pstrdup(name));
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	return tables;
}

/* The condition of an expiry: the item's attribute is a Number in [oldest, now). */
typedef struct ExpiryCondition
{
	StCondition cond;
	const char *attribute;
	Av		   *now;
	Av		   *oldest;
} ExpiryCondition;

static bool
still_expired(StCondition *cond, const Av *item)
{
	ExpiryCondition *e = (ExpiryCondition *) cond;
	Av		   *v;

	if (item == NULL || item->type != AV_M)
		return false;
	v = av_map_get(item, e->attribute, strlen(e->attribute));
	return v != NULL && v->type == AV_N &&
		av_compare_scalar(v, e->now) < 0 && av_compare_scalar(v, e->oldest) >= 0;
}

static Av  *
number(int64 value, Datum *as_numeric)
{
	char	   *text = psprintf(INT64_FORMAT, value);

	*as_numeric = DirectFunctionCall3(numeric_in, CStringGetDatum(text),
									  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	return av_new_str(AV_N, text, strlen(text));
}

/* The key attributes of a stored item, as a key map. */
static Av  *
key_of(StTable *t, const Av *item)
{
	Av		   *key = av_new(AV_M);
	Av		   *v = av_map_get(item, t->pk.name, strlen(t->pk.name));

	if (v)
		av_map_put_nocheck(key, t->pk.name, strlen(t->pk.name), v);
	if (t->sk.name && (v = av_map_get(item, t->sk.name, strlen(t->sk.name))) != NULL)
		av_map_put_nocheck(key, t->sk.name, strlen(t->sk.name), v);
	return key;
}

/* Delete the item of key if cond holds; a stream's record of it says time to live did (userIdentity). */
static bool
delete_expired(StTable *t, const Av *key, StCondition *cond)
{
	volatile bool deleted = false;

	storage_stream_ttl_deletions(true);
	PG_TRY();
	{
		deleted = ops_delete_if(t, key, cond);
	}
	PG_FINALLY();
	{
		storage_stream_ttl_deletions(false);
	}
	PG_END_TRY();
	return deleted;
}

int64
ops_expire_batch(StTable *t, const char *attribute, int limit, bool *more)
{
	/* whole seconds: an expiry of 10.5 is past once the clock reads 11 */
	int64		now_s = (int64) (GetCurrentTimestamp() / USECS_PER_SEC) +
		((POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY);
	ExpiryCondition e;
	Datum		now;
	Datum		oldest;
	Jsonb	  **items;
	int			n;
	int64		deleted = 0;

	e.cond.holds = still_expired;
	e.cond.state = NULL;
	e.cond.return_item_on_failure = false;
	e.attribute = attribute;
	e.now = number(now_s, &now);
	e.oldest = number(now_s - TTL_MAX_AGE_SECONDS, &oldest);

	n = storage_expired_items(t, attribute, now, oldest, limit, &items);
	for (int i = 0; i < n; i++)
	{
		Av		   *item;

		if (items[i] == NULL)
			continue;
		item = av_item_from_stored(items[i]);
		if (!still_expired(&e.cond, item))
			continue;
		if (delete_expired(t, key_of(t, item), &e.cond))
			deleted++;
	}
	/*
	 * A full batch may have more behind it, unless none of it could be
	 * deleted: then the next would find the same items again.
	 */
	*more = n >= limit && deleted > 0;
	return deleted;
}
