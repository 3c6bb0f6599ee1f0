/*-------------------------------------------------------------------------
 *
 * api_batch.c
 *		BatchGetItem and BatchWriteItem (st_api, st_batch_get,
 *		st_batch_write).
 *
 * A batch is validated whole before anything is read or written: every
 * table exists, every key matches its table's schema, no item appears
 * twice, at most 100 keys (gets) or 25 requests (writes) in all.  Then each
 * element runs as its own GetItem, PutItem or DeleteItem, inside the
 * caller's transaction, so nothing is ever left unprocessed:
 * UnprocessedKeys and UnprocessedItems are always {}.  DynamoDB's 16 MB
 * response limit is not applied (a batch of at most 100 items of at most
 * 400 KB each stays within what one jsonb holds); BatchWriteItem's limit of
 * 16 MB on the whole request is (see check_write_request_size).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "api.h"
#include "ops/collection.h"
#include "item/av_jsonb.h"
#include "json_req.h"
#include "ops/expr_ops.h"
#include "ops/item_ops.h"

#define BATCH_GET_MAX 100
#define BATCH_WRITE_MAX 25

/* BatchWriteItem: "The total request size exceeds 16 MB" (API reference). */
#define BATCH_WRITE_MAX_BYTES ((int64) 16 * 1024 * 1024)

/* One element of a batch: its table, its key, and for a put the item. */
typedef struct BatchKey
{
	Av		   *keymap;
	Av		   *item;			/* BatchWriteItem's PutRequest.Item, else NULL */
} BatchKey;

/* The part of a batch that addresses one table. */
typedef struct BatchTable
{
	char	   *name;
	Jsonb	   *body;			/* the table's member of RequestItems */
	StTable    *table;
	int			nkeys;
	BatchKey   *keys;
	bool		consistent;		/* BatchGetItem: ConsistentRead */
	StExprRequest req;			/* BatchGetItem: the projection */
} BatchTable;

typedef struct Batch
{
	int			ntables;
	BatchTable *tables;
	StCapacity *capacity;
} Batch;

/* ---------- shared ---------- */

/* value: the offending value as DynamoDB quotes it, or NULL when it quotes none */
static void
length_error(const char *value, const char *path, const char *constraint)
{
	st_error(ST_ERR_VALIDATION,
			 "1 validation error detected: Value %s%sat '%s' failed to satisfy constraint: %s",
			 value ? value : "", value ? " " : "", path, constraint);
}

/* RequestItems: required, an object of at least one table. */
static Batch *
batch_begin(Jsonb *request)
{
	Jsonb	   *items = api_required(request, "RequestItems", "requestItems");
	Batch	   *b = palloc0(sizeof(Batch));

	if (!api_jreq_is_object(items))
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for RequestItems: expected an object");
	b->ntables = api_jreq_object_size(items);
	if (b->ntables == 0)
		length_error("'{}'", "requestItems", "Member must have length greater than or equal to 1");
	b->tables = palloc0(sizeof(BatchTable) * b->ntables);
	for (int i = 0; i < b->ntables; i++)
	{
		BatchTable *bt = &b->tables[i];

		bt->body = api_jreq_object_member(items, i, &bt->name);
		/* a table's name or ARN: its name from here on */
		bt->name = pstrdup(catalog_table_name(bt->name, "requestItems"));
	}
	b->capacity = ops_capacity_new(api_capacity_mode(request));
	return b;
}

/* Look every table up, once (the pointers then hold for the whole call). */
static void
batch_lookup(Batch *b)
{
	for (int i = 0; i < b->ntables; i++)
		b->tables[i].table = catalog_lookup(b->tables[i].name, false);
}

static bool
same_key(StTable *t, const Av *a, const Av *b)
{
	const StKeyDef *keys[2] = {&t->pk, &t->sk};

	for (int k = 0; k < 2; k++)
	{
		const char *name = keys[k]->name;

		if (name && !av_equal(av_map_get(a, name, strlen(name)), av_map_get(b, name, strlen(name))))
			return false;
	}
	return true;
}

