/*-------------------------------------------------------------------------
 *
 * traffic.c
 *		Per-partition traffic counters in shared memory.
 *
 * What DynamoDB throttles is a partition: 3,000 read units and 1,000 write
 * units per second each (Developer Guide, "Partitions and data
 * distribution", "Designing partition keys to distribute your workload").
 * A model that looks fine in total can still send most of its traffic to
 * one partition key value; these counters show which.
 *
 * The shared table is a fixed-size hash (stdesign.traffic_max_partitions
 * entries) keyed by database, relation, index and a 64-bit hash of the
 * partition key value, each entry holding the counts, the units, the units
 * of the current second and the highest units seen in one second.  When it
 * is full the least used fifth of the entries is evicted (a fifth: a walk
 * of the whole table and a selection of the least used every few thousand
 * new partitions, not every few hundred), and the usage of the others
 * decays, as pg_stat_statements does.
 *
 * The cost on the hot path matters more than exactness to the millisecond:
 * a read or a write adds to a backend-local table only (open addressing,
 * no allocation; the partition key's bytes hashed once, and that hash
 * finds the entry in the shared table too).  The local sums move into the shared table (one LWLock
 * in shared mode, a spinlock per entry; exclusive only to insert new
 * partitions) once their second has passed -- at the next count or the
 * next commit after it, so that per-second peaks stay per second and a
 * busy backend takes the lock about once a second -- when the local table
 * holds 256 partitions, when this backend reports or resets, and when it
 * exits.  A backend idle since its last second of traffic holds that
 * second back until it does something again.  The sums of an aborted
 * transaction are kept for the next move: DynamoDB charges failed requests
 * too.
 *
 * Reads are counted in strongly consistent read units (4 KB of the item
 * sizes, at least one; transactional reads are not counted), writes in
 * write units (1 KB of the larger of the old and new item, doubled in a
 * transaction; a put that does not read the old item counts the new one).
 * Writes to a global secondary index count on the index's partition, by
 * the capacity code's rules (capacity.c); writes to a local secondary index
 * count on the table's partition, which holds the item collection.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <time.h>

#include "access/xact.h"
#include "common/hashfn.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "capacity.h"
#include "item/av_jsonb.h"
#include "item_ops.h"
#include "storage/st_storage.h"
#include "traffic.h"

#define READ_UNIT_BYTES 4096
#define WRITE_UNIT_BYTES 1024

/* Partition keys are shown up to this many bytes (DynamoDB allows 2048). */
#define PK_SHOWN 200
/* The usage of the entries left at an eviction is multiplied by this. */
#define USAGE_DECAY 0.9
/* A backend's local table moves into the shared one at this many partitions. */
#define LOCAL_MAX 256

bool		ops_traffic_track_guc = true;
int			ops_traffic_max_guc = 10000;

typedef struct TrafficKey
{
	Oid			dbid;
	Oid			relid;
	Oid			indexoid;		/* InvalidOid: the table */
	uint32		pad;			/* zero: the key is hashed as bytes */
	uint64		pkhash;
} TrafficKey;

typedef struct TrafficCounts
{
	int64		reads;
	int64		writes;
	int64		read_units;
	int64		write_units;
} TrafficCounts;

typedef struct TrafficEntry
{
	TrafficKey	key;
	slock_t		mutex;
	TrafficCounts c;
	int64		second;			/* the second cur_* count */
	int64		cur_read_units;
	int64		cur_write_units;
	int64		peak_read_units;
	int64		peak_write_units;
	double		usage;			/* reads and writes, decayed at each eviction */
	char		pk[PK_SHOWN + 4];
} TrafficEntry;

typedef struct TrafficShared
{
	LWLock	   *lock;			/* the hash table; entries have their mutex */
	slock_t		mutex;			/* since and evicted */
	TimestampTz since;
	int64		evicted;
} TrafficShared;

typedef struct LocalEntry
{
	TrafficKey	key;
	uint32		hash;			/* traffic_key_hash(key): local slot and shared bucket */
	uint32		generation;		/* in use when it is local_generation */
	uint16		nth;			/* its place in local_used and local_pk */
	TrafficCounts c;
} LocalEntry;

TrafficShared *ops_traffic_shared = NULL;
static HTAB *shared_hash = NULL;

