/*-------------------------------------------------------------------------
 *
 * stream_capture.h
 *		DynamoDB Streams' change capture: each change of an item of a table
 *		with an enabled stream becomes a record, numbered and written when
 *		its transaction commits.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_STREAM_CAPTURE_H
#define ST_STREAM_CAPTURE_H

#include "postgres.h"

#include "utils/jsonb.h"
#include "utils/rel.h"

/* What a stream keeps of an item's images (its StreamViewType). */
typedef enum StStreamView
{
	ST_STREAM_KEYS_ONLY,
	ST_STREAM_NEW_IMAGE,
	ST_STREAM_OLD_IMAGE,
	ST_STREAM_NEW_AND_OLD_IMAGES
} StStreamView;

/* The stream a relation's changes go to, from its capture trigger. */
typedef struct StStreamTarget
{
	int64		stream_id;
	StStreamView view;
	char	   *pk;				/* the key attributes' names */
	char	   *sk;				/* NULL for a table without a sort key */
} StStreamTarget;

/*
 * The stream of rel (its enabled stdesign.stream_capture trigger), copied
 * into the current memory context; NULL when it has none.  The trigger is
 * the per-relation flag: a relation without one costs a walk of its
 * trigger descriptor.
 */
extern StStreamTarget *storage_stream_target(Relation rel);

/* Is the trigger stdesign.stream_capture (which direct writes stand in for)? */
extern Oid storage_stream_capture_oid(void);
extern bool storage_stream_is_capture(const Trigger *trigger);

/*
 * A change of an item: old_item NULL for an insertion, new_item NULL for a
 * deletion.  A replacement by an equal item is no change and records
 * nothing.  Kept in this transaction's buffer until it commits (dropped
 * with a subtransaction that rolls back).
 */
extern void storage_stream_capture(const StStreamTarget *target, Jsonb *old_item, Jsonb *new_item);

/* Deletions captured from now until false are time to live's (userIdentity). */
extern void storage_stream_ttl_deletions(bool on);

/* The view type named (StreamViewType), or false. */
extern bool storage_stream_view_from_name(const char *name, StStreamView *view);

/*
 * Attach (detach) the capture trigger to the table's relation relname,
 * sending its changes to stream stream_id.
 */
extern void storage_stream_attach(const char *relname, int64 stream_id, const char *view_type,
								  const char *pk, const char *sk);
extern void storage_stream_detach(const char *relname);

/* stdesign.stream_shard_lifetime: seconds an open shard takes records before it rolls over. */
extern int	storage_stream_shard_lifetime;
/*
 * Waiting for a commit that wrote records (st_stream_wait): begin, then
 * look for the records, sleep at most ms (or until such a commit, or an
 * interrupt, which is served), look again, ..., end.  With the library
 * preloaded (its shared memory, storage_stream_shmem_*), each such commit
 * wakes the waiters; otherwise a sleep lasts 100 ms at most.
 */
extern void storage_stream_wait_begin(void);
extern void storage_stream_wait_sleep(long ms);
extern void storage_stream_wait_end(void);
extern void storage_stream_shmem_request(void);
extern void storage_stream_shmem_startup(void);

/*
 * Take the stream's lock, as a writer of its records does at commit, until
 * the transaction ends: no writer is numbering records for it meanwhile.
 */
extern void storage_stream_lock(int64 stream_id);

/* Register the transaction callbacks (from _PG_init). */
extern void storage_stream_init(void);

/*
 * The columns of stdesign.stream_records (sql/stdesign.sql), as
 * storage_stream_records_scan hands them: stream_id, sequence_number,
 * created_at, event_name, keys, new_image, old_image, size_bytes,
 * ttl_deletion, batch.  No shard id: a record's shard is the one whose
 * range of numbers holds its number.  A row is one record (batch NULL) or
 * several of one commit (stream_batch.c).
 */
enum
{
	REC_STREAM, REC_SEQ, REC_CREATED, REC_EVENT, REC_KEYS, REC_NEW, REC_OLD,
	REC_SIZE, REC_TTL, REC_BATCH, REC_NCOLS
};

/*
 * The records of a stream numbered above after and at most upto (a
 * shard's range), in order, at most max: each record's columns, as a row
 * of stdesign.stream_records of its own has them (ncols of them, batch
 * NULL: the records of a batch row are handed one by one), handed to fn,
 * until it returns false.  The values point into the
 * table's buffers, good until fn returns.  Read with the active snapshot,
 * as the catalog's owner would; no privilege is checked here (the caller
 * has).
 */
typedef bool (*StStreamRecordFn) (void *arg, const Datum *values, const bool *nulls);
extern void storage_stream_records_scan(int64 stream_id, int64 after, int64 upto,
										int max, int ncols, StStreamRecordFn fn, void *arg);

#endif							/* ST_STREAM_CAPTURE_H */
