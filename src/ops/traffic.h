/*-------------------------------------------------------------------------
 *
 * traffic.h
 *		Per-partition traffic counters: reads and writes, and their read and
 *		write units, by table, index and partition key value, kept in shared
 *		memory while the server runs (like pg_stat_statements).
 *
 * The operations call ops_traffic_read and ops_traffic_write where they
 * read and write items; each backend adds to a local table and moves its
 * sums into the shared table at the end of each transaction, when the
 * second changes, and when the local table fills (traffic.c).  The shared
 * table exists only when the library is in shared_preload_libraries; the
 * counters are off otherwise, and the reporting functions say so.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_TRAFFIC_H
#define ST_TRAFFIC_H

#include "postgres.h"

#include "catalog/st_catalog.h"
#include "item/av.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

/* The settings (defined in _PG_init). */
extern bool ops_traffic_track_guc;	/* stdesign.track_traffic */
extern int	ops_traffic_max_guc;	/* stdesign.traffic_max_partitions */

/* The shared table, when there is one. */
extern struct TrafficShared *ops_traffic_shared;

/* Is counting on: shared memory there and stdesign.track_traffic on? */
#define ops_traffic_on() (ops_traffic_shared != NULL && ops_traffic_track_guc)

/*
 * A read of `bytes` (the summed DynamoDB size of the items read; 0 for a
 * miss) from partition pk of table t, or of its index ix (NULL: the table).
 */
extern void ops_traffic_read_slow(StTable *t, StIndex *ix, const Av *pk, int64 bytes);
#define ops_traffic_read(t, ix, pk, bytes) \
	do { if (ops_traffic_on()) ops_traffic_read_slow(t, ix, pk, bytes); } while (0)

/* A read whose size is that of the stored items given (a GetItem). */
extern void ops_traffic_read_stored(StTable *t, const Av *pk, Jsonb *stored);

/*
 * A write that changed old_item into new_item (either NULL; both NULL: a
 * write whose item is unknown is not counted): the table's partition and
 * each global secondary index's partition the change touched.
 * transactional doubles the units, as DynamoDB does.
 */
extern void ops_traffic_write_slow(StTable *t, const Av *old_item, const Av *new_item,
								   bool transactional);
#define ops_traffic_write(t, o, n, tx) \
	do { if (ops_traffic_on()) ops_traffic_write_slow(t, o, n, tx); } while (0)

/* A bulk write of stored items (a load): one write each, by its new size. */
extern void ops_traffic_write_stored(StTable *t, Jsonb **stored, int n);

/* One counted partition, as reported. */
typedef struct StTrafficRow
{
	Oid			relid;
	Oid			indexoid;		/* InvalidOid: the table */
	char	   *partition_key;	/* as text (B base64), shortened past 200 bytes */
	int64		reads;
	int64		writes;
	double		read_units;
	double		write_units;
	double		peak_read_units;	/* in one second */
	double		peak_write_units;
} StTrafficRow;

/*
 * The counted partitions of relation relid in this database (after this
 * backend's own pending counts are moved in); *since is when counting
 * started (server start or the last reset).  NULL rows and 0 when there is
 * no shared table.
 */
extern StTrafficRow *ops_traffic_rows(Oid relid, int *n, TimestampTz *since);

/* Forget every count (all databases); counting starts again now. */
extern void ops_traffic_reset(void);

/* Partitions evicted from the full shared table since the last reset. */
extern int64 ops_traffic_evicted(void);

/* Shared memory: request (shmem_request_hook) and attach (shmem_startup_hook). */
extern void ops_traffic_shmem_request(void);
extern void ops_traffic_shmem_startup(void);

#endif							/* ST_TRAFFIC_H */