/*
 * The backend's pending sums: an open-addressing table of LOCAL_SLOTS
 * entries, emptied at once by advancing the generation, and the list of the
 * slots in use, so that neither a lookup nor a flush walks the whole table.
 */
#define LOCAL_SLOTS (2 * LOCAL_MAX)
static LocalEntry *local_slots = NULL;
static uint32 local_generation = 1;
static int	local_used[LOCAL_MAX];
static char (*local_pk)[PK_SHOWN + 4] = NULL;	/* kept apart: the slots stay small */
static int	local_n = 0;
static int64 local_second = 0;	/* the second the local sums belong to */

/* ---------- shared memory ---------- */

/*
 * The hash of a key, computed once per count from the partition key's
 * 64-bit hash (already computed) and the small fields: the local table and
 * the shared one use the same value, so that moving a sum looks up its
 * shared entry without hashing the key again.
 */
static inline uint32
key_hash_of(const TrafficKey *k)
{
	uint64		h = k->pkhash ^ ((uint64) k->relid * UINT64CONST(0x9E3779B97F4A7C15)) ^
		((uint64) k->indexoid << 32) ^ k->dbid;

	h ^= h >> 33;
	h *= UINT64CONST(0xff51afd7ed558ccd);
	h ^= h >> 33;
	return (uint32) h;
}

static uint32
traffic_key_hash(const void *key, Size keysize)
{
	return key_hash_of((const TrafficKey *) key);
}

static Size
shared_size(void)
{
	return add_size(MAXALIGN(sizeof(TrafficShared)),
					hash_estimate_size(ops_traffic_max_guc, sizeof(TrafficEntry)));
}

void
ops_traffic_shmem_request(void)
{
	RequestAddinShmemSpace(shared_size());
	RequestNamedLWLockTranche("stdesign_traffic", 1);
}

void
ops_traffic_shmem_startup(void)
{
	bool		found;
	HASHCTL		info;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	ops_traffic_shared = ShmemInitStruct("stdesign traffic", sizeof(TrafficShared), &found);
	if (!found)
	{
		ops_traffic_shared->lock = &(GetNamedLWLockTranche("stdesign_traffic"))->lock;
		SpinLockInit(&ops_traffic_shared->mutex);
		ops_traffic_shared->since = GetCurrentTimestamp();
		ops_traffic_shared->evicted = 0;
	}
	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(TrafficKey);
	info.entrysize = sizeof(TrafficEntry);
	info.hash = traffic_key_hash;
	info.match = memcmp;
	shared_hash = ShmemInitHash("stdesign traffic hash", ops_traffic_max_guc,
								ops_traffic_max_guc, &info,
								HASH_ELEM | HASH_FUNCTION | HASH_COMPARE);
	LWLockRelease(AddinShmemInitLock);
}

/* ---------- moving local sums into the shared table ---------- */

static void
add_to_entry(TrafficEntry *e, const LocalEntry *le, int64 second)
{
	SpinLockAcquire(&e->mutex);
	e->c.reads += le->c.reads;
	e->c.writes += le->c.writes;
	e->c.read_units += le->c.read_units;
	e->c.write_units += le->c.write_units;
	e->usage += le->c.reads + le->c.writes;
	if (second != e->second)
	{
		e->second = second;
		e->cur_read_units = e->cur_write_units = 0;
	}
	e->cur_read_units += le->c.read_units;
	e->cur_write_units += le->c.write_units;
	e->peak_read_units = Max(e->peak_read_units, e->cur_read_units);
	e->peak_write_units = Max(e->peak_write_units, e->cur_write_units);
	SpinLockRelease(&e->mutex);
}

/* An entry and its usage, side by side: the selection reads no entry. */
typedef struct UsageRef
{
	double		usage;
	TrafficEntry *entry;
} UsageRef;

/*
 * Reorder all[0..n-1] so that its k least used entries come first
 * (quickselect: linear on average, where sorting them all cost n log n --
 * an eviction comes every n/5 new partitions, so a load of new keys paid
 * it on every write).  Equal usages (new partitions with one write each)
 * stop both scans and are swapped, which keeps the parts balanced.
 */
