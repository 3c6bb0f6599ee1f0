/*-------------------------------------------------------------------------
 *
 * studio_import.c
 *		Import of DynamoDB's export format: the JSON lines of an export to
 *		S3 (ExportFormat DYNAMODB_JSON), one {"Item": {...}} per line, the
 *		item's attributes as typed AttributeValues (Developer Guide, "DynamoDB
 *		table export output format").
 *
 *	 st_import(table_name, lines text) -> bigint
 *	 st_import_file(table_name, path text) -> bigint	 (pg_read_server_files)
 *
 * Each line is read straight into an item (av_item_from_json_text: no
 * jsonb in between), validated and normalised as PutItem's item is.
 * An import is one statement: every item is validated as PutItem does,
 * and the first bad line fails the whole import, nothing written, with
 * the line's number in the error's CONTEXT (as COPY reports its line).
 * Items are written 1000 at a time in key order, the last of equal keys
 * winning.  Into a table that was empty when the import began, keys the
 * import has not written before (a Bloom filter of the keys written says
 * so) are inserted as COPY inserts rows: one load (ops_load_begin) for
 * all chunks, heap tuples in batches and the table's indexes built at its
 * end (from scratch, as CREATE INDEX builds them, when no other
 * transaction was using the table: readers then wait for the import's
 * commit, as DynamoDB's import makes a table readable only when done;
 * else index entries sorted and inserted in index order), or, for a table
 * with item collections to check, index entries with each chunk
 * (ops_load_sorted); no speculative insertion either way.  No traffic is
 * counted (st_partition_traffic): DynamoDB's import consumes no write
 * capacity.  A key written again ends the load first (its
 * earlier item must be found), then replaces it.  Those, and every item
 * of an import into a table that had items, are written as st_put_all
 * writes them, as INSERT ... ON CONFLICT DO UPDATE would.  A table whose
 * writes must go through statements (user triggers, row security, rules)
 * gets statements either way.  Progress shows in pg_stat_progress_copy
 * (command COPY FROM, the bytes and the items so far), as a COPY's does.
 *
 * st_import_file hands the reading of a large file (parsing, checking,
 * the stored form) to a parallel worker when the indexes are built at the
 * end (import_parallel): the worker sends each item over a shared-memory
 * queue while this backend writes them.
 *
 * A file on the server is read with the privileges COPY FROM a file needs:
 * superuser or the pg_read_server_files role.  Blank lines are skipped; a
 * line may be at most 4 MB (an item is at most 400 KB by DynamoDB's size
 * rules, and its JSON rarely more than a few times that); a NUL byte is
 * refused (jsonb cannot hold one).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>

#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "commands/progress.h"
#include "lib/bloomfilter.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/fd.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "utils/acl.h"
#include "utils/backend_progress.h"
#include "utils/builtins.h"
#include "mb/pg_wchar.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "item/av_jsonb.h"
#include "ops/item_ops.h"
#include "studio.h"

#define IMPORT_CHUNK 1000
#define IMPORT_LINE_MAX (4 * 1024 * 1024)
#define READ_BLOCK 65536
/* The smallest line holding an item, to size the Bloom filter of keys by the input's bytes. */
#define IMPORT_MIN_LINE 24
/* The Bloom filter's memory at most, in kB: 16 bits a key up to 16 million keys. */
#define IMPORT_BLOOM_KB (32 * 1024)
/* A chunk's pending items fit in one block of this size, kept from chunk to chunk. */
#define IMPORT_CHUNK_BLOCK (8 * 1024 * 1024)
/* Files from this size on are read by a parallel worker (see import_parallel). */
#define IMPORT_PARALLEL_MIN_BYTES (8 * 1024 * 1024)
/* The queue from the worker to the import: items of a few chunks. */
#define IMPORT_QUEUE_BYTES (4 * 1024 * 1024)
#define IMPORT_KEY_SHARED	UINT64CONST(0x5354494D50000001)
#define IMPORT_KEY_QUEUE	UINT64CONST(0x5354494D50000002)

