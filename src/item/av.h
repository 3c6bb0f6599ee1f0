/*-------------------------------------------------------------------------
 *
 * av.h
 *		The in-memory AttributeValue tree: how every layer above storage sees
 *		an item or a value.
 *
 * An item is an Av of type AV_M.  The tree is plain C (no backend needed):
 * the expression evaluator, update application, validation and item size
 * all work on it.  Conversion from and to jsonb (typed or plain) lives in
 * av_jsonb.c, which is the only part that needs a backend.
 *
 * Representation:
 *	- S:  UTF-8 bytes in str (not NUL-terminated necessarily; use len).
 *	- N:  canonical number text in str (see number.h), e.g. "7.5".
 *	- B:  the raw, decoded bytes in str (base64 only at the JSON boundary).
 *	- BOOL: boolval.  NULL: nothing.
 *	- L:  items[0..n) in order.
 *	- SS/NS/BS: items[0..n) are Av of type S/N/B, members distinct.
 *	- M:  members[0..n), names distinct; order is not significant.
 *
 * All memory comes from palloc (the current memory context in the backend).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_AV_H
#define ST_AV_H

#include "common/st_common.h"

typedef enum AvType
{
	AV_S,
	AV_N,
	AV_B,
	AV_BOOL,
	AV_NULL,
	AV_M,
	AV_L,
	AV_SS,
	AV_NS,
	AV_BS
} AvType;

#define AV_NTYPES 10

typedef struct Av Av;

typedef struct AvMember
{
	char	   *name;			/* UTF-8 attribute name */
	int			name_len;
	Av		   *value;
} AvMember;

struct Av
{
	AvType		type;
	bool		boolval;		/* AV_BOOL */
	char	   *str;			/* AV_S, AV_N, AV_B */
	int			len;			/* length of str in bytes */
	int			n;				/* number of items or members */
	int			cap;			/* allocated slots in items/members */
	Av		  **items;			/* AV_L and sets */
	AvMember   *members;		/* AV_M */
};

/* The DynamoDB type descriptor of a type: "S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS". */
extern const char *av_type_name(AvType type);

/* The type for a descriptor, or -1 when it is not one of the ten. */
extern int	av_type_from_name(const char *name, int len);

/* True for S, N, B (the scalar types that keys and set members may have). */
#define av_type_is_scalar(t) ((t) == AV_S || (t) == AV_N || (t) == AV_B)
#define av_type_is_set(t) ((t) == AV_SS || (t) == AV_NS || (t) == AV_BS)

/* The member type of a set type (AV_SS -> AV_S) and back. */
extern AvType av_set_member_type(AvType set_type);
extern AvType av_set_type_of(AvType member_type);

/* Constructors.  Strings are copied. */
extern Av  *av_new(AvType type);
extern Av  *av_new_str(AvType type, const char *str, int len);	/* S, N, B */
extern Av  *av_new_bool(bool value);
extern Av  *av_new_null(void);

/* Append an item to L or a set (no duplicate check), or a member to M (no check). */
extern void av_append(Av *list, Av *item);
extern void av_map_put_nocheck(Av *map, const char *name, int name_len, Av *value);

/* Map access: the value of a member, or NULL. */
extern Av  *av_map_get(const Av *map, const char *name, int name_len);

/* Set or replace a member of a map (name copied). */
extern void av_map_set(Av *map, const char *name, int name_len, Av *value);

/* Remove a member; returns true when it was there. */
extern bool av_map_remove(Av *map, const char *name, int name_len);

/* Remove item i of a list, shifting the rest down. */
extern void av_list_remove(Av *list, int index);

/* A deep copy. */
extern Av  *av_copy(const Av *value);

/*
 * Equality by DynamoDB's rules: same type and same value; numbers compare
 * numerically, sets as sets (order ignored), maps by members.
 */
extern bool av_equal(const Av *a, const Av *b);

/*
 * Ordering of two scalars of the same type (S by UTF-8 bytes, N numerically,
 * B by unsigned bytes): <0, 0, >0.  Only for S, N, B of equal type.
 */
extern int	av_compare_scalar(const Av *a, const Av *b);

/* Does a set contain a member equal to value? */
extern bool av_set_contains(const Av *set, const Av *value);

/*
 * av_normalize.c: from the request form to the stored form.
 *
 * DynamoDB documents nesting up to 32 levels; a top-level attribute value
 * is level 1 and each M or L adds one (a value nested in 31 maps sits at
 * level 32 and is accepted, one more map is refused).  Set members are not
 * a level of their own.
 */
#define AV_MAX_DEPTH 32

/*
 * Normalise a tree in place, as converted from request JSON: N and NS
 * members hold the number text as sent, B and BS members the base64 text
 * as sent.  Afterwards numbers are canonical (number.h), binary values are
 * raw bytes, sets are non-empty and free of duplicates (compared after
 * canonicalisation), nesting is within AV_MAX_DEPTH, and no string or name
 * holds U+0000 (the jsonb storage cannot).  On a problem fills *err with
 * DynamoDB's message and returns false; the tree may then be half done.
 *
 * depth is the level of v itself: 0 for an item, or for any map from
 * attribute names to values (ExpressionAttributeValues), whose member
 * values are then at level 1; 1 for a lone attribute value.
 */
extern bool av_normalize(Av *v, int depth, StErr *err);

/*
 * Standard base64 with padding, as the DynamoDB JSON protocol uses.  The
 * encoder returns palloc'd NUL-terminated text (NULL if the result would
 * not fit an int).  The decoder returns palloc'd bytes (NUL-terminated for
 * convenience) and false for anything that is not canonical base64;
 * av_base64_decode_err() also says why, in DynamoDB's words
 * (SerializationException).
 */
extern char *av_base64_encode(const char *bytes, int len, int *outlen);
extern bool av_base64_decode(const char *text, int len, char **out, int *outlen);
extern bool av_base64_decode_err(const char *text, int len, char **out, int *outlen,
								 StErr *err);

/*
 * av_size.c: item size by DynamoDB's documented rules (see av_size.c for
 * the formula).  av_item_size() takes an AV_M item: the sum over attributes
 * of name bytes plus value size.
 */
#define AV_MAX_ITEM_SIZE 409600	/* 400 KB */

extern int64 av_item_size(const Av *item);
extern int64 av_value_size(const Av *v);

/* A UTF-8 string's length in UTF-16 code units (DynamoDB's string length). */
extern int64 av_utf16_length(const char *s, int len);

/* The size of a number given as canonical text, by DynamoDB's rule. */
extern int64 av_number_size(const char *str, int len);

/* ValidationException "Item size has exceeded the maximum allowed size" past 400 KB. */
extern bool av_check_item_size(const Av *item, StErr *err);

/*
 * av_json.c: a typed item straight from JSON text (valid UTF-8), validated
 * and normalised as av_item_from_jsonb(typed) does; with wrapper, the text
 * is {"<wrapper>": item} (DynamoDB's export lines: "Item").  NULL, with
 * *err filled, when it is not.
 */
extern Av  *av_item_from_json_text(const char *text, int len, const char *wrapper, StErr *err);

#endif							/* ST_AV_H */