static void
select_least_used(UsageRef *all, long n, long k)
{
	long		lo = 0;
	long		hi = n - 1;
	long		target = k - 1;

	while (lo < hi)
	{
		double		pivot = all[lo + (hi - lo) / 2].usage;
		long		i = lo;
		long		j = hi;

		while (i <= j)
		{
			while (all[i].usage < pivot)
				i++;
			while (all[j].usage > pivot)
				j--;
			if (i <= j)
			{
				UsageRef	tmp = all[i];

				all[i++] = all[j];
				all[j--] = tmp;
			}
		}
		/* all[lo..j] <= pivot <= all[i..hi], and what lies between equals it */
		if (target <= j)
			hi = j;
		else if (target >= i)
			lo = i;
		else
			break;
	}
}

/*
 * Drop the least used fifth of the entries (under the exclusive lock), and
 * decay the usage of the others, so that partitions busy long ago (of a
 * table or a database since dropped) make room for today's in time.  The
 * table is walked once: each entry's usage decays as it is read (decaying
 * all alike changes no order), and the selection works on a compact copy
 * of the usages, not on the entries spread over shared memory.
 */
static void
evict(void)
{
	HASH_SEQ_STATUS seq;
	TrafficEntry *e;
	UsageRef   *all;
	long		n = hash_get_num_entries(shared_hash);
	long		i = 0;
	long		drop;

	all = palloc(sizeof(UsageRef) * Max(n, 1));
	hash_seq_init(&seq, shared_hash);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		if (i == n)
		{
			hash_seq_term(&seq);
			break;
		}
		e->usage *= USAGE_DECAY;
		all[i].usage = e->usage;
		all[i++].entry = e;
	}
	drop = Max(i / 5, 1);
	if (drop < i)
		select_least_used(all, i, drop);
	for (long k = 0; k < drop && k < i; k++)
		hash_search(shared_hash, &all[k].entry->key, HASH_REMOVE, NULL);
	SpinLockAcquire(&ops_traffic_shared->mutex);
	ops_traffic_shared->evicted += Min(drop, i);
	SpinLockRelease(&ops_traffic_shared->mutex);
	pfree(all);
}

static void
clear_local(void)
{
	local_n = 0;
	if (++local_generation == 0)
	{
		/* wrapped around: mark every slot unused for real */
		if (local_slots)
			for (int i = 0; i < LOCAL_SLOTS; i++)
				local_slots[i].generation = 0;
		local_generation = 1;
	}
}

static void
flush_local(void)
{
	LocalEntry *missing[LOCAL_MAX];
	int			m = 0;

	if (local_n == 0)
		return;
	if (ops_traffic_shared == NULL)
	{
		clear_local();
		return;
	}
	LWLockAcquire(ops_traffic_shared->lock, LW_SHARED);
	for (int i = 0; i < local_n; i++)
	{
		LocalEntry *le = &local_slots[local_used[i]];
		TrafficEntry *e = hash_search_with_hash_value(shared_hash, &le->key, le->hash,
													  HASH_FIND, NULL);

		if (e)
			add_to_entry(e, le, local_second);
		else if (m < LOCAL_MAX)
			missing[m++] = le;
	}
	LWLockRelease(ops_traffic_shared->lock);

	if (m > 0)
	{
		LWLockAcquire(ops_traffic_shared->lock, LW_EXCLUSIVE);
		for (int i = 0; i < m; i++)
		{
			bool		found;
			TrafficEntry *e = hash_search_with_hash_value(shared_hash, &missing[i]->key,
														  missing[i]->hash, HASH_FIND, NULL);

			if (e == NULL)
			{
				if (hash_get_num_entries(shared_hash) >= ops_traffic_max_guc)
					evict();
				e = hash_search_with_hash_value(shared_hash, &missing[i]->key, missing[i]->hash,
												HASH_ENTER_NULL, &found);
				if (e == NULL)
					continue;	/* no room after all: the counts are lost */
				if (!found)
				{
					memset(((char *) e) + sizeof(TrafficKey), 0,
						   sizeof(TrafficEntry) - sizeof(TrafficKey));
					SpinLockInit(&e->mutex);
					strlcpy(e->pk, local_pk[missing[i]->nth], sizeof(e->pk));
				}
			}
			add_to_entry(e, missing[i], local_second);
		}
		LWLockRelease(ops_traffic_shared->lock);
	}
	clear_local();
}

/*
 * At a commit, the sums move only once their second has passed: a backend
 * committing thousands of times a second takes the shared lock once a
 * second, not at every commit.
 */
