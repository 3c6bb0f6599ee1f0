/*-------------------------------------------------------------------------
 *
 * item_ops.c
 *		GetItem, PutItem, DeleteItem and UpdateItem.
 *
 * A write with a condition (or one that must return the old item) reads the
 * item locked, as SELECT ... FOR UPDATE would (storage_get_for_update): in
 * READ COMMITTED the latest committed version, with its row lock held until
 * the caller's transaction ends; the condition is evaluated against that
 * version.  When the item does not exist there is no row to lock: the new
 * item is inserted with INSERT ... ON CONFLICT DO NOTHING, and if a
 * concurrent writer got there first (nothing inserted), the read is
 * repeated, now finding that writer's item and locking it.  Two writers can
 * therefore never both pass a condition that only one could pass in
 * DynamoDB, and no lock other than the row's is taken, so one statement may
 * write millions of items.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "collection.h"
#include "item/av_jsonb.h"
#include "item_ops.h"
#include "traffic.h"

/* How often a write retries after losing an insert race before giving up. */
#define ST_WRITE_RETRIES 100

Jsonb *
ops_get(StTable *t, const Av *keymap)
{
	StKey		key;
	Jsonb	   *jb;

	ops_key_from_map(t, keymap, &key);
	jb = storage_get(t, &key);
	if (ops_traffic_on())
		ops_traffic_read_stored(t, av_map_get(keymap, t->pk.name, strlen(t->pk.name)), jb);
	return jb;
}

void
ops_condition_failed(const Av *item, bool return_item)
{
	StErr		err;

	st_fail(&err, ST_ERR_CONDITIONAL_CHECK_FAILED, "The conditional request failed");
	if (return_item && item)
	{
		Jsonb	   *jb = av_item_to_jsonb(item, true);

		err.detail = psprintf("{\"Item\": %s}", JsonbToCString(NULL, &jb->root, VARSIZE(jb)));
	}
	st_raise(&err);
}

static bool
condition_holds(StCondition *cond, const Av *item)
{
	return cond == NULL || cond->holds(cond, item);
}

/* The key of an item that passed ops_check_item. */
static void
item_key(StTable *t, const Av *item, StKey *key)
{
	key->pk = storage_key_datum(av_map_get(item, t->pk.name, strlen(t->pk.name)));
	if (t->sk.name)
		key->sk = storage_key_datum(av_map_get(item, t->sk.name, strlen(t->sk.name)));
}

Av *
ops_put(StTable *t, Av *item, StCondition *cond, StReturnValues rv, StWriteResult *res)
{
	Jsonb	   *stored;
	StKey		key;

	ops_check_item(t, item);
	stored = av_item_to_jsonb(item, true);

	/* the common case: one INSERT ... ON CONFLICT DO UPDATE */
	if (cond == NULL && rv == ST_RV_NONE && res == NULL)
	{
		storage_upsert(t, stored);
		ops_check_item_collection(t, item);
		ops_traffic_write(t, NULL, item, false);
		return NULL;
	}

	item_key(t, item, &key);
	for (int attempt = 0; attempt < ST_WRITE_RETRIES; attempt++)
	{
		ItemPointerData ctid;
		Jsonb	   *old = storage_get_for_update(t, &key, &ctid);
		Av		   *old_item = old ? av_item_from_stored(old) : NULL;

		if (!condition_holds(cond, old_item))
			ops_condition_failed(old_item, cond->return_item_on_failure);
		if (res)
		{
			res->old_item = old_item;
			res->new_item = item;
		}
		if (old)
		{
			/* whether a rule kept it from being written or not, the old item is what was there */
			(void) storage_replace(t, &ctid, stored);
			ops_check_item_collection(t, item);
			ops_traffic_write(t, old_item, item, false);
			return rv == ST_RV_ALL_OLD ? old_item : NULL;
		}
		if (storage_insert(t, stored, NULL))
		{
			ops_check_item_collection(t, item);
			ops_traffic_write(t, NULL, item, false);
			return NULL;
		}
		/* a concurrent writer inserted this key first: read it again */
	}
	st_error(ST_ERR_TRANSACTION_CONFLICT,
			 "Transaction is ongoing for the item; the write could not acquire the item");
}

typedef struct KeyedItem
{
	StringInfoData key;			/* ops_append_key_bytes */
	Jsonb	   *stored;
} KeyedItem;

static int
keyed_item_cmp(const void *a, const void *b)
{
	const StringInfoData *x = &((const KeyedItem *) a)->key;
	const StringInfoData *y = &((const KeyedItem *) b)->key;

	return ops_key_bytes_cmp(x->data, x->len, y->data, y->len);
}

