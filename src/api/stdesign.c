/*-------------------------------------------------------------------------
 *
 * stdesign.c
 *		Module entry: the GUCs and the key-index helper functions.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/cryptohash.h"
#include "common/sha2.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "catalog/st_catalog.h"
#include "ops/expr_ops.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomStringVariable("stdesign.default_table",
							   "The table st_* functions use when \"table\" is not given.",
							   "When unset and exactly one table exists, that table is used.",
							   &st_default_table_guc,
							   NULL,
							   PGC_USERSET,
							   0,
							   NULL, NULL, NULL);
	MarkGUCPrefixReserved("stdesign");
	catalog_init();
}

/*
 * The btree key of a partition-key value (see the extension script): the
 * bytes themselves up to KEY_IX_INLINE bytes, else the first KEY_IX_INLINE
 * bytes followed by the SHA-256 of all of them.  The two forms cannot be
 * confused since they differ in length.
 */
#define KEY_IX_INLINE 256

bytea *
st_key_ix(const char *data, int len)
{
	bytea	   *result;
	pg_cryptohash_ctx *ctx;

	if (len <= KEY_IX_INLINE)
	{
		result = palloc(VARHDRSZ + len);
		SET_VARSIZE(result, VARHDRSZ + len);
		memcpy(VARDATA(result), data, len);
		return result;
	}
	result = palloc(VARHDRSZ + KEY_IX_INLINE + PG_SHA256_DIGEST_LENGTH);
	SET_VARSIZE(result, VARHDRSZ + KEY_IX_INLINE + PG_SHA256_DIGEST_LENGTH);
	memcpy(VARDATA(result), data, KEY_IX_INLINE);
	ctx = pg_cryptohash_create(PG_SHA256);
	if (pg_cryptohash_init(ctx) < 0 ||
		pg_cryptohash_update(ctx, (const uint8 *) data, len) < 0 ||
		pg_cryptohash_final(ctx, (uint8 *) VARDATA(result) + KEY_IX_INLINE,
							PG_SHA256_DIGEST_LENGTH) < 0)
		elog(ERROR, "stdesign: could not compute SHA-256: %s", pg_cryptohash_error(ctx));
	pg_cryptohash_free(ctx);
	return result;
}

PG_FUNCTION_INFO_V1(st_key_ix_text);
Datum
st_key_ix_text(PG_FUNCTION_ARGS)
{
	text	   *t = PG_GETARG_TEXT_PP(0);

	PG_RETURN_BYTEA_P(st_key_ix(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t)));
}

PG_FUNCTION_INFO_V1(st_key_ix_bytea);
Datum
st_key_ix_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);

	PG_RETURN_BYTEA_P(st_key_ix(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b)));
}

/*
 * stdesign.cache_stats(): how often this backend read the catalog and parsed
 * an expression, so that tests can show that repeated calls do neither; and
 * how often a table's definition was replaced while still in use.
 */
PG_FUNCTION_INFO_V1(st_cache_stats);
Datum
st_cache_stats(PG_FUNCTION_ARGS)
{
	char	   *json = psprintf("{\"catalog_loads\": " INT64_FORMAT ", \"expression_parses\": " INT64_FORMAT
								", \"definitions_kept_in_use\": " INT64_FORMAT "}",
								catalog_load_count(), expr_parse_count(), catalog_kept_in_use_count());

	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}