typedef struct ImportItem
{
	char	   *key;			/* the key values' bytes: sort and dedupe */
	int			key_len;
	int			seq;			/* line order: the last of equal keys wins */
	Jsonb	   *stored;
} ImportItem;

typedef struct ImportState
{
	StTable    *table;
	MemoryContext chunk_cxt;	/* the pending items; reset after each write */
	int			n;
	ImportItem	items[IMPORT_CHUNK];
	int64		line;			/* the line being read (1-based) */
	int64		total;			/* items written */
	int64		bytes;			/* bytes read */
	bool		probe;			/* a key was found to exist: look first */
	bool		check_encoding; /* bytes from a file: valid UTF-8? */
	bloom_filter *written;		/* keys written so far, when the table began empty */
	OpsLoad    *load;			/* the new keys' load, index entries pending */
	bool		loading;		/* new keys go to a load (begun when needed) */
	/* what to do with each line read: import it, or (a worker) send it */
	void		(*on_line) (struct ImportState *st, char *line, int len);
	shm_mq_handle *queue;		/* a worker's queue to the import */
	StringInfoData message;		/* a worker's message being built */
} ImportState;

/* What the import tells its worker (in the parallel context's shared memory). */
typedef struct ImportShared
{
	char		table_name[NAMEDATALEN * 6];
	char		path[MAXPGPATH];
} ImportShared;

/* A worker's message: this header, the key's bytes, the stored item (a varlena). */
typedef struct ImportMessage
{
	int64		line;
	int64		bytes;			/* of the file read so far */
	int32		key_len;
} ImportMessage;

static int
import_item_cmp(const void *a, const void *b)
{
	const ImportItem *x = a;
	const ImportItem *y = b;
	int			c = ops_key_bytes_cmp(x->key, x->key_len, y->key, y->key_len);

	return c != 0 ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * Write the chunk: sorted by key, the last item of each key kept.  Keys
 * new to a table that began empty are inserted; the others (a key of an
 * earlier chunk, or one the Bloom filter cannot rule out) replace what is
 * there, looking first.  A load that finds keys written again itself
 * (ops_load_dedupes: the indexes built at its end) takes every key.
 */
static void
import_flush(ImportState *st)
{
	Jsonb	  **stored;
	Jsonb	  **again_stored;
	int			m = 0;
	int			again = 0;
	bool		probe_again = true;
	MemoryContext old;

	if (st->n == 0)
		return;
	if (st->loading && st->load == NULL)
	{
		st->load = ops_load_begin(st->table);
		st->loading = st->load != NULL;
		if (st->load && ops_load_dedupes(st->load) && st->written)
		{
			bloom_free(st->written);
			st->written = NULL;
		}
	}
	old = MemoryContextSwitchTo(st->chunk_cxt);
	qsort(st->items, st->n, sizeof(ImportItem), import_item_cmp);
	stored = palloc(sizeof(Jsonb *) * st->n);
	again_stored = palloc(sizeof(Jsonb *) * st->n);
	for (int i = 0; i < st->n; i++)
	{
		ImportItem *ii = &st->items[i];

		if (i + 1 < st->n && ops_key_bytes_cmp(ii->key, ii->key_len,
											   st->items[i + 1].key, st->items[i + 1].key_len) == 0)
			continue;
		if (st->written &&
			!bloom_lacks_element(st->written, (unsigned char *) ii->key, ii->key_len))
		{
			again_stored[again++] = ii->stored;
			continue;
		}
		if (st->written)
			bloom_add_element(st->written, (unsigned char *) ii->key, ii->key_len);
		stored[m++] = ii->stored;
	}
	MemoryContextSwitchTo(old);
	/* a key written again is looked for: the load's index entries go in first */
	if (again > 0 && st->load)
	{
		ops_load_end(st->load);
		st->load = NULL;
	}
	old = MemoryContextSwitchTo(st->chunk_cxt);
	if (st->load)
		ops_load_chunk(st->load, stored, m);
	else
		ops_load_sorted(st->table, stored, m, st->written != NULL, &st->probe);
	if (again > 0)
		ops_load_sorted(st->table, again_stored, again, false, &probe_again);
	st->total += st->n;
	st->n = 0;
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->chunk_cxt);
	pgstat_progress_update_param(PROGRESS_COPY_TUPLES_PROCESSED, st->total);
	pgstat_progress_update_param(PROGRESS_COPY_BYTES_PROCESSED, st->bytes);
}

