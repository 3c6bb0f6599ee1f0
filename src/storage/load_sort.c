/*-------------------------------------------------------------------------
 *
 * load_sort.c
 *		The entries of one btree index, kept and sorted by a bulk load, then
 *		given to the index's build in order.
 *
 * A load into an empty table (row_write.c) leaves the table's btree
 * indexes alone and builds them when it ends, as CREATE INDEX builds one:
 * the entries sorted, then written bottom-up, leaf page after leaf page.
 * Most of such a build is its sort, which compares index tuples column by
 * column through each column's comparison function.  The load has each
 * row's entry in hand anyway (it evaluated the index's expressions and
 * predicate when it wrote the row), so it keeps them here, each encoded
 * as bytes whose plain byte order (memcmp) is the index's order, sorts
 * them with that cheap comparison, and gives them to the build in order
 * through the table access method's build scan (st_tableam_build_feed),
 * in place of a scan of the table.  The build's own sort then finds its
 * input already in order, which it checks in one pass.
 *
 * Only an index whose every column compares as its bytes do is kept:
 * bytea, and text under the "C" collation (the key columns of S and B
 * keys: stdesign.key_ix(pk) and the sort key), ascending, nulls last.
 * Each column is encoded as a tag (1, or 2 for a null: after every value),
 * its bytes with each zero byte written as 00 FF, and a terminator 00 00,
 * so that a value sorts before every longer value it begins; then the
 * row's TID (block and offset, big-endian), which btree uses to order
 * equal keys.  A table with number keys (numeric columns) is built from
 * a scan of the table, as CREATE INDEX would build it.
 *
 * The unique key index of a load that may write a key twice is kept
 * "deduplicating": each entry carries the row's place in the load (after
 * the key columns, before the TID), so that equal keys sort in load order;
 * the build then takes only the last row of each key, and the TIDs of the
 * others (rows replaced) are returned, for the caller to delete them and
 * to leave them out of the other indexes' builds (storage_load_sort_skip).
 *
 * Kept entries take memory, up to the budget given (the load's share of
 * maintenance_work_mem): each time it is full, the entries so far are
 * sorted and written to a temporary file of their own (a run), and the
 * build reads all runs at once, merging them (a binary heap of the runs'
 * next entries), as an external sort does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/tableam.h"
#include "lib/binaryheap.h"
#include "storage/buffile.h"
#include "catalog/index.h"
#include "catalog/pg_opfamily_d.h"
#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/pg_locale.h"
#include "utils/rel.h"

#include "common/st_compat.h"
#include "load_sort.h"
#include "tableam.h"

/* Encoded entries are copied into blocks of this size. */
#define ARENA_BLOCK (1024 * 1024)
/* The least memory kept entries may take before a run is written. */
#define MIN_BUDGET (4 * ARENA_BLOCK)

#define TAG_VALUE	1
#define TAG_NULL	2

typedef struct LoadEntry
{
	uint64		prefix;			/* the first 8 bytes, big-endian, zero-padded */
	uint32		len;
	const char *bytes;
} LoadEntry;

struct StLoadSort
{
	int			natts;
	MemoryContext cxt;			/* everything kept */
	MemoryContext arena_cxt;	/* the entries' bytes: emptied by each run */
	LoadEntry  *entries;
	int64		n;
	int64		cap;
	char	   *arena;			/* the current block */
	Size		arena_free;
	Size		used;			/* bytes taken so far */
	Size		budget;
	StringInfoData buf;			/* the entry being encoded */
	List	   *runs;			/* BufFile of each run written, in order */
	bool		dedupe;			/* entries carry their place in the load */
	ItemPointerData *dropped;	/* dedupe: rows whose key a later row has */
	int64		ndropped;
	int64		dropped_cap;
	const ItemPointerData *skip;	/* rows to leave out (sorted), or NULL */
	int64		nskip;
	char	   *prev;			/* dedupe: the entry held back, its bytes */
	uint32		prev_len;
	uint32		prev_cap;
};

/* The place in the load, after the key columns: 8 bytes, before the 6 of the TID. */
#define SEQ_BYTES 8
#define TID_BYTES 6

/* The next entry of one run (or of the entries in memory), during the merge. */
typedef struct RunReader
{
	BufFile    *file;			/* NULL: the entries in memory */
	int64		next;			/* in memory: the index of the next entry */
	LoadEntry	cur;
	char	   *buf;
	Size		bufsize;
} RunReader;

