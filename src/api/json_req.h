/*-------------------------------------------------------------------------
 *
 * json_req.h
 *		Reading DynamoDB JSON requests held in jsonb: members by name, with
 *		DynamoDB's errors for missing or mistyped fields.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_JSON_REQ_H
#define ST_JSON_REQ_H

#include "postgres.h"

#include "utils/jsonb.h"

/* Is jb a JSON object / array? */
extern bool api_jreq_is_object(Jsonb *jb);
extern bool api_jreq_is_array(Jsonb *jb);

/*
 * Every accessor below either returns a typed value or raises DynamoDB's
 * error; the only NULL any of them returns is "absent" from the *member*
 * accessors, which each caller must treat as the member not given.  A JSON
 * null member counts as absent, as DynamoDB's JSON protocol reads it.  An
 * array element or object member that is JSON null is returned as the jsonb
 * scalar null, never as NULL: it is a value of the wrong type (not an
 * object, an array nor a string) for every caller that expects one.
 */

/* The member `key` of object jb as a jsonb of its own, or NULL when absent (or JSON null). */
extern Jsonb *api_jreq_member(Jsonb *jb, const char *key);

/*
 * A string member: NULL when absent; SerializationException when it is not
 * a string.  `path` names the field in messages.
 */
extern char *api_jreq_member_text(Jsonb *jb, const char *key, const char *path);

/* A boolean member, or dflt when absent. */
extern bool api_jreq_member_bool(Jsonb *jb, const char *key, const char *path, bool dflt);

/* An integer member, or dflt when absent; must be an integral number. */
extern int64 api_jreq_member_int(Jsonb *jb, const char *key, const char *path, int64 dflt);

/*
 * The number of elements of an array (0 when jb is not one), and element i
 * (0 <= i < length) as a jsonb: JSON null as the null scalar, never NULL.
 */
extern int	api_jreq_array_length(Jsonb *jb);
extern Jsonb *api_jreq_array_element(Jsonb *jb, int i);

/*
 * The number of members of an object (0 when jb is not one), and member i's
 * key and value (0 <= i < size): JSON null as the null scalar, never NULL.
 */
extern int	api_jreq_object_size(Jsonb *jb);
extern Jsonb *api_jreq_object_member(Jsonb *jb, int i, char **key);

/* jb as JSON text (for error details and hashing). */
extern char *api_jreq_text(Jsonb *jb);

#endif							/* ST_JSON_REQ_H */