static void
import_context(void *arg)
{
	ImportState *st = arg;

	if (st->line > 0)
		errcontext("line %lld of the import into table %s", (long long) st->line, st->table->name);
}

static bool
is_blank(const char *s, int len)
{
	for (int i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return false;
	return true;
}

/*
 * One line, NUL-terminated at line[len] (the caller's buffer): its key's
 * bytes and its item in stored form, in the current memory context.
 * False for a blank line.
 */
static bool
import_parse(ImportState *st, char *line, int len, StringInfo key, Jsonb **stored)
{
	StErr		err;
	Av		   *item;

	if (is_blank(line, len))
		return false;
	if (memchr(line, '\0', len) != NULL)
		st_error(ST_ERR_VALIDATION, "The line holds a NUL byte, which an item cannot hold");
	if (st->check_encoding)
		pg_verify_mbstr(PG_UTF8, line, len, false);
	item = av_item_from_json_text(line, len, "Item", &err);
	if (item == NULL)
		st_raise(&err);
	ops_check_item(st->table, item);
	ops_append_key_bytes(st->table, item, key);
	*stored = av_item_to_jsonb(item, true);
	return true;
}

/* Add an item (allocated in chunk_cxt) to the chunk, written when full. */
static void
import_add(ImportState *st, char *key, int key_len, Jsonb *stored)
{
	ImportItem *ii = &st->items[st->n];

	ii->key = key;
	ii->key_len = key_len;
	ii->seq = st->n;
	ii->stored = stored;
	if (++st->n == IMPORT_CHUNK)
		import_flush(st);
}

static void
import_line(ImportState *st, char *line, int len)
{
	MemoryContext old;
	StringInfoData key;
	Jsonb	   *stored;
	bool		parsed;

	st->bytes += len + 1;
	old = MemoryContextSwitchTo(st->chunk_cxt);
	initStringInfo(&key);
	parsed = import_parse(st, line, len, &key, &stored);
	MemoryContextSwitchTo(old);
	if (parsed)
		import_add(st, key.data, key.len, stored);
}

static void
too_long(void)
{
	st_error(ST_ERR_VALIDATION, "The line is longer than %d bytes", IMPORT_LINE_MAX);
}

/* Set up an import into table `name`, its error context pushed. */
static ImportState *
import_begin(const char *name, int copy_type, int64 total_bytes, ErrorContextCallback *cb)
{
	ImportState *st = palloc0(sizeof(ImportState));

	st->on_line = import_line;
	st->table = catalog_lookup(name, false);
	/* one large block kept across chunks: no memory handed back and faulted in again per chunk */
	st->chunk_cxt = AllocSetContextCreate(CurrentMemoryContext, "stdesign import",
										  IMPORT_CHUNK_BLOCK, IMPORT_CHUNK_BLOCK,
										  IMPORT_CHUNK_BLOCK);
	if (ops_table_is_empty(st->table))
	{
		st->written = bloom_create(Max(total_bytes / IMPORT_MIN_LINE, 1024), IMPORT_BLOOM_KB, 0);
		st->loading = true;
	}
	pgstat_progress_start_command(PROGRESS_COMMAND_COPY, st->table->relid);
	pgstat_progress_update_param(PROGRESS_COPY_COMMAND, PROGRESS_COPY_COMMAND_FROM);
	pgstat_progress_update_param(PROGRESS_COPY_TYPE, copy_type);
	pgstat_progress_update_param(PROGRESS_COPY_BYTES_TOTAL, total_bytes);
	cb->callback = import_context;
	cb->arg = st;
	cb->previous = error_context_stack;
	error_context_stack = cb;
	return st;
}

static int64
import_end(ImportState *st, ErrorContextCallback *cb)
{
	st->line = 0;
	import_flush(st);
	if (st->load)
	{
		/* the index entries, in index order */
		pgstat_progress_update_param(PROGRESS_COPY_TUPLES_PROCESSED, st->total);
		ops_load_end(st->load);
	}
	error_context_stack = cb->previous;
	pgstat_progress_end_command();
	MemoryContextDelete(st->chunk_cxt);
	if (st->written)
		bloom_free(st->written);
	return st->total;
}

PG_FUNCTION_INFO_V1(st_import);
Datum
st_import(PG_FUNCTION_ARGS)
{
	char	   *name = studio_io_arg_text(fcinfo, 0);
	text	   *lines;
	const char *p;
	const char *end;
	ImportState *st;
	ErrorContextCallback cb;
	StringInfoData buf;

	if (PG_ARGISNULL(1))
		st_validation_null("lines");
	lines = PG_GETARG_TEXT_PP(1);
	p = VARDATA_ANY(lines);
	end = p + VARSIZE_ANY_EXHDR(lines);
	st = import_begin(name, PROGRESS_COPY_TYPE_CALLBACK, end - p, &cb);
	initStringInfo(&buf);
	while (p < end)
	{
		const char *nl = memchr(p, '\n', end - p);
		int			len = (nl ? nl : end) - p;

		st->line++;
		if (len > IMPORT_LINE_MAX)
			too_long();
		resetStringInfo(&buf);
		appendBinaryStringInfo(&buf, p, len);
		import_line(st, buf.data, buf.len);
		p += len + 1;
	}
	PG_RETURN_INT64(import_end(st, &cb));
}

/* The lines of file f, each given to st->on_line, st->line counting them. */
static void
import_read_file(ImportState *st, FILE *f, const char *path)
{
	StringInfoData line;
	char	   *block = palloc(READ_BLOCK);
	size_t		got;

	initStringInfo(&line);
	st->line = 1;
	while ((got = fread(block, 1, READ_BLOCK, f)) > 0)
	{
		const char *p = block;
		const char *end = block + got;

		while (p < end)
		{
			const char *nl = memchr(p, '\n', end - p);
			int			len = (nl ? nl : end) - p;

			if (line.len + (int64) len > IMPORT_LINE_MAX)
				too_long();
			appendBinaryStringInfo(&line, p, len);
			p += len;
			if (nl == NULL)
				break;			/* the line goes on in the next block */
			p++;
			st->on_line(st, line.data, line.len);
			resetStringInfo(&line);
			st->line++;
		}
		CHECK_FOR_INTERRUPTS();
	}
	if (ferror(f))
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not read file \"%s\": %m", path)));
	if (line.len > 0)
		st->on_line(st, line.data, line.len);
	pfree(block);
	pfree(line.data);
}