static inline int
load_entry_cmp(const LoadEntry *a, const LoadEntry *b)
{
	int			c;

	if (a->prefix != b->prefix)
		return a->prefix < b->prefix ? -1 : 1;
	c = memcmp(a->bytes, b->bytes, Min(a->len, b->len));
	if (c != 0)
		return c;
	return (a->len > b->len) - (a->len < b->len);
}

#define ST_SORT sort_load_entries
#define ST_ELEMENT_TYPE LoadEntry
#define ST_COMPARE(a, b) load_entry_cmp(a, b)
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* An entry's first 8 bytes as a big-endian number, zero-padded: its sort prefix. */
static uint64
entry_prefix(const char *bytes, uint32 len)
{
	uint64		prefix = 0;

	for (int i = 0; i < 8; i++)
		prefix = (prefix << 8) | (i < len ? (unsigned char) bytes[i] : 0);
	return prefix;
}

/* The TID an entry ends with. */
static void
entry_tid(const char *bytes, uint32 len, ItemPointer tid)
{
	const unsigned char *t = (const unsigned char *) bytes + len - TID_BYTES;

	ItemPointerSet(tid,
				   ((BlockNumber) t[0] << 24) | ((BlockNumber) t[1] << 16) |
				   ((BlockNumber) t[2] << 8) | (BlockNumber) t[3],
				   (OffsetNumber) ((t[4] << 8) | t[5]));
}

/* Does column i of index order its values as memcmp orders their bytes? */
static bool
column_byte_ordered(Relation index, int i)
{
	Oid			type = TupleDescAttr(RelationGetDescr(index), i)->atttypid;
	Oid			opfamily = index->rd_opfamily[i];

	if (index->rd_indoption[i] != 0)	/* DESC, or NULLS FIRST */
		return false;
	if (type == BYTEAOID)
		return opfamily == BYTEA_BTREE_FAM_OID;
	if (type == TEXTOID)
		return opfamily == TEXT_PATTERN_BTREE_FAM_OID ||
			(opfamily == TEXT_BTREE_FAM_OID && st_collation_is_c(index->rd_indcollation[i]));
	return false;
}

StLoadSort *
storage_load_sort_begin(Relation index, Size budget, bool dedupe)
{
	int			natts = IndexRelationGetNumberOfAttributes(index);
	StLoadSort *s;

	if (natts != IndexRelationGetNumberOfKeyAttributes(index))
		return NULL;
	for (int i = 0; i < natts; i++)
		if (!column_byte_ordered(index, i))
			return NULL;
	s = palloc0(sizeof(StLoadSort));
	s->natts = natts;
	s->dedupe = dedupe;
	s->cxt = AllocSetContextCreate(CurrentMemoryContext, "stdesign load index entries",
								   ALLOCSET_DEFAULT_SIZES);
	s->arena_cxt = AllocSetContextCreate(s->cxt, "stdesign load index entry bytes",
										 ALLOCSET_DEFAULT_SIZES);
	s->budget = Max(budget, MIN_BUDGET);
	s->cap = 1024;
	s->entries = MemoryContextAllocHuge(s->cxt, sizeof(LoadEntry) * s->cap);
	s->used = sizeof(LoadEntry) * s->cap;
	initStringInfo(&s->buf);
	return s;
}

static void
encode_value(StringInfo buf, Datum value)
{
	struct varlena *v = PG_DETOAST_DATUM_PACKED(value);
	const char *p = VARDATA_ANY(v);
	int			len = VARSIZE_ANY_EXHDR(v);

	appendStringInfoChar(buf, TAG_VALUE);
	while (len > 0)
	{
		const char *zero = memchr(p, 0, len);
		int			run = zero ? zero - p : len;

		appendBinaryStringInfo(buf, p, run);
		if (zero == NULL)
			break;
		appendBinaryStringInfo(buf, "\0\377", 2);
		p = zero + 1;
		len -= run + 1;
	}
	appendBinaryStringInfo(buf, "\0\0", 2);
	if ((Pointer) v != DatumGetPointer(value))
		pfree(v);
}