/*
 * After writing items in key order (stored form): the collection of each
 * partition key value written, once, must still fit.
 */
static void
check_collections(StTable *t, Jsonb **stored, int n)
{
	Av		   *last = NULL;

	if (!ops_has_item_collections(t))
		return;
	for (int i = 0; i < n; i++)
	{
		Av		   *item = av_item_from_stored(stored[i]);
		Av		   *pk = av_map_get(item, t->pk.name, strlen(t->pk.name));

		if (last && pk && av_equal(last, pk))
			continue;
		ops_check_item_collection(t, item);
		last = pk;
	}
}

void
ops_put_many(StTable *t, Av **items, int n)
{
	KeyedItem  *keyed = palloc(sizeof(KeyedItem) * Max(1, n));
	Jsonb	  **stored = palloc(sizeof(Jsonb *) * Max(1, n));
	bool		probe = false;

	for (int i = 0; i < n; i++)
	{
		ops_check_item(t, items[i]);
		initStringInfo(&keyed[i].key);
		ops_append_key_bytes(t, items[i], &keyed[i].key);
		keyed[i].stored = av_item_to_jsonb(items[i], true);
	}
	qsort(keyed, n, sizeof(KeyedItem), keyed_item_cmp);
	for (int i = 0; i < n; i++)
		stored[i] = keyed[i].stored;
	storage_upsert_many(t, stored, n, &probe);
	check_collections(t, stored, n);
	ops_traffic_write_stored(t, stored, n);
}

void
ops_put_sorted(StTable *t, Jsonb **stored, int n, bool *probe)
{
	storage_upsert_many(t, stored, n, probe);
	check_collections(t, stored, n);
	ops_traffic_write_stored(t, stored, n);
}

void
ops_load_sorted(StTable *t, Jsonb **stored, int n, bool keys_new, bool *probe)
{
	if (!keys_new || !storage_insert_new_many(t, stored, n))
		storage_upsert_many(t, stored, n, probe);
	check_collections(t, stored, n);
}

struct OpsLoad
{
	StTable    *table;
	StStorageLoad *load;
};

OpsLoad *
ops_load_begin(StTable *t)
{
	OpsLoad    *l;
	StStorageLoad *sl;

	if (ops_has_item_collections(t))
		return NULL;
	sl = storage_load_begin(t);
	if (sl == NULL)
		return NULL;
	l = palloc(sizeof(OpsLoad));
	l->table = t;
	l->load = sl;
	return l;
}

void
ops_load_chunk(OpsLoad *l, Jsonb **stored, int n)
{
	storage_load(l->load, stored, n);
}

bool
ops_load_dedupes(OpsLoad *l)
{
	return storage_load_dedupes(l->load);
}

void
ops_load_end(OpsLoad *l)
{
	storage_load_end(l->table, l->load);
	pfree(l);
}

bool
ops_table_is_empty(StTable *t)
{
	return storage_table_is_empty(t);
}

Av *
ops_delete(StTable *t, const Av *keymap, StCondition *cond, StReturnValues rv, StWriteResult *res)
{
	StKey		key;
	ItemPointerData ctid;
	Jsonb	   *old;
	Av		   *old_item;

	ops_key_from_map(t, keymap, &key);
	if (cond == NULL)
	{
		bool		deleted;

		old = storage_delete(t, &key, rv == ST_RV_ALL_OLD || res != NULL, &deleted);
		old_item = old ? av_item_from_stored(old) : NULL;
		/* without the old item its key stands for it */
		ops_traffic_write(t, old_item ? old_item : keymap, NULL, false);
		if (res)
		{
			res->old_item = old_item;
			res->new_item = NULL;
		}
		return rv == ST_RV_ALL_OLD ? old_item : NULL;
	}

	/* a missing item has no row to lock: its condition is checked as is */
	old = storage_get_for_update(t, &key, &ctid);
	old_item = old ? av_item_from_stored(old) : NULL;
	if (!condition_holds(cond, old_item))
		ops_condition_failed(old_item, cond->return_item_on_failure);
	if (res)
	{
		res->old_item = old_item;
		res->new_item = NULL;
	}
	if (old)
		storage_delete_ctid(t, &ctid, &key);
	ops_traffic_write(t, old_item ? old_item : keymap, NULL, false);
	return rv == ST_RV_ALL_OLD ? old_item : NULL;
}

bool
ops_delete_if(StTable *t, const Av *keymap, StCondition *cond)
{
	StKey		key;
	ItemPointerData ctid;
	Jsonb	   *old;

	ops_key_from_map(t, keymap, &key);
	old = storage_get_for_update(t, &key, &ctid);
	if (old == NULL || !condition_holds(cond, av_item_from_stored(old)))
		return false;
	storage_delete_ctid(t, &ctid, &key);
	return true;
}