static void
traffic_xact_callback(XactEvent event, void *arg)
{
	if ((event == XACT_EVENT_PRE_COMMIT || event == XACT_EVENT_PARALLEL_PRE_COMMIT) &&
		local_n > 0 && (int64) time(NULL) != local_second)
		flush_local();
}

static void
traffic_exit(int code, Datum arg)
{
	/* a clean exit only: after an error the locks may be in any state */
	if (code == 0 && !IsTransactionState())
		flush_local();
}

static void
local_setup(void)
{
	local_slots = MemoryContextAllocZero(TopMemoryContext, sizeof(LocalEntry) * LOCAL_SLOTS);
	local_pk = MemoryContextAlloc(TopMemoryContext, sizeof(*local_pk) * LOCAL_MAX);
	RegisterXactCallback(traffic_xact_callback, NULL);
	before_shmem_exit(traffic_exit, (Datum) 0);
}

/* ---------- counting ---------- */

/* The partition key as shown: S as is, N as its text, B in base64; shortened. */
static void
show_pk(const Av *pk, char *out)
{
	const char *s = pk->str;
	int			len = pk->len;
	int			shown;

	if (pk->type == AV_B)
		s = av_base64_encode(pk->str, pk->len, &len);
	shown = len <= PK_SHOWN ? len : pg_mbcliplen(s, len, PK_SHOWN);
	memcpy(out, s, shown);
	if (shown < len)
	{
		memcpy(out + shown, "...", 3);
		shown += 3;
	}
	out[shown] = '\0';
}

static void
count(StTable *t, Oid indexoid, const Av *pk, const TrafficCounts *add)
{
	TrafficKey	key;
	LocalEntry *le;
	uint32		hash;
	uint32		slot;
	int64		now = (int64) time(NULL);

	if (pk == NULL || !av_type_is_scalar(pk->type))
		return;
	if (local_slots == NULL)
		local_setup();
	if (local_n > 0 && (now != local_second || local_n >= LOCAL_MAX))
		flush_local();
	local_second = now;

	key.dbid = MyDatabaseId;
	key.relid = t->relid;
	key.indexoid = indexoid;
	key.pad = 0;
	key.pkhash = hash_bytes_extended((const unsigned char *) pk->str, pk->len, pk->type);
	hash = key_hash_of(&key);
	slot = hash;
	for (;;)
	{
		slot &= LOCAL_SLOTS - 1;
		le = &local_slots[slot];
		if (le->generation != local_generation)
		{
			/* a free slot: the partition's first count since the last move */
			le->generation = local_generation;
			le->key = key;
			le->hash = hash;
			memset(&le->c, 0, sizeof(le->c));
			le->nth = local_n;
			show_pk(pk, local_pk[local_n]);
			local_used[local_n++] = slot;
			break;
		}
		if (le->hash == hash && memcmp(&le->key, &key, sizeof(key)) == 0)
			break;
		slot++;
	}
	le->c.reads += add->reads;
	le->c.writes += add->writes;
	le->c.read_units += add->read_units;
	le->c.write_units += add->write_units;
}

static int64
units(int64 bytes, int64 unit)
{
	return Max((bytes + unit - 1) / unit, 1);
}

void
ops_traffic_read_slow(StTable *t, StIndex *ix, const Av *pk, int64 bytes)
{
	TrafficCounts c = {1, 0, units(bytes, READ_UNIT_BYTES), 0};

	count(t, ix ? ix->index_oid : InvalidOid, pk, &c);
}

void
ops_traffic_read_stored(StTable *t, const Av *pk, Jsonb *stored)
{
	int64		bytes = 0;

	if (!ops_traffic_on())
		return;
	/*
	 * The stored form is never smaller than the DynamoDB size (each byte
	 * of DynamoDB's overhead is a 4-byte JEntry or more in jsonb, each
	 * value at least its DynamoDB bytes): an item stored in 4 KB is one
	 * unit without walking it.
	 */
	if (stored)
		bytes = VARSIZE(stored) - VARHDRSZ <= READ_UNIT_BYTES ? 1 : av_stored_item_size(stored);
	ops_traffic_read_slow(t, NULL, pk, bytes);
}

static const Av *
attr(const Av *item, const char *name)
{
	if (item == NULL || name == NULL)
		return NULL;
	return av_map_get(item, name, strlen(name));
}

