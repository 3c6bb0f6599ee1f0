/*-------------------------------------------------------------------------
 *
 * jsonb_raw.h
 *		Reading and writing jsonb's binary format directly.
 *
 * Postgres's own jsonb functions go through JsonbValue trees: iterating a
 * container allocates an iterator per level, and JsonbValueToJsonb
 * re-serialises a whole tree.  Two of stdesign's hot paths need neither:
 * computing the size of a stored item (a walk that only reads), and writing
 * a Query page whose items go out exactly as stored (their containers can be
 * copied byte for byte into the response).
 *
 * The format is the one utils/jsonb.h documents: a container is a header
 * word (count and flags), one JEntry per child (objects: all keys, then all
 * values, keys sorted by length then bytes), then the children's data;
 * numerics and nested containers start at 4-byte alignment and their
 * padding counts as part of them; every JB_OFFSET_STRIDE-th JEntry holds an
 * end offset instead of a length.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_JSONB_RAW_H
#define ST_JSONB_RAW_H

#include "postgres.h"

#include "utils/jsonb.h"

/* One child of a container: its JENTRY_IS* type and where its data is. */
typedef struct JsonbRaw
{
	uint32		type;			/* JENTRY_ISSTRING, ..._ISCONTAINER */
	const char *data;			/* string bytes, Numeric, or JsonbContainer */
	uint32		len;			/* bytes at data (without alignment padding) */
} JsonbRaw;

/* A walk over the children of one container, in order. */
typedef struct JsonbRawIter
{
	const JEntry *children;
	const char *base;			/* start of the children's data */
	uint32		count;			/* elements, or key/value pairs */
	uint32		next;			/* index of the next element or pair */
	uint32		key_end;		/* end offset of the last key read */
	uint32		val_end;		/* end offset of the last value read */
} JsonbRawIter;

extern void st_jsonb_raw_begin(JsonbRawIter *it, const JsonbContainer *c);

/* The next element of an array; false after the last. */
extern bool st_jsonb_raw_next_elem(JsonbRawIter *it, JsonbRaw *value);

/* The next member of an object; false after the last. */
extern bool st_jsonb_raw_next_member(JsonbRawIter *it, JsonbRaw *key, JsonbRaw *value);

/* A child as the JsonbValue an iterator would give (containers as jbvBinary). */
extern void st_jsonb_raw_value(const JsonbRaw *raw, JsonbValue *out);

/*
 * A JsonbValue tree to a jsonb datum, as JsonbValueToJsonb does, except
 * that a jbvBinary node (an array or object container of another jsonb
 * datum, not a scalar root) is copied as it is instead of being unpacked.
 * The tree's objects must already have sorted, unique keys (as
 * pushJsonbValue leaves them).
 */
extern Jsonb *st_jsonb_raw_from_value(const JsonbValue *root);

#endif							/* ST_JSONB_RAW_H */
