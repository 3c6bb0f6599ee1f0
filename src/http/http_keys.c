/*-------------------------------------------------------------------------
 *
 * http_keys.c
 *		Access keys of the HTTP endpoint: created here, looked up for each
 *		signed request.
 *
 * SigV4 proves knowledge of the secret by an HMAC the server must compute
 * too, so the secret is kept as it is (like AWS keeps it), in
 * stdesign.access_keys, which only superusers can read.  A key maps to one
 * Postgres role: requests signed with it run as that role.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "http_server.h"

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

bool
http_key_lookup(const char *key_id, char **secret, char **role)
{
	MemoryContext caller = CurrentMemoryContext;
	Oid			types[1] = {TEXTOID};
	Datum		values[1];
	bool		found = false;

	values[0] = CStringGetTextDatum(key_id);
	SPI_connect();
	if (key_plan == NULL)
	{
		SPIPlanPtr	plan = SPI_prepare("SELECT secret, role_name::pg_catalog.text FROM stdesign.access_keys "
									   "WHERE key_id OPERATOR(pg_catalog.=) $1 AND enabled",
									   1, types);

		if (plan == NULL || SPI_keepplan(plan) != 0)
			st_internal_error("could not prepare the access key lookup");
		key_plan = plan;
	}
	if (SPI_execute_plan(key_plan, values, NULL, true, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.access_keys");
	if (SPI_processed == 1)
	{
		*secret = MemoryContextStrdup(caller, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
		*role = MemoryContextStrdup(caller, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2));
		found = true;
	}
	SPI_finish();
	return found;
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
	Oid			types[3] = {TEXTOID, TEXTOID, NAMEOID};
	Datum		values[3];
	TupleDesc	tupdesc;
	Datum		result[2];
	bool		nulls[2] = {false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		st_internal_error("st_create_access_key must return a record");
	values[0] = CStringGetTextDatum(key_id);
	values[1] = CStringGetTextDatum(secret);
	values[2] = DirectFunctionCall1(namein, CStringGetDatum(role));
	SPI_connect();
	if (SPI_execute_with_args("INSERT INTO stdesign.access_keys (key_id, secret, role_name) VALUES ($1, $2, $3)",
							  3, types, values, NULL, false, 0) != SPI_OK_INSERT)
		st_internal_error("could not insert into stdesign.access_keys");
	SPI_finish();
	result[0] = CStringGetTextDatum(key_id);
	result[1] = CStringGetTextDatum(secret);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), result, nulls)));
}