static FILE *
import_open_file(const char *path, struct stat *stbuf)
{
	FILE	   *f = AllocateFile(path, PG_BINARY_R);

	if (f == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\" for reading: %m", path)));
	if (fstat(fileno(f), stbuf) != 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not stat file \"%s\": %m", path)));
	if (S_ISDIR(stbuf->st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is a directory", path)));
	return f;
}

/*
 * A parallel worker's line: parsed and checked as the import would, then
 * sent to the import with its key's bytes, in stored form.
 */
static void
worker_line(ImportState *st, char *line, int len)
{
	MemoryContext old = MemoryContextSwitchTo(st->chunk_cxt);
	StringInfoData key;
	Jsonb	   *stored;
	ImportMessage header;

	st->bytes += len + 1;
	initStringInfo(&key);
	if (import_parse(st, line, len, &key, &stored))
	{
		header.line = st->line;
		header.bytes = st->bytes;
		header.key_len = key.len;
		resetStringInfo(&st->message);
		appendBinaryStringInfo(&st->message, (char *) &header, sizeof(header));
		appendBinaryStringInfo(&st->message, key.data, key.len);
		appendBinaryStringInfo(&st->message, (char *) stored, VARSIZE(stored));
		if (shm_mq_send(st->queue, st->message.len, st->message.data, false, false) != SHM_MQ_SUCCESS)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("the import this worker reads for is gone")));
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->chunk_cxt);
}