/* The entries in memory, sorted, written as a run; the memory is free again. */
static void
write_run(StLoadSort *s)
{
	MemoryContext old = MemoryContextSwitchTo(s->cxt);
	BufFile    *file = BufFileCreateTemp(false);

	MemoryContextSwitchTo(old);
	sort_load_entries(s->entries, s->n);
	for (int64 i = 0; i < s->n; i++)
	{
		uint32		len = s->entries[i].len;

		BufFileWrite(file, &len, sizeof(len));
		BufFileWrite(file, (void *) s->entries[i].bytes, len);
		if ((i & 1023) == 1023)
			CHECK_FOR_INTERRUPTS();
	}
	if (BufFileSeek(file, 0, 0, SEEK_SET) != 0)
		ereport(ERROR, (errcode_for_file_access(),
						errmsg("could not rewind a temporary file of index entries: %m")));
	old = MemoryContextSwitchTo(s->cxt);
	s->runs = lappend(s->runs, file);
	MemoryContextSwitchTo(old);
	MemoryContextReset(s->arena_cxt);
	s->arena = NULL;
	s->arena_free = 0;
	s->used = sizeof(LoadEntry) * s->cap;
	s->n = 0;
}

/* Room for len more bytes of entries, within the budget (a run written when full). */
static char *
arena_take(StLoadSort *s, Size len)
{
	char	   *p;

	if (len > s->arena_free)
	{
		Size		block = Max(len, ARENA_BLOCK);

		if (s->used + block > s->budget && s->n > 0)
			write_run(s);
		s->arena = MemoryContextAlloc(s->arena_cxt, block);
		s->arena_free = block;
		s->used += block;
	}
	p = s->arena;
	s->arena += len;
	s->arena_free -= len;
	return p;
}

void
storage_load_sort_add(StLoadSort *s, ItemPointer tid, const Datum *values,
					  const bool *isnull, int64 seq)
{
	BlockNumber block = ItemPointerGetBlockNumber(tid);
	OffsetNumber offset = ItemPointerGetOffsetNumber(tid);
	unsigned char tidbytes[TID_BYTES];
	LoadEntry  *e;
	char	   *bytes;
	MemoryContext old;

	if (s->n == s->cap)
	{
		Size		grown = sizeof(LoadEntry) * s->cap;

		if (s->used + grown > s->budget)
			write_run(s);
		else
		{
			s->entries = repalloc_huge(s->entries, 2 * grown);
			s->cap *= 2;
			s->used += grown;
		}
	}
	resetStringInfo(&s->buf);
	old = MemoryContextSwitchTo(s->cxt);
	for (int i = 0; i < s->natts; i++)
	{
		if (isnull[i])
			appendStringInfoChar(&s->buf, TAG_NULL);
		else
			encode_value(&s->buf, values[i]);
	}
	MemoryContextSwitchTo(old);
	if (s->dedupe)
	{
		unsigned char seqbytes[SEQ_BYTES];

		for (int i = 0; i < SEQ_BYTES; i++)
			seqbytes[i] = (uint64) seq >> (8 * (SEQ_BYTES - 1 - i));
		appendBinaryStringInfo(&s->buf, (char *) seqbytes, SEQ_BYTES);
	}
	tidbytes[0] = block >> 24;
	tidbytes[1] = block >> 16;
	tidbytes[2] = block >> 8;
	tidbytes[3] = block;
	tidbytes[4] = offset >> 8;
	tidbytes[5] = offset;
	appendBinaryStringInfo(&s->buf, (char *) tidbytes, sizeof(tidbytes));

	bytes = arena_take(s, s->buf.len);
	memcpy(bytes, s->buf.data, s->buf.len);
	e = &s->entries[s->n++];
	e->bytes = bytes;
	e->len = s->buf.len;
	e->prefix = entry_prefix(bytes, e->len);
}