/* Check each key against its table's schema, and that no item comes twice. */
static void
batch_check_keys(Batch *b)
{
	for (int i = 0; i < b->ntables; i++)
	{
		BatchTable *bt = &b->tables[i];

		for (int k = 0; k < bt->nkeys; k++)
		{
			StKey		key;

			if (bt->keys[k].item)
				ops_check_item(bt->table, bt->keys[k].item);
			ops_key_from_map(bt->table, bt->keys[k].keymap, &key);
			for (int j = 0; j < k; j++)
				if (same_key(bt->table, bt->keys[j].keymap, bt->keys[k].keymap))
					st_error(ST_ERR_VALIDATION, "Provided list of item keys contains duplicates");
		}
		/* a get's ProjectionExpression: no path into a key attribute (req is zero for writes) */
		ops_expr_check_key_paths(&bt->req, bt->table);
	}
}

/* The key attributes of an item (those the table's schema names). */
static Av  *
key_of_item(StTable *t, const Av *item)
{
	Av		   *keymap = av_new(AV_M);
	const StKeyDef *keys[2] = {&t->pk, &t->sk};

	for (int k = 0; k < 2; k++)
	{
		const char *name = keys[k]->name;
		Av		   *v = name ? av_map_get(item, name, strlen(name)) : NULL;

		if (v)
			av_map_put_nocheck(keymap, name, strlen(name), v);
	}
	return keymap;
}

/* ---------- BatchGetItem ---------- */


/* ProjectionExpression or AttributesToGet (not both), with the names. */
static void
parse_get_projection(BatchTable *bt)
{
	static const char *const legacy[] = {"AttributesToGet"};
	static const char *const expressions[] = {"ProjectionExpression"};
	Jsonb	   *atg = api_jreq_member(bt->body, "AttributesToGet");

	api_check_legacy_mix(bt->body, legacy, 1, expressions, 1);
	if (atg && api_jreq_is_array(atg) && api_jreq_array_length(atg) == 0)
		length_error("'[]'", psprintf("requestItems.%s.member.attributesToGet", bt->name),
					 "Member must have length greater than or equal to 1");
	ops_expr_init(&bt->req, api_jreq_member(bt->body, "ExpressionAttributeNames"), NULL, true);
	ops_expr_add_projection(&bt->req, api_jreq_member_text(bt->body, "ProjectionExpression", "ProjectionExpression"));
	/* the legacy list becomes the same projection tree (after any expression) */
	ops_expr_add_attributes_to_get(&bt->req, atg);
	ops_expr_finish(&bt->req);
}

static void
parse_get_table(BatchTable *bt, int *total)
{
	char	   *path = psprintf("requestItems.%s.member.keys", bt->name);
	Jsonb	   *keys;

	if (!api_jreq_is_object(bt->body))
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for KeysAndAttributes: expected an object");
	keys = api_required(bt->body, "Keys", path);
	if (!api_jreq_is_array(keys))
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for Keys: expected a list");
	bt->nkeys = api_jreq_array_length(keys);
	if (bt->nkeys == 0)
		length_error("'[]'", path, "Member must have length greater than or equal to 1");
	if (bt->nkeys > BATCH_GET_MAX)
		length_error(NULL, path, "Member must have length less than or equal to 100");
	*total += bt->nkeys;
	if (*total > BATCH_GET_MAX)
		st_error(ST_ERR_VALIDATION, "Too many items requested for the BatchGetItem call");
	bt->consistent = api_jreq_member_bool(bt->body, "ConsistentRead", "ConsistentRead", false);
	parse_get_projection(bt);
	bt->keys = palloc0(sizeof(BatchKey) * bt->nkeys);
	for (int k = 0; k < bt->nkeys; k++)
	{
		Jsonb	   *key = api_jreq_array_element(keys, k);

		if (!api_jreq_is_object(key))
			st_error(ST_ERR_SERIALIZATION, "Unexpected value type for Keys: expected a list of objects");
		bt->keys[k].keymap = av_map_from_jsonb(key, true, "Key");
	}
}

