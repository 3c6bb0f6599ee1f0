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

#include "common/st_common.h"

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

/*
 * The walk, inline: its calls were a sizeable part of printing GetRecords'
 * images (bench/RESULTS.md), where each attribute is an object of one
 * member.  Offsets: a child's data starts where the previous child's ends;
 * a JEntry holds either the child's length or (JENTRY_HAS_OFF) its end
 * offset, both relative to the start of the container's data.  Reading in
 * order keeps a running end offset, so a walk is linear and allocates
 * nothing.
 */

/* End offset of child `index`: its own offset, or lengths back to one. */
static inline uint32
st_jsonb_raw_entry_end(const JEntry *children, int index)
{
	uint32		end = 0;

	for (int i = index; i >= 0; i--)
	{
		end += JBE_OFFLENFLD(children[i]);
		if (JBE_HAS_OFF(children[i]))
			break;
	}
	return end;
}

/* Child data from [start, end): numerics and containers after their padding. */
static inline void
st_jsonb_raw_child(const char *base, JEntry entry, uint32 start, uint32 end, JsonbRaw *out)
{
	out->type = entry & JENTRY_TYPEMASK;
	if (out->type == JENTRY_ISNUMERIC || out->type == JENTRY_ISCONTAINER)
		start = INTALIGN(start);
	if (end < start)
		st_internal_error("corrupt jsonb container: child ends before it starts");
	out->data = base + start;
	out->len = end - start;
}

/* The end offset a child starts after: what `prev_end` is, or this JEntry says. */
static inline uint32
st_jsonb_raw_advance(JEntry entry, uint32 prev_end)
{
	return JBE_HAS_OFF(entry) ? JBE_OFFLENFLD(entry) : prev_end + JBE_OFFLENFLD(entry);
}

/* Start a walk over c's children. */
static inline void
st_jsonb_raw_begin(JsonbRawIter *it, const JsonbContainer *c)
{
	uint32		nentries;

	it->count = JsonContainerSize(c);
	nentries = JsonContainerIsObject(c) ? it->count * 2 : it->count;
	it->children = c->children;
	it->base = (const char *) (c->children + nentries);
	it->next = 0;
	it->key_end = 0;
	/* an object's values start where its last key ends */
	it->val_end = (JsonContainerIsObject(c) && it->count > 0) ?
		st_jsonb_raw_entry_end(c->children, it->count - 1) : 0;
}

/* The next element of an array; false after the last. */
static inline bool
st_jsonb_raw_next_elem(JsonbRawIter *it, JsonbRaw *value)
{
	JEntry		e;
	uint32		start = it->key_end;

	if (it->next >= it->count)
		return false;
	e = it->children[it->next++];
	it->key_end = st_jsonb_raw_advance(e, start);
	st_jsonb_raw_child(it->base, e, start, it->key_end, value);
	return true;
}

/* The next member of an object; false after the last. */
static inline bool
st_jsonb_raw_next_member(JsonbRawIter *it, JsonbRaw *key, JsonbRaw *value)
{
	JEntry		ke,
				ve;
	uint32		kstart = it->key_end,
				vstart = it->val_end;

	if (it->next >= it->count)
		return false;
	ke = it->children[it->next];
	ve = it->children[it->count + it->next];
	it->next++;
	it->key_end = st_jsonb_raw_advance(ke, kstart);
	it->val_end = st_jsonb_raw_advance(ve, vstart);
	st_jsonb_raw_child(it->base, ke, kstart, it->key_end, key);
	st_jsonb_raw_child(it->base, ve, vstart, it->val_end, value);
	return true;
}

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
