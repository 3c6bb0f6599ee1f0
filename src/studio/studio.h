/*-------------------------------------------------------------------------
 *
 * studio.h
 *		The single-table design studio: what a design does with its items
 *		and its traffic, and its import and export formats.
 *
 * The studio sits between api and ops (test/scripts/layers.sh): its SQL
 * functions read tables through catalog and ops, never storage.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_STUDIO_H
#define ST_STUDIO_H

#include "postgres.h"

#include "fmgr.h"
#include "catalog/st_catalog.h"
#include "item/av.h"

/* traffic, partitions, import/export */

/* A text argument as a C string, or NULL when SQL NULL. */
extern char *studio_io_arg_text(FunctionCallInfo fcinfo, int n);

/* The same for an argument that must be given (ValidationException naming it). */
extern char *studio_io_arg_required(FunctionCallInfo fcinfo, int n, const char *name);

/*
 * The items of one key space (the table, or one of its global secondary
 * indexes), grouped by partition key value: studio_partitions.c.
 */
typedef struct StudioPartition
{
	char	   *key;			/* the partition key value as text (B base64) */
	int64		items;
	int64		bytes;			/* DynamoDB size of the items (the index's projection) */
} StudioPartition;

typedef struct StudioKeySpace
{
	StIndex    *index;			/* NULL: the table */
	int			n;				/* partitions, sorted by bytes, largest first */
	StudioPartition *parts;
	int64		items;
	int64		bytes;
} StudioKeySpace;

typedef struct StudioPartitions
{
	int			nspaces;		/* the table, then each global secondary index */
	StudioKeySpace *spaces;
	bool		sampled;		/* counts are scaled up from a sample */
	int64		items_read;		/* items read (the sample's size when sampled) */
} StudioPartitions;

/*
 * Group the items of table t (at most about sample_items of them, sampled
 * evenly when the table holds more, the counts then scaled up).
 */
extern StudioPartitions *studio_partitions(StTable *t, int64 sample_items);

#endif							/* ST_STUDIO_H */