/* A parallel worker of st_import_file: reads the file, sends its items. */
PGDLLEXPORT void st_import_worker_main(dsm_segment *seg, shm_toc *toc);

void
st_import_worker_main(dsm_segment *seg, shm_toc *toc)
{
	ImportShared *shared = shm_toc_lookup(toc, IMPORT_KEY_SHARED, false);
	shm_mq	   *mq = shm_toc_lookup(toc, IMPORT_KEY_QUEUE, false);
	ImportState *st = palloc0(sizeof(ImportState));
	ErrorContextCallback cb;
	struct stat stbuf;
	FILE	   *f;

	shm_mq_set_sender(mq, MyProc);
	st->queue = shm_mq_attach(mq, seg, NULL);
	st->table = catalog_lookup(shared->table_name, false);
	st->chunk_cxt = AllocSetContextCreate(CurrentMemoryContext, "stdesign import worker",
										  ALLOCSET_DEFAULT_SIZES);
	st->check_encoding = true;
	st->on_line = worker_line;
	initStringInfo(&st->message);
	cb.callback = import_context;
	cb.arg = st;
	cb.previous = error_context_stack;
	error_context_stack = &cb;
	f = import_open_file(shared->path, &stbuf);
	import_read_file(st, f, shared->path);
	FreeFile(f);
	error_context_stack = cb.previous;
	shm_mq_detach(st->queue);
}

/* The worker's items, added to chunks as lines read here would be. */
static void
import_receive(ImportState *st, shm_mq_handle *queue)
{
	Size		len;
	void	   *data;
	ImportMessage header;

	/* the worker's errors say which line; this backend's would not know */
	st->line = 0;
	while (shm_mq_receive(queue, &len, &data, false) == SHM_MQ_SUCCESS)
	{
		const char *p = data;
		MemoryContext old;
		char	   *key;
		Jsonb	   *stored;
		Size		stored_len;

		if (len < sizeof(header))
			elog(ERROR, "stdesign: an import worker's message is too short");
		memcpy(&header, p, sizeof(header));
		if (header.key_len < 0 || len - sizeof(header) < (Size) header.key_len + VARHDRSZ)
			elog(ERROR, "stdesign: an import worker's message is malformed");
		p += sizeof(header);
		old = MemoryContextSwitchTo(st->chunk_cxt);
		key = palloc(header.key_len + 1);
		memcpy(key, p, header.key_len);
		p += header.key_len;
		stored_len = len - sizeof(header) - header.key_len;
		stored = palloc(stored_len);
		memcpy(stored, p, stored_len);
		if (VARSIZE(stored) != stored_len)
			elog(ERROR, "stdesign: an import worker's message is malformed");
		MemoryContextSwitchTo(old);
		st->bytes = header.bytes;
		import_add(st, key, header.key_len, stored);
	}
}

/*
 * Read the file in a parallel worker while this backend writes what it
 * sends, as parallel CREATE INDEX has workers do part of the work: reading
 * lines into items (parsing, checking, the stored form) is a third of an
 * import, writing them and building the indexes the rest.  Only for a load
 * that finds repeated keys itself (its indexes built at the end) and that
 * nothing else writes, from files worth a worker; max_parallel_maintenance_workers
 * = 0 turns it off, as for CREATE INDEX.  False, having read nothing, when
 * no worker runs it: the caller reads the file itself.  Errors of the
 * worker (a bad line, with its number) end the import as its own would.
 */
