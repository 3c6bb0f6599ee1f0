/*-------------------------------------------------------------------------
 *
 * av_jsonb.h
 *		Conversion between jsonb (typed AttributeValue JSON, or the plain
 *		DocumentClient form) and the Av tree.  Backend only.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_AV_JSONB_H
#define ST_AV_JSONB_H

#include "postgres.h"
#include "utils/jsonb.h"

#include "av.h"

/*
 * Request input: a typed AttributeValue ({"S": "x"}) or a typed item
 * ({"attr": {"S": "x"}, ...}) or the plain form of either.  The result is
 * validated and normalised (numbers canonical, base64 decoded, sets checked);
 * any problem raises a DynamoDB-style ERROR.  `what` names the parameter in
 * messages ("Item", "ExpressionAttributeValues", ...).
 */
extern Av  *av_from_jsonb_value(JsonbContainer *jc, bool typed);
extern Av  *av_item_from_jsonb(Jsonb *jb, bool typed, const char *what);
extern Av  *av_map_from_jsonb(Jsonb *jb, bool typed, const char *what);

/*
 * ExpressionAttributeValues: as av_map_from_jsonb, but a value's problem is
 * reported as DynamoDB does, "ExpressionAttributeValues contains invalid
 * value: <why> for key :v".
 */
extern Av  *av_values_from_jsonb(Jsonb *jb, bool typed);

/* A stored item (typed, already normalised) to a tree: no validation. */
extern Av  *av_item_from_stored(Jsonb *jb);

/*
 * A tree to jsonb, typed or plain: an item (AV_M) as an object of attribute
 * values, or a single value ({"S": "x"} typed, "x" plain).
 */
extern Jsonb *av_item_to_jsonb(const Av *item, bool typed);
extern Jsonb *av_value_to_jsonb(const Av *v, bool typed);

/*
 * The JsonbValue tree of a value (typed or plain) or of an item (an object
 * of attribute values), with sorted, unique keys: for st_jsonb_raw_from_value,
 * or to place into a larger tree.
 */
extern void av_value_tree(const Av *v, bool typed, JsonbValue *out);
extern void av_item_tree(const Av *item, bool typed, JsonbValue *out);

/* The DynamoDB size of a stored (typed, normalised) item, read from its jsonb. */
extern int64 av_stored_item_size(Jsonb *jb);

/* Stored typed jsonb straight to the plain form (no tree). */
extern Jsonb *av_stored_to_plain(Jsonb *jb);

/*
 * Are the numbers of a stored (typed) item, at any depth (N, NS, in L and
 * M), DynamoDB numbers?  A row written by plain SQL may hold "NaN" or
 * "Infinity", which Postgres's numeric accepts but JSON cannot carry.
 * False, with DynamoDB's message in *err, at the first that is not.
 */
extern bool av_stored_numbers_ok(Jsonb *jb, StErr *err);

/* ExpressionAttributeNames {"#n": "name"} to an AV_M of S values. */
extern Av  *av_names_from_jsonb(Jsonb *jb);

#endif							/* ST_AV_JSONB_H */
