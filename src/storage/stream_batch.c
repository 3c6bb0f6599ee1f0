/*-------------------------------------------------------------------------
 *
 * stream_batch.c
 *		Several records of one commit in one row of stdesign.stream_records.
 *
 * A commit of many records (an import, BatchWriteItem, a transaction)
 * wrote a row per record, and each row its primary key entry: the btree's
 * insertion was the larger part of what a stream cost such a commit
 * (bench/RESULTS.md).  So a commit of two records or more of a stream
 * packs them, consecutive in the stream's order, into the bytea column
 * batch of one row, numbered by the batch's last record: the readers'
 * ranges on sequence_number (a shard's, LATEST's max) see the same
 * bounds, and a scan after a number skips the records of the first row at
 * or below it.  A commit of one record (a put, an update) writes its row
 * as before, batch NULL.
 *
 * Format of the batch's data (after its 4-byte varlena header, every part
 * at a multiple of 4 bytes from the start, as the varlena is stored):
 *
 *	uint32 count		its records, at least 1
 *	uint32 span			last number - first number
 *	count records, in order, each:
 *		uint32 off		its number - first number (growing, the last's = span)
 *		int32 size		SizeBytes
 *		uint8 event		0 INSERT, 1 MODIFY, 2 REMOVE
 *		uint8 flags		BATCH_TTL, BATCH_NEW, BATCH_OLD
 *		uint16 zero
 *		keys			a Jsonb varlena (4-byte header), padded to 4 bytes
 *		[new image]		the same, when BATCH_NEW
 *		[old image]		the same, when BATCH_OLD
 *
 * The images are the Jsonb varlenas as the capture kept them, 4-aligned,
 * so a reader hands out pointers into the row, not copies.  The reader
 * checks every length and offset against the varlena's size (a superuser
 * can write the catalog) and raises on what is not a batch.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "common/st_common.h"
#include "item/jsonb_raw.h"
#include "stream_batch.h"
#include "stream_capture.h"

#define BATCH_TTL 1
#define BATCH_NEW 2
#define BATCH_OLD 4

#define BATCH_HEAD_BYTES (2 * sizeof(uint32))

typedef struct BatchRecordHead
{
	uint32		off;
	int32		size;
	uint8		event;
	uint8		flags;
	uint16		zero;
} BatchRecordHead;

StaticAssertDecl(sizeof(BatchRecordHead) == 12, "a batch's record head is 12 bytes");

/* an image's bytes in a batch: with a 4-byte header, padded */
static Size
image_bytes(const void *v)
{
	return v ? INTALIGN(VARSIZE_ANY_EXHDR(v) + VARHDRSZ) : 0;
}

Size
storage_stream_batch_record_bytes(const void *keys, const void *new_image, const void *old_image)
{
	return sizeof(BatchRecordHead) + image_bytes(keys) + image_bytes(new_image) +
		image_bytes(old_image);
}

void
storage_stream_batch_begin(StStreamBatchBuilder *b)
{
	if (b->buf.data == NULL)
		initStringInfo(&b->buf);
	resetStringInfo(&b->buf);
	/* the varlena's header and the batch's, set by end */
	appendStringInfoSpaces(&b->buf, VARHDRSZ + BATCH_HEAD_BYTES);
	b->first = 0;
	b->last = 0;
	b->count = 0;
	b->size = 0;
}

bool
storage_stream_batch_fits(const StStreamBatchBuilder *b, int64 seq, Size record_bytes)
{
	if (b->count == 0)
		return BATCH_HEAD_BYTES + record_bytes <= ST_STREAM_BATCH_MAX_BYTES;
	return seq > b->last && seq - b->first <= PG_UINT32_MAX &&
		b->buf.len - VARHDRSZ + record_bytes <= ST_STREAM_BATCH_MAX_BYTES;
}

/* buf += the varlena jb, with its 4-byte header, padded to 4 bytes */
static void
append_jsonb(StringInfo buf, const Jsonb *jb)
{
	Size		len = VARSIZE(jb);

	if (VARATT_IS_EXTENDED(jb))
		st_internal_error("a stream record's image to batch is not a plain varlena");
	appendBinaryStringInfo(buf, (const char *) jb, len);
	if (INTALIGN(len) != len)
		appendStringInfoSpaces(buf, INTALIGN(len) - len);
}