/* Read one table's keys into the response, and count what they cost. */
static void
get_table_items(Batch *b, BatchTable *bt, ApiOut *out)
{
	api_out_key(out, bt->name);
	api_out_begin_array(out);
	for (int k = 0; k < bt->nkeys; k++)
	{
		Jsonb	   *stored = ops_get(bt->table, bt->keys[k].keymap);
		Av		   *item;

		if (stored == NULL)
		{
			/* a miss still costs the minimum read */
			ops_capacity_read(b->capacity, bt->table, NULL, 0, bt->consistent, false);
			continue;
		}
		item = av_item_from_stored(stored);
		ops_capacity_read(b->capacity, bt->table, NULL, av_item_size(item), bt->consistent, false);
		api_out_item(out, ops_expr_project_item(&bt->req, item));
	}
	api_out_end_array(out);
}

Jsonb *
api_batch_get_item(Jsonb *request)
{
	Batch	   *b = batch_begin(request);
	int			total = 0;
	ApiOut		out;

	for (int i = 0; i < b->ntables; i++)
		parse_get_table(&b->tables[i], &total);
	batch_lookup(b);
	batch_check_keys(b);

	api_out_begin(&out);
	api_out_key(&out, "Responses");
	api_out_begin_object(&out);
	for (int i = 0; i < b->ntables; i++)
		get_table_items(b, &b->tables[i], &out);
	api_out_end_object(&out);
	api_out_key(&out, "UnprocessedKeys");
	api_out_begin_object(&out);
	api_out_end_object(&out);
	api_out_capacity(&out, b->capacity, true);
	return api_out_end(&out);
}

/* ---------- BatchWriteItem ---------- */

/* One WriteRequest: exactly one of PutRequest and DeleteRequest. */
static void
parse_write_request(BatchTable *bt, BatchKey *bk, Jsonb *el, int pos)
{
	Jsonb	   *put = api_jreq_member(el, "PutRequest");
	Jsonb	   *del = api_jreq_member(el, "DeleteRequest");
	char	   *path = psprintf("requestItems.%s.member.%d.member", bt->name, pos);

	if (!api_jreq_is_object(el))
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for WriteRequest: expected an object");
	if ((put == NULL) == (del == NULL))
		st_error(ST_ERR_VALIDATION,
				 "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes");
	if (!api_jreq_is_object(put ? put : del))
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for %s: expected an object",
				 put ? "PutRequest" : "DeleteRequest");
	if (put)
		bk->item = av_item_from_jsonb(api_required(put, "Item", psprintf("%s.putRequest.item", path)),
									  true, "Item");
	else
		bk->keymap = av_map_from_jsonb(api_required(del, "Key", psprintf("%s.deleteRequest.key", path)),
									   true, "Key");
}

static void
parse_write_table(BatchTable *bt, int *total)
{
	if (!api_jreq_is_array(bt->body))
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for RequestItems: expected a list of WriteRequest");
	bt->nkeys = api_jreq_array_length(bt->body);
	if (bt->nkeys < 1 || bt->nkeys > BATCH_WRITE_MAX)
		length_error(NULL, "requestItems",
					 "Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]");
	*total += bt->nkeys;
	if (*total > BATCH_WRITE_MAX)
		st_error(ST_ERR_VALIDATION, "Too many items requested for the BatchWriteItem call");
	bt->keys = palloc0(sizeof(BatchKey) * bt->nkeys);
	for (int k = 0; k < bt->nkeys; k++)
		parse_write_request(bt, &bt->keys[k], api_jreq_array_element(bt->body, k), k + 1);
}

/* Puts are keyed by their item's key attributes, once the table is known. */
static void
key_puts(Batch *b)
{
	for (int i = 0; i < b->ntables; i++)
		for (int k = 0; k < b->tables[i].nkeys; k++)
			if (b->tables[i].keys[k].item)
				b->tables[i].keys[k].keymap = key_of_item(b->tables[i].table, b->tables[i].keys[k].item);
}