Av *
ops_update(StTable *t, const Av *keymap, StUpdate *upd, StCondition *cond, StReturnValues rv,
		   StWriteResult *res)
{
	StKey		key;
	bool		optimistic;

	ops_key_from_map(t, keymap, &key);
	optimistic = storage_can_replace_unlocked(t);
	for (int attempt = 0; attempt < ST_WRITE_RETRIES; attempt++)
	{
		/*
		 * First without a lock, replacing the version read only if it is
		 * still the latest; after a lost race, or before reporting a failed
		 * condition, under the row's lock (which waits for a transaction
		 * still writing it, whose outcome decides the condition).
		 */
		bool		locked = !optimistic || attempt > 0;
		ItemPointerData ctid;
		Jsonb	   *old = locked ? storage_get_for_update(t, &key, &ctid) :
			storage_get_latest(t, &key, &ctid);
		Av		   *old_item = old ? av_item_from_stored(old) : NULL;
		Av		   *new_item;
		Jsonb	   *stored;

		if (!condition_holds(cond, old_item))
		{
			if (!locked && old)
				continue;
			ops_condition_failed(old_item, cond->return_item_on_failure);
		}

		/*
		 * An absent item is created from its key, as DynamoDB does, unless
		 * the update only removes: then there is nothing to write, and no
		 * Attributes to return.
		 */
		if (old_item == NULL && upd && !upd->creates_item)
		{
			if (res)
				res->old_item = res->new_item = NULL;
			return NULL;
		}
		new_item = old_item ? av_copy(old_item) : av_copy(keymap);
		if (upd)
			upd->apply(upd, new_item);
		/* UpdateItem words the size limit its own way */
		if (av_item_size(new_item) > AV_MAX_ITEM_SIZE)
			st_error(ST_ERR_VALIDATION, "Item size to update has exceeded the maximum allowed size");
		ops_check_item(t, new_item);
		stored = av_item_to_jsonb(new_item, true);
		if (old && locked)
		{
			/* a rule (DO INSTEAD NOTHING) may keep it from being written: then there is no new item */
			if (!storage_replace(t, &ctid, stored))
				new_item = NULL;
		}
		else if (old && !storage_replace_unlocked(t, &ctid, stored))
			continue;			/* changed since read: read it again, locked */
		else if (!old && !storage_insert(t, stored, NULL))
			continue;			/* a concurrent writer created it: read it again */
		ops_check_item_collection(t, new_item);
		if (res)
		{
			res->old_item = old_item;
			res->new_item = new_item;
		}
		ops_traffic_write(t, old_item, new_item, false);

		switch (rv)
		{
			case ST_RV_ALL_OLD:
				return old_item;
			case ST_RV_ALL_NEW:
				return new_item;
			case ST_RV_UPDATED_OLD:
				return old_item && upd ? upd->project_updated(upd, old_item) : NULL;
			case ST_RV_UPDATED_NEW:
				return new_item && upd ? upd->project_updated(upd, new_item) : NULL;
			default:
				return NULL;
		}
	}
	st_error(ST_ERR_TRANSACTION_CONFLICT,
			 "Transaction is ongoing for the item; the write could not acquire the item");
}

/*
 * A table by name, for the layers above that do not read the catalog
 * themselves (PartiQL names its tables in the statement).
 */
StTable *
ops_table_lookup(const char *name)
{
	return catalog_lookup(name, false);
}

/* An index of t by name: ValidationException when t has none of that name. */
StIndex *
ops_index_lookup(StTable *t, const char *name)
{
	StIndex    *ix = catalog_find_index(t, name);

	if (ix == NULL)
		st_error(ST_ERR_VALIDATION, "The table does not have the specified index: %s", name);
	return ix;
}

/* Reads that went straight to a Citus shard of this node (cache_stats). */
int64
ops_shard_direct_reads(void)
{
	return storage_shard_direct_reads();
}

void
ops_check_delegated_key(StTable *t, bool sort_key, Oid argtype)
{
	storage_check_key_arg(t, sort_key, argtype);
}

Jsonb *
ops_delegated_get(StTable *t, const StKey *key, bool *direct)
{
	return storage_delegated_get(t, key, direct);
}

void
ops_delegated_query(StTable *t, const StQueryRange *r, StRowCallback callback, void *arg, bool *direct)
{
	storage_delegated_query(t, r, callback, arg, direct);
}

/* Reads another node answered from its own shard for this backend (cache_stats). */
int64
ops_shard_delegated_reads(void)
{
	return storage_shard_delegated_reads();
}