void
storage_stream_batch_add(StStreamBatchBuilder *b, const StStreamBatchRecord *rec)
{
	BatchRecordHead head;

	if (b->count == 0)
		b->first = rec->seq;
	else if (rec->seq <= b->last || rec->seq - b->first > PG_UINT32_MAX)
		st_internal_error("a stream record out of its batch's order");
	memset(&head, 0, sizeof(head));
	head.off = (uint32) (rec->seq - b->first);
	head.size = rec->size;
	head.event = (uint8) rec->event;
	head.flags = (rec->ttl ? BATCH_TTL : 0) | (rec->new_image ? BATCH_NEW : 0) |
		(rec->old_image ? BATCH_OLD : 0);
	appendBinaryStringInfo(&b->buf, (const char *) &head, sizeof(head));
	append_jsonb(&b->buf, rec->keys);
	if (rec->new_image)
		append_jsonb(&b->buf, rec->new_image);
	if (rec->old_image)
		append_jsonb(&b->buf, rec->old_image);
	b->last = rec->seq;
	b->count++;
	b->size += rec->size;
}

bytea *
storage_stream_batch_end(StStreamBatchBuilder *b)
{
	uint32		head[2];

	head[0] = b->count;
	head[1] = (uint32) (b->last - b->first);
	memcpy(b->buf.data + VARHDRSZ, head, sizeof(head));
	SET_VARSIZE(b->buf.data, b->buf.len);
	return (bytea *) b->buf.data;
}

/* ---------- reading ---------- */

static pg_noreturn void
malformed(const char *what)
{
	st_internal_error("a batch of stdesign.stream_records is malformed: %s", what);
}

void
storage_stream_batch_read(StStreamBatchReader *r, Datum batch, int64 last)
{
	bytea	   *v = DatumGetByteaP(batch);
	uint32		head[2];

	/*
	 * In place when stored as the capture writes it (a 4-byte header at a
	 * 4-byte boundary); else (a superuser's row) a copy, aligned.
	 */
	if (((uintptr_t) v) % sizeof(uint32) != 0)
	{
		bytea	   *copy = palloc(VARSIZE(v));

		memcpy(copy, v, VARSIZE(v));
		v = copy;
	}
	if (VARSIZE(v) < VARHDRSZ + BATCH_HEAD_BYTES)
		malformed("too short");
	memcpy(head, VARDATA(v), sizeof(head));
	if (head[0] == 0)
		malformed("no records");
	if (last < 1 || (int64) head[1] > last - 1)
		malformed("its numbers are out of range");
	r->p = VARDATA(v) + BATCH_HEAD_BYTES;
	r->end = (const char *) v + VARSIZE(v);
	r->left = head[0];
	r->span = head[1];
	r->first = last - head[1];
	r->next_off = 0;
}

/*
 * Is c, of len bytes, a jsonb container every reader may walk?  Its
 * children's entries and data within len, their offsets in order, an
 * object's keys strings, numerics whole varlenas, nested containers the
 * same within their own bytes.  A bytea column takes any bytes, where a
 * jsonb column took only valid jsonb: the images' walkers (jsonb_raw.h,
 * Postgres's jsonb functions in the SQL readers) trust the format, so a
 * batch a superuser wrote must be refused here, not read out of bounds.
 * One pass over the entries: a small part of printing them.
 */
#define BATCH_MAX_DEPTH 256

/* Is n, of avail bytes, a whole numeric varlena, inline, with its own header word? */
static bool
valid_numeric(const char *n, Size avail)
{
	Size		size;
	Size		hdr;

	if (VARATT_IS_1B(n))
	{
		if (VARATT_IS_1B_E(n))
			return false;
		size = VARSIZE_1B(n);
		hdr = VARHDRSZ_SHORT;
	}
	else
	{
		if (avail < VARHDRSZ || !VARATT_IS_4B_U(n))
			return false;
		size = VARSIZE_4B(n);
		hdr = VARHDRSZ;
	}
	return size == avail && size >= hdr + sizeof(uint16);
}

static bool
valid_container(const char *c, Size len, int depth)
{
	uint32		header;
	uint32		count;
	uint64		nentries;
	const JEntry *children;
	const char *base;
	uint64		datalen;
	uint32		end = 0;
	bool		object;

	check_stack_depth();
	if (depth > BATCH_MAX_DEPTH || len < sizeof(uint32))
		return false;
	memcpy(&header, c, sizeof(uint32));
	count = header & JB_CMASK;
	object = (header & JB_FOBJECT) != 0;
	if (object == ((header & JB_FARRAY) != 0))
		return false;			/* exactly one of the two */
	if ((header & JB_FSCALAR) && (object || count != 1))
		return false;
	nentries = object ? (uint64) count * 2 : count;
	if ((uint64) sizeof(uint32) + nentries * sizeof(JEntry) > len)
		return false;
	children = (const JEntry *) (c + sizeof(uint32));
	base = (const char *) (children + nentries);
	datalen = len - sizeof(uint32) - nentries * sizeof(JEntry);
	for (uint64 i = 0; i < nentries; i++)
	{
		JEntry		e = children[i];
		uint32		type = e & JENTRY_TYPEMASK;
		uint32		start = end;

		end = st_jsonb_raw_advance(e, start);
		if (end < start || end > datalen)
			return false;
		if (object && i < count && type != JENTRY_ISSTRING)
			return false;
		switch (type)
		{
			case JENTRY_ISSTRING:
				break;
			case JENTRY_ISBOOL_FALSE:
			case JENTRY_ISBOOL_TRUE:
			case JENTRY_ISNULL:
				if (end != start)
					return false;
				break;
			case JENTRY_ISNUMERIC:
				start = INTALIGN(start);
				if (start >= end || !valid_numeric(base + start, end - start))
					return false;
				break;
			case JENTRY_ISCONTAINER:
				start = INTALIGN(start);
				if (start > end || !valid_container(base + start, end - start, depth + 1))
					return false;
				break;
			default:
				return false;
		}
	}
	return true;
}