static void
write_table_items(Batch *b, BatchTable *bt)
{
	/* the old item is only fetched when the request counts what writes cost */
	bool		counting = ops_capacity_wanted(b->capacity);
	Av		  **puts = palloc(sizeof(Av *) * Max(1, bt->nkeys));
	int			nputs = 0;

	for (int k = 0; k < bt->nkeys; k++)
	{
		BatchKey   *bk = &bt->keys[k];
		StWriteResult res = {0};

		if (bk->item && !counting)
		{
			/* written together below, in one statement */
			puts[nputs++] = bk->item;
			continue;
		}
		if (bk->item)
			ops_put(bt->table, bk->item, NULL, ST_RV_NONE, counting ? &res : NULL);
		else
			ops_delete(bt->table, bk->keymap, NULL, ST_RV_NONE, counting ? &res : NULL);
		ops_capacity_write(b->capacity, bt->table, res.old_item, res.new_item, false);
	}
	if (nputs > 0)
		ops_put_many(bt->table, puts, nputs);
}

/*
 * ItemCollectionMetrics: per table with a local secondary index, one
 * element per write request, in request order, each the collection's size
 * after the whole batch.
 */
static void
out_collection_metrics(ApiOut *out, Batch *b)
{
	bool		any = false;

	for (int i = 0; i < b->ntables; i++)
		any |= ops_has_item_collections(b->tables[i].table);
	if (!any)
		return;
	api_out_key(out, "ItemCollectionMetrics");
	api_out_begin_object(out);
	for (int i = 0; i < b->ntables; i++)
	{
		BatchTable *bt = &b->tables[i];

		if (!ops_has_item_collections(bt->table))
			continue;
		api_out_key(out, bt->table->name);
		api_out_begin_array(out);
		for (int k = 0; k < bt->nkeys; k++)
			api_out_collection_metrics(out, bt->table, bt->keys[k].item ? bt->keys[k].item : bt->keys[k].keymap);
		api_out_end_array(out);
	}
	api_out_end_object(out);
}

/*
 * DynamoDB rejects a BatchWriteItem whose request is larger than 16 MB.
 * 25 items of at most 400 KB stay under it by their sizes; the request's
 * JSON text can still pass it (escaped characters take up to six bytes
 * each, base64 four for three).  Its size is that of the JSON text; only
 * a request whose binary form is big enough to come near is written out
 * to be measured.
 */
static void
check_write_request_size(Jsonb *request)
{
	int64		len;

	if ((int64) VARSIZE(request) <= BATCH_WRITE_MAX_BYTES / 8)
		return;
	len = strlen(JsonbToCString(NULL, &request->root, VARSIZE(request)));
	if (len > BATCH_WRITE_MAX_BYTES)
		st_error(ST_ERR_VALIDATION,
				 "The total request size exceeds 16 MB: " INT64_FORMAT " bytes",
				 len);
}

Jsonb *
api_batch_write_item(Jsonb *request)
{
	Batch	   *b;
	static const char *const metrics[] = {"SIZE", "NONE"};
	int			total = 0;
	ApiOut		out;

	check_write_request_size(request);
	b = batch_begin(request);

	api_enum(request, "ReturnItemCollectionMetrics", "returnItemCollectionMetrics", metrics, 2);
	for (int i = 0; i < b->ntables; i++)
		parse_write_table(&b->tables[i], &total);
	batch_lookup(b);
	key_puts(b);
	batch_check_keys(b);

	for (int i = 0; i < b->ntables; i++)
		write_table_items(b, &b->tables[i]);

	api_out_begin(&out);
	api_out_key(&out, "UnprocessedItems");
	api_out_begin_object(&out);
	api_out_end_object(&out);
	api_out_capacity(&out, b->capacity, true);
	if (api_wants_collection_metrics(request))
		out_collection_metrics(&out, b);
	return api_out_end(&out);
}