static bool
import_parallel(ImportState *st, const char *path, int64 size)
{
	ParallelContext *pcxt;
	ImportShared *shared;
	shm_mq	   *mq;
	shm_mq_handle *queue;

	if (!st->loading || size < IMPORT_PARALLEL_MIN_BYTES || max_parallel_maintenance_workers <= 0 ||
		IsInParallelMode() || strlen(st->table->name) >= sizeof(shared->table_name) ||
		strlen(path) >= sizeof(shared->path))
		return false;
	if (st->load == NULL)
	{
		st->load = ops_load_begin(st->table);
		st->loading = st->load != NULL;
	}
	if (st->load == NULL || !ops_load_dedupes(st->load))
		return false;
	if (st->written)
	{
		bloom_free(st->written);
		st->written = NULL;
	}
	/* the rows' transaction ID, which parallel mode cannot assign */
	(void) GetCurrentTransactionId();
	EnterParallelMode();
	pcxt = CreateParallelContext("stdesign", "st_import_worker_main", 1);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(ImportShared));
	shm_toc_estimate_chunk(&pcxt->estimator, IMPORT_QUEUE_BYTES);
	shm_toc_estimate_keys(&pcxt->estimator, 2);
	InitializeParallelDSM(pcxt);
	if (pcxt->seg == NULL)
	{
		/* no dynamic shared memory to be had: no worker */
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return false;
	}
	shared = shm_toc_allocate(pcxt->toc, sizeof(ImportShared));
	strlcpy(shared->table_name, st->table->name, sizeof(shared->table_name));
	strlcpy(shared->path, path, sizeof(shared->path));
	shm_toc_insert(pcxt->toc, IMPORT_KEY_SHARED, shared);
	mq = shm_mq_create(shm_toc_allocate(pcxt->toc, IMPORT_QUEUE_BYTES), IMPORT_QUEUE_BYTES);
	shm_toc_insert(pcxt->toc, IMPORT_KEY_QUEUE, mq);
	shm_mq_set_receiver(mq, MyProc);
	LaunchParallelWorkers(pcxt);
	if (pcxt->nworkers_launched == 0)
	{
		DestroyParallelContext(pcxt);
		ExitParallelMode();
		return false;
	}
	queue = shm_mq_attach(mq, pcxt->seg, pcxt->worker[0].bgwhandle);
	import_receive(st, queue);
	/* a worker's error is thrown here (with its line), as ours would be */
	WaitForParallelWorkersToFinish(pcxt);
	DestroyParallelContext(pcxt);
	ExitParallelMode();
	return true;
}

PG_FUNCTION_INFO_V1(st_import_file);
Datum
st_import_file(PG_FUNCTION_ARGS)
{
	char	   *name = studio_io_arg_text(fcinfo, 0);
	char	   *path = studio_io_arg_required(fcinfo, 1, "path");
	FILE	   *f;
	struct stat stbuf;
	ImportState *st;
	ErrorContextCallback cb;

	if (!has_privs_of_role(GetUserId(), ROLE_PG_READ_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to import from a file"),
				 errdetail("Only roles with privileges of the \"pg_read_server_files\" role may read files on the server, as with COPY FROM a file."),
				 errhint("st_import takes the lines as text from the client.")));
	f = import_open_file(path, &stbuf);
	st = import_begin(name, PROGRESS_COPY_TYPE_FILE, stbuf.st_size, &cb);
	st->check_encoding = true;
	if (!import_parallel(st, path, stbuf.st_size))
		import_read_file(st, f, path);
	FreeFile(f);
	PG_RETURN_INT64(import_end(st, &cb));
}