/* The columns and TID an entry was encoded from (values palloc'd). */
static void
decode_entry(const LoadEntry *e, int natts, bool dedupe, Datum *values, bool *isnull,
			 ItemPointer tid)
{
	const unsigned char *p = (const unsigned char *) e->bytes;
	const unsigned char *end = p + e->len - TID_BYTES - (dedupe ? SEQ_BYTES : 0);

	for (int i = 0; i < natts; i++)
	{
		const unsigned char *q;
		int			n = 0;
		struct varlena *v;
		char	   *out;

		if (p >= end || e->len < TID_BYTES + (dedupe ? SEQ_BYTES : 0))
			elog(ERROR, "stdesign: index entry of a load is corrupt");
		if (*p++ == TAG_NULL)
		{
			isnull[i] = true;
			values[i] = (Datum) 0;
			continue;
		}
		/* the value's length: up to the terminator 00 00, 00 FF counting one */
		for (q = p; q + 1 < end && !(q[0] == 0 && q[1] == 0); q += (q[0] == 0) ? 2 : 1)
			n++;
		if (q + 1 >= end)
			elog(ERROR, "stdesign: index entry of a load is corrupt");
		v = palloc(VARHDRSZ + n);
		SET_VARSIZE(v, VARHDRSZ + n);
		out = VARDATA(v);
		while (p < q)
		{
			*out++ = *p;
			p += (*p == 0) ? 2 : 1;
		}
		p = q + 2;
		isnull[i] = false;
		values[i] = PointerGetDatum(v);
	}
	entry_tid(e->bytes, e->len, tid);
}

