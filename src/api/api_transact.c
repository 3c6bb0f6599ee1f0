/*-------------------------------------------------------------------------
 *
 * api_transact.c
 *		st_api's TransactWriteItems and TransactGetItems.
 *
 * The transactions themselves are the ones st_transact and st_transact_get
 * run (transact_request.h); this file adds what DynamoDB's request carries
 * around TransactItems: a TableName in every action, ClientRequestToken,
 * ReturnConsumedCapacity and ReturnItemCollectionMetrics.
 *
 * Capacity: every action of a TransactWriteItems is a transactional write
 * of its item (a ConditionCheck too: DynamoDB prepares it like a write),
 * and every Get a transactional read.  A request repeated with the same
 * ClientRequestToken changes nothing and reports the reads of its items,
 * as DynamoDB does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/jsonb.h"

#include "api.h"
#include "ops/collection.h"
#include "item/av_jsonb.h"
#include "json_req.h"
#include "transact_request.h"

static const char *const write_ops[] = {"ConditionCheck", "Put", "Delete", "Update"};
static const char *const write_paths[] = {"conditionCheck", "put", "delete", "update"};

/*
 * st_transact lets TableName default to the default table; DynamoDB's
 * request must name it in every action.  Malformed elements are left to
 * the parser, which reports them.
 */
static void
require_table_names(Jsonb *items, const char *const *ops, const char *const *paths, int nops)
{
	int			n = api_jreq_array_length(items);

	for (int i = 0; i < n; i++)
	{
		Jsonb	   *el = api_jreq_array_element(items, i);

		for (int k = 0; k < nops; k++)
		{
			Jsonb	   *body = api_jreq_member(el, ops[k]);

			if (api_jreq_is_object(body) && api_jreq_member(body, "TableName") == NULL)
				st_validation_null("transactItems.%d.member.%s.tableName", i + 1, paths[k]);
		}
	}
}

/* Push a jsonb document as the value of the current member. */
static void
out_jsonb(ApiOut *out, Jsonb *jb)
{
	JsonbValue	v;

	v.type = jbvBinary;
	v.val.binary.data = &jb->root;
	v.val.binary.len = VARSIZE(jb) - VARHDRSZ;
	pushJsonbValue(&out->state, WJB_VALUE, &v);
}

/* {} with ConsumedCapacity when asked. */
static Jsonb *
capacity_response(Jsonb *responses, StCapacity *cap)
{
	ApiOut		out;

	api_out_begin(&out);
	if (responses)
	{
		api_out_key(&out, "Responses");
		out_jsonb(&out, responses);
	}
	api_out_capacity(&out, cap, true);
	return api_out_end(&out);
}

/* ---------- TransactWriteItems ---------- */


/* A repeated request: what reading its items cost. */
static void
count_replay(StCapacity *cap, StTxAction *actions, int n)
{
	for (int i = 0; i < n; i++)
	{
		Jsonb	   *stored = ops_get(actions[i].table, actions[i].keymap);

		ops_capacity_read(cap, actions[i].table, NULL,
					  stored ? av_item_size(av_item_from_stored(stored)) : 0, true, false);
	}
}

/*
 * ConsumedCapacity and ItemCollectionMetrics: per table with a local
 * secondary index, one element per action that writes (Put, Update,
 * Delete), in request order.
 */
static Jsonb *
collection_response(StCapacity *cap, StTxAction *actions, int n)
{
	ApiOut		out;
	bool		any = false;

	api_out_begin(&out);
	api_out_capacity(&out, cap, true);
	for (int i = 0; i < n; i++)
		any |= actions[i].op != ST_TX_CONDITION_CHECK && ops_has_item_collections(actions[i].table);
	if (any)
	{
		api_out_key(&out, "ItemCollectionMetrics");
		api_out_begin_object(&out);
		for (int i = 0; i < n; i++)
		{
			StTable    *t = actions[i].table;
			bool		first = true;

			if (actions[i].op == ST_TX_CONDITION_CHECK || !ops_has_item_collections(t))
				continue;
			/* one member per table, at its first action */
			for (int j = 0; j < i && first; j++)
				first = actions[j].op == ST_TX_CONDITION_CHECK || actions[j].table != t;
			if (!first)
				continue;
			api_out_key(&out, t->name);
			api_out_begin_array(&out);
			for (int j = i; j < n; j++)
				if (actions[j].table == t && actions[j].op != ST_TX_CONDITION_CHECK)
					api_out_collection_metrics(&out, t, actions[j].keymap);
			api_out_end_array(&out);
		}
		api_out_end_object(&out);
	}
	return api_out_end(&out);
}

Jsonb *
api_transact_write_items(Jsonb *request)
{
	static const char *const metrics[] = {"SIZE", "NONE"};
	Jsonb	   *items = api_required(request, "TransactItems", "transactItems");
	StCapacity *cap = ops_capacity_new(api_capacity_mode(request));
	char	   *token = api_jreq_member_text(request, "ClientRequestToken", "ClientRequestToken");
	StTxAction *actions;
	int			n;

	api_enum(request, "ReturnItemCollectionMetrics", "returnItemCollectionMetrics", metrics, 2);
	require_table_names(items, write_ops, write_paths, 4);
	actions = api_transact_parse_write(items, true, &n);

	/* the token covers TransactItems, as st_transact's does: either may repeat the other */
	if (token && api_transact_token_seen(token, items))
		count_replay(cap, actions, n);
	else
	{
		ops_transact_write(actions, n, true, ops_capacity_wanted(cap));
		ops_transact_count_writes(cap, actions, n);
	}
	if (!api_wants_collection_metrics(request))
		return capacity_response(NULL, cap);
	return collection_response(cap, actions, n);
}

/* ---------- TransactGetItems ---------- */

/* What the Gets cost: each one a transactional read of the whole item. */
static void
count_gets(StCapacity *cap, Jsonb *items)
{
	int			n = api_jreq_array_length(items);

	for (int i = 0; i < n; i++)
	{
		Jsonb	   *get = api_jreq_member(api_jreq_array_element(items, i), "Get");
		StTable    *t = catalog_lookup(api_jreq_member_text(get, "TableName", "TableName"), false);
		Jsonb	   *stored = ops_get(t, av_map_from_jsonb(api_jreq_member(get, "Key"), true, "Key"));

		ops_capacity_read(cap, t, NULL, stored ? av_item_size(av_item_from_stored(stored)) : 0,
					  true, true);
	}
}

Jsonb *
api_transact_get_items(Jsonb *request)
{
	static const char *const get_ops[] = {"Get"};
	static const char *const get_paths[] = {"get"};
	Jsonb	   *items = api_required(request, "TransactItems", "transactItems");
	StCapacity *cap = ops_capacity_new(api_capacity_mode(request));
	Jsonb	   *result;

	require_table_names(items, get_ops, get_paths, 1);
	result = api_transact_get_responses(items, true);
	if (!ops_capacity_wanted(cap))
		return result;
	count_gets(cap, items);
	return capacity_response(api_jreq_member(result, "Responses"), cap);
}