void
ops_traffic_write_slow(StTable *t, const Av *old_item, const Av *new_item, bool transactional)
{
	const Av   *item = new_item ? new_item : old_item;
	int64		bytes = 0;
	int64		mult = transactional ? 2 : 1;
	TrafficCounts c = {0, 1, 0, 0};

	if (item == NULL)
		return;
	if (old_item)
		bytes = av_item_size(old_item);
	if (new_item)
		bytes = Max(bytes, av_item_size(new_item));
	c.write_units = mult * units(bytes, WRITE_UNIT_BYTES);
	for (int i = 0; i < t->nindexes; i++)
	{
		StIndex    *ix = &t->indexes[i];
		int64		h = old_item == NULL ?
			ops_capacity_index_insert_halves(t, ix, new_item, bytes) :
			ops_capacity_index_write_halves(t, ix, old_item, new_item);
		TrafficCounts ic = {0, 1, 0, mult * h / 2};
		const Av   *ipk;

		if (h == 0)
			continue;
		if (ix->is_local)
		{
			c.write_units += ic.write_units;
			continue;
		}
		/* the index's partition: all of its HASH attributes */
		ipk = ops_index_partition_of(ix, new_item);
		if (ipk == NULL)
			ipk = ops_index_partition_of(ix, old_item);
		count(t, ix->index_oid, ipk, &ic);
	}
	count(t, InvalidOid, attr(item, t->pk.name), &c);
}

void
ops_traffic_write_stored(StTable *t, Jsonb **stored, int n)
{
	if (!ops_traffic_on())
		return;
	for (int i = 0; i < n; i++)
		ops_traffic_write_slow(t, NULL, av_item_from_stored(stored[i]), false);
}

/* ---------- reporting ---------- */

StTrafficRow *
ops_traffic_rows(Oid relid, int *n, TimestampTz *since)
{
	HASH_SEQ_STATUS seq;
	TrafficEntry *e;
	StTrafficRow *rows;
	int			cap = 64;

	*n = 0;
	if (ops_traffic_shared == NULL)
		return NULL;
	flush_local();
	rows = palloc(sizeof(StTrafficRow) * cap);
	LWLockAcquire(ops_traffic_shared->lock, LW_SHARED);
	SpinLockAcquire(&ops_traffic_shared->mutex);
	*since = ops_traffic_shared->since;
	SpinLockRelease(&ops_traffic_shared->mutex);
	hash_seq_init(&seq, shared_hash);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		StTrafficRow *r;

		if (e->key.dbid != MyDatabaseId || e->key.relid != relid)
			continue;
		if (*n == cap)
		{
			cap *= 2;
			rows = repalloc(rows, sizeof(StTrafficRow) * cap);
		}
		r = &rows[(*n)++];
		r->relid = e->key.relid;
		r->indexoid = e->key.indexoid;
		r->partition_key = pstrdup(e->pk);
		SpinLockAcquire(&e->mutex);
		r->reads = e->c.reads;
		r->writes = e->c.writes;
		r->read_units = e->c.read_units;
		r->write_units = e->c.write_units;
		r->peak_read_units = e->peak_read_units;
		r->peak_write_units = e->peak_write_units;
		SpinLockRelease(&e->mutex);
	}
	LWLockRelease(ops_traffic_shared->lock);
	return rows;
}

void
ops_traffic_reset(void)
{
	HASH_SEQ_STATUS seq;
	TrafficEntry *e;

	/* counts are kept as data is: not forgotten by a read-only transaction */
	storage_prevent_write("st_partition_traffic_reset()");
	clear_local();
	if (ops_traffic_shared == NULL)
		return;
	LWLockAcquire(ops_traffic_shared->lock, LW_EXCLUSIVE);
	hash_seq_init(&seq, shared_hash);
	while ((e = hash_seq_search(&seq)) != NULL)
		hash_search(shared_hash, &e->key, HASH_REMOVE, NULL);
	SpinLockAcquire(&ops_traffic_shared->mutex);
	ops_traffic_shared->since = GetCurrentTimestamp();
	ops_traffic_shared->evicted = 0;
	SpinLockRelease(&ops_traffic_shared->mutex);
	LWLockRelease(ops_traffic_shared->lock);
}

int64
ops_traffic_evicted(void)
{
	int64		n;

	if (ops_traffic_shared == NULL)
		return 0;
	SpinLockAcquire(&ops_traffic_shared->mutex);
	n = ops_traffic_shared->evicted;
	SpinLockRelease(&ops_traffic_shared->mutex);
	return n;
}
