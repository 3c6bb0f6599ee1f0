/*-------------------------------------------------------------------------
 *
 * key_ix.c
 *		stdesign.key_ix: the btree key of a partition-key value, used by the
 *		unique key index and every secondary index of a table, and by the
 *		direct read paths that build the same key themselves (storage.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/cryptohash.h"
#include "common/sha2.h"
#include "fmgr.h"

#include "st_storage.h"

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
		st_internal_error("could not compute SHA-256: %s", pg_cryptohash_error(ctx));
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