/* Is tid among the rows to leave out? */
static bool
skipped(StLoadSort *s, ItemPointer tid)
{
	int64		lo = 0;
	int64		hi = s->nskip - 1;

	while (lo <= hi)
	{
		int64		mid = lo + (hi - lo) / 2;
		int			c = ItemPointerCompare((ItemPointer) &s->skip[mid], tid);

		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return false;
}

/* Do two deduplicating entries have the same key (all but place and TID)? */
static bool
same_key(const char *a, uint32 alen, const LoadEntry *b)
{
	uint32		tail = SEQ_BYTES + TID_BYTES;

	return alen == b->len && alen >= tail && memcmp(a, b->bytes, alen - tail) == 0;
}

static void
drop_row(StLoadSort *s, const char *bytes, uint32 len)
{
	if (s->ndropped == s->dropped_cap)
	{
		s->dropped_cap = Max(64, 2 * s->dropped_cap);
		s->dropped = s->dropped
			? repalloc_huge(s->dropped, sizeof(ItemPointerData) * s->dropped_cap)
			: MemoryContextAllocHuge(s->cxt, sizeof(ItemPointerData) * s->dropped_cap);
	}
	entry_tid(bytes, len, &s->dropped[s->ndropped++]);
}

/* Advance r to its next entry; false at its end. */
static bool
run_next(StLoadSort *s, RunReader *r)
{
	uint32		len;
	size_t		got;

	if (r->file == NULL)
	{
		if (r->next >= s->n)
			return false;
		r->cur = s->entries[r->next++];
		return true;
	}
	got = BufFileRead(r->file, &len, sizeof(len));
	if (got == 0)
		return false;
	if (got != sizeof(len) || len < TID_BYTES || len > MaxAllocSize)
		elog(ERROR, "stdesign: a temporary file of index entries is corrupt");
	if (len > r->bufsize)
	{
		r->buf = r->buf ? repalloc(r->buf, len) : palloc(len);
		r->bufsize = len;
	}
	if (BufFileRead(r->file, r->buf, len) != len)
		elog(ERROR, "stdesign: a temporary file of index entries is corrupt");
	r->cur.bytes = r->buf;
	r->cur.len = len;
	r->cur.prefix = entry_prefix(r->buf, len);
	return true;
}

/* binaryheap keeps the greatest first: the run whose next entry is least is "greatest" */
static int
run_cmp(Datum a, Datum b, void *arg)
{
	RunReader  *readers = arg;

	return -load_entry_cmp(&readers[DatumGetInt32(a)].cur, &readers[DatumGetInt32(b)].cur);
}

/* Give the build one entry, unless its row is left out; 1 if given. */
static int
feed_one(StLoadSort *s, const char *bytes, uint32 len, Relation index,
		 IndexBuildCallback callback, void *callback_state)
{
	LoadEntry	e = {0, len, bytes};
	Datum		values[INDEX_MAX_KEYS];
	bool		isnull[INDEX_MAX_KEYS];
	ItemPointerData tid;

	decode_entry(&e, s->natts, s->dedupe, values, isnull, &tid);
	if (s->nskip > 0 && skipped(s, &tid))
		return 0;
	callback(index, &tid, values, isnull, true, callback_state);
	return 1;
}

/* Deduplicating: keep a copy of e, the reader's buffer being reused. */
static void
hold(StLoadSort *s, const LoadEntry *e)
{
	if (e->len > s->prev_cap)
	{
		s->prev = s->prev ? repalloc(s->prev, e->len) : MemoryContextAlloc(s->cxt, e->len);
		s->prev_cap = e->len;
	}
	memcpy(s->prev, e->bytes, e->len);
	s->prev_len = e->len;
}

/* The table access method's build scan of the index: the entries, in order. */
static double
load_sort_feed(Relation index, IndexBuildCallback callback, void *callback_state, void *arg)
{
	StLoadSort *s = arg;
	int			nreaders = list_length(s->runs) + 1;
	RunReader  *readers = palloc0(sizeof(RunReader) * nreaders);
	binaryheap *heap = binaryheap_allocate(nreaders, run_cmp, readers);
	MemoryContext tmp = AllocSetContextCreate(CurrentMemoryContext, "stdesign index feed",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old;
	int64		fed = 0;
	int64		seen = 0;
	ListCell   *lc;

	foreach(lc, s->runs)
		readers[foreach_current_index(lc)].file = lfirst(lc);
	for (int i = 0; i < nreaders; i++)
		if (run_next(s, &readers[i]))
			binaryheap_add_unordered(heap, Int32GetDatum(i));
	binaryheap_build(heap);
	while (!binaryheap_empty(heap))
	{
		RunReader  *r = &readers[DatumGetInt32(binaryheap_first(heap))];

		old = MemoryContextSwitchTo(tmp);
		if (s->dedupe)
		{
			/* the entry before is given only once this one has another key */
			if (s->prev_len > 0 && same_key(s->prev, s->prev_len, &r->cur))
				drop_row(s, s->prev, s->prev_len);
			else if (s->prev_len > 0)
				fed += feed_one(s, s->prev, s->prev_len, index, callback, callback_state);
			hold(s, &r->cur);
		}
		else
			fed += feed_one(s, r->cur.bytes, r->cur.len, index, callback, callback_state);
		MemoryContextSwitchTo(old);
		if (run_next(s, r))
			binaryheap_replace_first(heap, binaryheap_first(heap));
		else
			(void) binaryheap_remove_first(heap);
		if ((++seen & 1023) == 0)
		{
			CHECK_FOR_INTERRUPTS();
			MemoryContextReset(tmp);
		}
	}
	if (s->dedupe && s->prev_len > 0)
	{
		old = MemoryContextSwitchTo(tmp);
		fed += feed_one(s, s->prev, s->prev_len, index, callback, callback_state);
		MemoryContextSwitchTo(old);
	}
	MemoryContextDelete(tmp);
	binaryheap_free(heap);
	pfree(readers);
	return (double) fed;
}

void
storage_load_sort_build(StLoadSort *s, Relation heap, Relation index)
{
	if (s != NULL)
	{
		sort_load_entries(s->entries, s->n);
		st_tableam_build_feed(RelationGetRelid(index), load_sort_feed, s);
	}
	PG_TRY();
	{
		RelationSetNewRelfilenumber(index, index->rd_rel->relpersistence);
		index_build(heap, index, BuildIndexInfo(index), true, false);
	}
	PG_FINALLY();
	{
		st_tableam_build_feed(InvalidOid, NULL, NULL);
	}
	PG_END_TRY();
	CommandCounterIncrement();
}

static int
tid_cmp(const void *a, const void *b)
{
	return ItemPointerCompare((ItemPointer) a, (ItemPointer) b);
}

ItemPointerData *
storage_load_sort_dropped(StLoadSort *s, int64 *n)
{
	if (s->ndropped > 1)
		qsort(s->dropped, s->ndropped, sizeof(ItemPointerData), tid_cmp);
	*n = s->ndropped;
	return s->dropped;
}

void
storage_load_sort_skip(StLoadSort *s, const ItemPointerData *sorted, int64 n)
{
	s->skip = sorted;
	s->nskip = n;
}

void
storage_load_sort_end(StLoadSort *s)
{
	ListCell   *lc;

	if (s == NULL)
		return;
	foreach(lc, s->runs)
		BufFileClose(lfirst(lc));
	MemoryContextDelete(s->cxt);
	pfree(s->buf.data);
	pfree(s);
}
