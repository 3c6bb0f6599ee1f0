/*-------------------------------------------------------------------------
 *
 * http_keys.c
 *		Access keys of the HTTP endpoint: created here, looked up for each
 *		signed request.
 *
 * SigV4 proves knowledge of the secret by an HMAC the server must compute
 * too, so the secret is kept as it is (like AWS keeps it), in
 * stdesign.access_keys, which only superusers can read.  A key maps to one
 * Postgres role: requests signed with it run as that role.  The key keeps
 * the role's OID and its name when the key was made, and serves only while
 * a role with that OID still has that name: a dropped role's keys are
 * refused, and a role created later under the same name (or given the same
 * OID after the counter wraps around) does not inherit them; a renamed
 * role's keys are refused too (make new ones).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/sinval.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "http_server.h"
#include "common/st_inval.h"

#define KEY_ID_ALPHABET "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
#define SECRET_ALPHABET "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

char *
http_random_string(int len, const char *alphabet)
{
	size_t		n = strlen(alphabet);
	uint8	   *bytes = palloc(len);
	char	   *out = palloc(len + 1);

	if (!pg_strong_random(bytes, len))
		ereport(ERROR, (errmsg("stdesign: could not generate random bytes")));
	/* 256 is not a multiple of n: values past the last whole cycle are redrawn */
	for (int i = 0; i < len; i++)
	{
		while (bytes[i] >= 256 - (256 % n))
		{
			if (!pg_strong_random(&bytes[i], 1))
				ereport(ERROR, (errmsg("stdesign: could not generate random bytes")));
		}
		out[i] = alphabet[bytes[i] % n];
	}
	out[len] = '\0';
	pfree(bytes);
	return out;
}

/*
 * The lookup's plan, prepared once per worker (the plan cache replans it
 * when the table changes, e.g. after DROP and CREATE EXTENSION).
 */
static SPIPlanPtr key_plan = NULL;

/*
 * The keys this worker has looked up, so that a signed request costs a hash
 * lookup rather than a query: key id -> (secret, role, the role's OID, the
 * signing key last derived).  Only enabled keys whose role is still the
 * same are kept.  Any change to
 * stdesign.access_keys fires the statement trigger st_access_keys_changed,
 * which queues a relcache invalidation of the table at its commit; every
 * backend's callback then marks the cache stale, and the next lookup
 * empties it (secrets and signing keys wiped).  A change to any role
 * (pg_authid: renamed, dropped, created) does the same, for the role OIDs
 * kept.  Invalidations are taken in at the start of each request's
 * transaction, so a request that starts after the change has committed
 * sees it: a disabled, dropped or re-created key is never served from the
 * cache, nor its signing key.
 */
#define KEY_CACHE_ID_LEN	64
#define KEY_CACHE_MAX		1024

typedef struct KeyCacheEntry
{
	char		key_id[KEY_CACHE_ID_LEN];	/* hash key */
	HttpKey		key;
} KeyCacheEntry;

static HTAB *key_cache = NULL;
static MemoryContext key_cache_context = NULL;
static Oid	key_cache_relid = InvalidOid;	/* stdesign.access_keys */
static uint64 key_cache_generation = 0; /* bumped by every invalidation */
static uint64 key_cache_emptied = 0;	/* the generation last emptied for */
static KeyCacheEntry *key_cache_last = NULL;	/* the last key found */

static void
key_cache_invalidate(Datum arg, Oid relid)
{
	/* InvalidOid: every relation (e.g. after a lost invalidation queue) */
	if (relid == InvalidOid || relid == key_cache_relid)
		key_cache_generation++;
}

static void
key_cache_role_changed(Datum arg, int cacheid, uint32 hashvalue)
{
	key_cache_generation++;
}

/* Wipe what a key holds of its secret. */
static void
key_wipe(HttpKey *key)
{
	if (key->secret)
		explicit_bzero(key->secret, strlen(key->secret));
	explicit_bzero(&key->signing, sizeof(key->signing));
}

