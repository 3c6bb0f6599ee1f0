/*-------------------------------------------------------------------------
 *
 * stream_batch.h
 *		Several records of one commit in one row of stdesign.stream_records
 *		(its batch column): their format, packed at the commit and walked
 *		in place by the readers.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_STREAM_BATCH_H
#define ST_STREAM_BATCH_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

/*
 * A batch's packed bytes at most (its varlena's data): its row stays below
 * a heap page's largest tuple, stored as it is (the column's storage is
 * PLAIN: never compressed, never moved to the TOAST table, always with a
 * 4-byte header, so that its images can be read in place as Jsonb).
 */
#define ST_STREAM_BATCH_MAX_BYTES 7936

/* One record of a batch; the images point into the batch. */
typedef struct StStreamBatchRecord
{
	int64		seq;
	int			event;			/* 0 INSERT, 1 MODIFY, 2 REMOVE */
	bool		ttl;
	int32		size;			/* SizeBytes */
	Jsonb	   *keys;
	Jsonb	   *new_image;		/* NULL: not kept */
	Jsonb	   *old_image;
} StStreamBatchRecord;

/*
 * Packing: begin on an empty builder, add records (each numbered above the
 * one before, all of one stream, of one commit), end to make the varlena.
 * fits says whether a record numbered seq of record_bytes still goes in.
 */
typedef struct StStreamBatchBuilder
{
	StringInfoData buf;			/* the varlena being made */
	int64		first;			/* its first record's number */
	int64		last;
	uint32		count;
	int64		size;			/* the records' SizeBytes */
} StStreamBatchBuilder;

/* a record's bytes in a batch; its images' headers may be short (not compressed) */
extern Size storage_stream_batch_record_bytes(const void *keys, const void *new_image,
											  const void *old_image);
extern void storage_stream_batch_begin(StStreamBatchBuilder *b);
extern bool storage_stream_batch_fits(const StStreamBatchBuilder *b, int64 seq, Size record_bytes);
extern void storage_stream_batch_add(StStreamBatchBuilder *b, const StStreamBatchRecord *rec);
/* the batch's varlena, in the builder's memory: good until it is begun again */
extern bytea *storage_stream_batch_end(StStreamBatchBuilder *b);

/*
 * Reading: the records of a batch whose row has number last, in order.
 * The batch is checked as it is walked (a malformed one raises, never
 * reads past its end).
 */
typedef struct StStreamBatchReader
{
	const char *p;
	const char *end;
	uint32		left;			/* records not yet read */
	uint32		span;			/* last - first */
	int64		first;
	int64		next_off;		/* the least offset the next record may have */
} StStreamBatchReader;

extern void storage_stream_batch_read(StStreamBatchReader *r, Datum batch, int64 last);
extern bool storage_stream_batch_next(StStreamBatchReader *r, StStreamBatchRecord *rec);
/* its number of records */
extern uint32 storage_stream_batch_records(Datum batch);

#endif							/* ST_STREAM_BATCH_H */