/* The Jsonb at r->p, checked against the batch's end; r->p moves past it. */
static Jsonb *
next_jsonb(StStreamBatchReader *r)
{
	const char *p = r->p;
	Size		len;

	if (r->end - p < (ptrdiff_t) (VARHDRSZ + sizeof(uint32)))
		malformed("an image past its end");
	if (!VARATT_IS_4B_U(p))
		malformed("an image not stored plain");
	len = VARSIZE(p);
	if (len < VARHDRSZ + sizeof(uint32) || (Size) (r->end - p) < INTALIGN(len))
		malformed("an image's length");
	if (!valid_container(p + VARHDRSZ, len - VARHDRSZ, 0))
		malformed("an image that is not jsonb");
	r->p = p + INTALIGN(len);
	return (Jsonb *) p;
}

bool
storage_stream_batch_next(StStreamBatchReader *r, StStreamBatchRecord *rec)
{
	BatchRecordHead head;

	if (r->left == 0)
	{
		if (r->p != r->end)
			malformed("bytes after its records");
		return false;
	}
	if (r->end - r->p < (ptrdiff_t) sizeof(head))
		malformed("a record past its end");
	memcpy(&head, r->p, sizeof(head));
	r->p += sizeof(head);
	if ((int64) head.off < r->next_off || head.off > r->span ||
		(r->left == 1 && head.off != r->span))
		malformed("its records' numbers");
	if (head.event > 2 || (head.flags & ~(BATCH_TTL | BATCH_NEW | BATCH_OLD)) != 0 || head.size < 0)
		malformed("a record's event");
	rec->seq = r->first + head.off;
	rec->event = head.event;
	rec->ttl = (head.flags & BATCH_TTL) != 0;
	rec->size = head.size;
	rec->keys = next_jsonb(r);
	rec->new_image = (head.flags & BATCH_NEW) ? next_jsonb(r) : NULL;
	rec->old_image = (head.flags & BATCH_OLD) ? next_jsonb(r) : NULL;
	r->next_off = (int64) head.off + 1;
	r->left--;
	return true;
}

uint32
storage_stream_batch_records(Datum batch)
{
	StStreamBatchReader r;

	/*
	 * Its header's count, bounded by what its bytes can hold (a record is
	 * at least its head and a key image): not walked, so that the trim and
	 * st_stream_stats, which count every stream's records, go on when one
	 * row is malformed (its readers raise on it)
	 */
	storage_stream_batch_read(&r, batch, PG_INT64_MAX);
	if ((uint64) r.left * (sizeof(BatchRecordHead) + VARHDRSZ + sizeof(uint32)) > (uint64) (r.end - r.p))
		malformed("more records than bytes");
	return r.left;
}

/*
 * stdesign.stream_batch_records(batch): the number of records of a batch
 * (st_stream_stats, the trimming's count).  Granted to nobody.
 */
PG_FUNCTION_INFO_V1(st_stream_batch_records);
Datum
st_stream_batch_records(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) storage_stream_batch_records(PG_GETARG_DATUM(0)));
}

/* ---------- the records as rows, for SQL ---------- */

static bool
record_row(void *arg, const Datum *values, const bool *nulls)
{
	ReturnSetInfo *rsinfo = arg;

	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, (Datum *) values, (bool *) nulls);
	return true;
}

/*
 * stdesign.stream_record_rows(stream_id, after, max): the records of a
 * stream numbered above after, in order, at most max, each as a row of
 * stdesign.stream_records of its own (batch NULL), whether it is stored
 * so or in a batch.  The SQL readers' source (ops_stream_records_of,
 * the tests).  Granted to nobody: it reads any stream as the catalog's
 * owner.
 */
PG_FUNCTION_INFO_V1(st_stream_record_rows);
Datum
st_stream_record_rows(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int64		stream_id = PG_GETARG_INT64(0);
	int64		after = PG_GETARG_INT64(1);
	int32		max = PG_GETARG_INT32(2);

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	if (max > 0)
		storage_stream_records_scan(stream_id, after, PG_INT64_MAX, max,
									rsinfo->setDesc->natts, record_row, rsinfo);
	return (Datum) 0;
}