/* An empty cache (secrets wiped), registering the callbacks the first time. */
static void
key_cache_reset(void)
{
	HASHCTL		ctl = {0};

	if (key_cache_context == NULL)
	{
		key_cache_context = AllocSetContextCreate(TopMemoryContext, "stdesign access keys",
												  ALLOCSET_SMALL_SIZES);
		st_relcache_callback(key_cache_invalidate, (Datum) 0);
		CacheRegisterSyscacheCallback(AUTHOID, key_cache_role_changed, (Datum) 0);
	}
	if (key_cache != NULL)
	{
		HASH_SEQ_STATUS seq;
		KeyCacheEntry *e;

		hash_seq_init(&seq, key_cache);
		while ((e = hash_seq_search(&seq)) != NULL)
			key_wipe(&e->key);
	}
	MemoryContextReset(key_cache_context);
	ctl.keysize = KEY_CACHE_ID_LEN;
	ctl.entrysize = sizeof(KeyCacheEntry);
	ctl.hcxt = key_cache_context;
	key_cache = hash_create("stdesign access keys", 64, &ctl,
							HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	key_cache_relid = InvalidOid;
	key_cache_last = NULL;
	key_cache_emptied = key_cache_generation;
}

/*
 * Is roleid still the role named role, as when the key was made?  A key of
 * a dropped role must not pass to whoever takes the name (or the OID) next.
 */
static bool
key_role_current(Oid roleid, const char *role)
{
	char	   *name;

	if (!OidIsValid(roleid))
		return false;
	name = GetUserNameFromId(roleid, true);
	return name != NULL && strcmp(name, role) == 0;
}

/*
 * The key from the table, read with a snapshot taken after the invalidations
 * received so far (and its role's OID, from the catalogs as they are then):
 * a change committed later is invalidated later, so what is read here may
 * be kept.
 */
static bool
key_read(const char *key_id, HttpKey *key, MemoryContext into)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1];
	bool		found = false;

	values[0] = CStringGetTextDatum(key_id);
	SPI_connect();
	if (key_plan == NULL)
	{
		SPIPlanPtr	plan = SPI_prepare("SELECT secret, role_name::pg_catalog.text, role_oid FROM stdesign.access_keys "
									   "WHERE key_id OPERATOR(pg_catalog.=) $1 AND enabled",
									   1, types);

		if (plan == NULL || SPI_keepplan(plan) != 0)
			st_internal_error("could not prepare the access key lookup");
		key_plan = plan;
	}
	AcceptInvalidationMessages();
	if (SPI_execute_snapshot(key_plan, values, NULL, GetLatestSnapshot(), InvalidSnapshot,
							 true, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.access_keys");
	if (SPI_processed == 1)
	{
		HeapTuple	row = SPI_tuptable->vals[0];
		char	   *role = SPI_getvalue(row, SPI_tuptable->tupdesc, 2);
		bool		isnull;
		Datum		oid = SPI_getbinval(row, SPI_tuptable->tupdesc, 3, &isnull);

		/* a key whose role is gone is as if it did not exist (nothing kept) */
		if (!isnull && key_role_current(DatumGetObjectId(oid), role))
		{
			char	   *secret = SPI_getvalue(row, SPI_tuptable->tupdesc, 1);

			memset(key, 0, sizeof(HttpKey));
			key->secret = MemoryContextStrdup(into, secret);
			key->role = MemoryContextStrdup(into, role);
			key->roleid = DatumGetObjectId(oid);
			explicit_bzero(secret, strlen(secret));
			found = true;
		}
	}
	SPI_finish();
	return found;
}

HttpKey *
http_key_lookup(const char *key_id)
{
	KeyCacheEntry *e;
	uint64		generation;
	HttpKey		key;

	if (key_cache == NULL || key_cache_emptied != key_cache_generation ||
		hash_get_num_entries(key_cache) >= KEY_CACHE_MAX)
		key_cache_reset();
	/* longer ids than ours are looked up each time */
	if (strlen(key_id) >= KEY_CACHE_ID_LEN)
	{
		HttpKey    *k = palloc0(sizeof(HttpKey));

		return key_read(key_id, k, CurrentMemoryContext) ? k : NULL;
	}
	/* a client signs its requests with one key: the last one, first */
	if (key_cache_last != NULL && strcmp(key_cache_last->key_id, key_id) == 0)
		return &key_cache_last->key;
	e = hash_search(key_cache, key_id, HASH_FIND, NULL);
	if (e != NULL)
	{
		key_cache_last = e;
		return &e->key;
	}

	if (!OidIsValid(key_cache_relid))
		key_cache_relid = get_relname_relid("access_keys", get_namespace_oid("stdesign", false));
	generation = key_cache_generation;
	if (!key_read(key_id, &key, key_cache_context))
		return NULL;
	/* an invalidation during the read: what was read may be out of date */
	if (generation == key_cache_generation && key_cache_emptied == generation)
	{
		e = hash_search(key_cache, key_id, HASH_ENTER, NULL);
		e->key = key;
		key_cache_last = e;
		return &e->key;
	}
	else
	{
		/* used once, for this request (wiped with the cache's next reset) */
		HttpKey    *k = palloc(sizeof(HttpKey));

		*k = key;
		return k;
	}
}

/*
 * The trigger on stdesign.access_keys (every statement that changes it):
 * the workers' caches of keys are invalidated when the change commits.
 */
PG_FUNCTION_INFO_V1(st_access_keys_changed);
Datum
st_access_keys_changed(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("st_access_keys_changed: not called as a trigger")));
	CacheInvalidateRelcache(trigdata->tg_relation);
	return PointerGetDatum(NULL);
}

/*
 * st_create_access_key(role): a new key for role; its id and secret are
 * returned this once (the secret is never shown again).
 */
PG_FUNCTION_INFO_V1(st_create_access_key);
Datum
st_create_access_key(PG_FUNCTION_ARGS)
{
	Oid			roleid = PG_GETARG_OID(0);
	char	   *role = GetUserNameFromId(roleid, false);
	char	   *key_id = psprintf("STDK%s", http_random_string(16, KEY_ID_ALPHABET));
	char	   *secret = http_random_string(40, SECRET_ALPHABET);
	Oid			types[4] = {TEXTOID, TEXTOID, NAMEOID, OIDOID};
	Datum		values[4];
	TupleDesc	tupdesc;
	Datum		result[2];
	bool		nulls[2] = {false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		st_internal_error("st_create_access_key must return a record");
	values[0] = CStringGetTextDatum(key_id);
	values[1] = CStringGetTextDatum(secret);
	values[2] = DirectFunctionCall1(namein, CStringGetDatum(role));
	values[3] = ObjectIdGetDatum(roleid);
	SPI_connect();
	if (SPI_execute_with_args("INSERT INTO stdesign.access_keys (key_id, secret, role_name, role_oid) "
							  "VALUES ($1, $2, $3, $4)",
							  4, types, values, NULL, false, 0) != SPI_OK_INSERT)
		st_internal_error("could not insert into stdesign.access_keys");
	SPI_finish();
	result[0] = CStringGetTextDatum(key_id);
	result[1] = CStringGetTextDatum(secret);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), result, nulls)));
}
