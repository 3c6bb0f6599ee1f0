/*-------------------------------------------------------------------------
 *
 * init.c
 *		The module's entry: _PG_init defines the settings, registers the
 *		background workers of the HTTP endpoint and of time to live (when
 *		the library is preloaded) and sets up the catalog cache's
 *		invalidation.
 *
 * It sits above every layer (test/scripts/layers.sh), since loading the
 * library sets up all of them; nothing calls into it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "utils/guc.h"

#include "catalog/st_catalog.h"
#include "http/http_server.h"
#include "ops/collection.h"
#include "ops/table_admin.h"
#include "ops/stream_consumers.h"
#include "ops/stream_read.h"
#include "ttl/ttl.h"
#include "ops/traffic.h"
#include "storage/stream_capture.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static void
st_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	ops_traffic_shmem_request();
	storage_stream_shmem_request();
	ttl_stream_shmem_request();
}

static void
st_shmem_startup(void)
{
	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	ops_traffic_shmem_startup();
	storage_stream_shmem_startup();
	ttl_stream_shmem_startup();
}

/*
 * The per-partition traffic counters (src/ops/traffic.c): their settings,
 * and their shared memory when the library is preloaded (without it the
 * counters are off and the reporting functions say so).
 */
static void
traffic_init(void)
{
	DefineCustomBoolVariable("stdesign.track_traffic",
							 "Counts reads and writes per partition key value.",
							 "Takes effect only when stdesign is in shared_preload_libraries.",
							 &ops_traffic_track_guc,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);
	/* a size of shared memory: defined only when there is some to size */
	if (!process_shared_preload_libraries_in_progress)
		return;
	DefineCustomIntVariable("stdesign.traffic_max_partitions",
							"How many partitions the traffic counters keep.",
							"The least used are evicted when the table is full.",
							&ops_traffic_max_guc,
							10000, 100, 1000000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = st_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = st_shmem_startup;
}

void
_PG_init(void)
{
	DefineCustomStringVariable("stdesign.default_table",
							   "The table st_* functions use when \"table\" is not given.",
							   "When unset and exactly one table exists, that table is used.",
							   &st_default_table_guc,
							   NULL,
							   PGC_USERSET,
							   0,
							   NULL, NULL, NULL);
	DefineCustomIntVariable("stdesign.item_collection_size_limit",
							"Largest size of an item collection of a table with local secondary indexes.",
							"DynamoDB's limit is 10 GB; a write past it fails with ItemCollectionSizeLimitExceededException. 0: no limit.",
							&ops_item_collection_limit_kb,
							OPS_ITEM_COLLECTION_LIMIT_DEFAULT_KB, 0, INT_MAX,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);
	DefineCustomIntVariable("stdesign.describe_exact_pages",
							"Largest table, in pages, whose item count and size DescribeTable counts exactly.",
							"A larger table's ItemCount, TableSizeBytes and IndexSizeBytes are estimated from a sample of this many pages, as DynamoDB's are approximate. 0: always exact.",
							&ops_describe_exact_pages,
							OPS_DESCRIBE_EXACT_PAGES_DEFAULT, 0, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);
	traffic_init();
	DefineCustomIntVariable("stdesign.citus_shard_count",
							"Distribute every table CreateTable creates over Citus with this many shards.",
							"0 (the default) leaves new tables undistributed; without Citus it has no effect.",
							&st_citus_shard_count_guc,
							0, 0, 64000,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);
	DefineCustomBoolVariable("stdesign.citus_delegate_reads",
							 "On a Citus coordinator, run a GetItem or a Query of one partition of a distributed table at the worker holding it.",
							 "Off: a statement Citus routes to the worker, as before delegated reads.",
							 &st_citus_delegate_reads_guc,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("stdesign.stream_shard_lifetime",
							"How long a stream's open shard takes records before a child replaces it.",
							"DynamoDB's shards roll over about every 4 hours; the next writer after this time closes the shard.",
							&storage_stream_shard_lifetime,
							4 * 60 * 60, 1, INT_MAX,
							PGC_SUSET,
							GUC_UNIT_S,
							NULL, NULL, NULL);
	DefineCustomIntVariable("stdesign.stream_iterator_lifetime",
							"How long a stream's shard iterator is good for.",
							"DynamoDB's expire after 15 minutes (ExpiredIteratorException); shorter only for tests.",
							&ops_stream_iterator_lifetime,
							15 * 60, 1, INT_MAX / 1000,
							PGC_SUSET,
							GUC_UNIT_S,
							NULL, NULL, NULL);
	http_init();
	ttl_init();
	ttl_stream_worker_init();
	/* before the prefix is reserved: a setting of postgresql.conf would be dropped */
	ops_stream_retention_init();
	MarkGUCPrefixReserved("stdesign");
	catalog_init();
	storage_stream_init();
}
