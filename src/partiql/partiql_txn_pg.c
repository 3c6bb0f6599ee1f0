/*-------------------------------------------------------------------------
 *
 * partiql_txn_pg.c
 *		ExecuteTransaction: PartiQL statements run all or nothing.
 *
 * A transaction is all reads or all writes (developer guide, "Performing
 * transactions with PartiQL for DynamoDB": the whole transaction is read
 * statements or write statements, EXISTS counting as a write; DynamoDB's
 * message: "ExecuteTransaction API does not support both read and write
 * operations in the same request").  Reads are SELECTs of one whole key each, read like
 * TransactGetItems.  Writes become the actions of a TransactWriteItems -
 * INSERT a Put whose condition is that the key is free, UPDATE an Update
 * and DELETE a Delete with the WHERE's other conjuncts as their condition,
 * EXISTS a ConditionCheck - and run through ops_transact_write, the same
 * code as TransactWriteItems: items locked in key order, every condition
 * checked, CancellationReasons in statement order.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "item/av_jsonb.h"
#include "ops/expr_ops.h"
#include "ops/item_ops.h"
#include "ops/transact.h"
#include "partiql.h"

static void
plan_of(const PqlStmt *s, StTable *t, PqlPlan *plan)
{
	PqlKeySchema ks;
	StErr		err;

	memset(&ks, 0, sizeof(ks));
	ks.pk = t->pk.name;
	ks.pk_type = t->pk.type;
	ks.sk = t->sk.name;
	ks.sk_type = t->sk.type;
	ks.is_index = false;
	if (!partiql_plan(s, &ks, plan, &err))
		st_raise(&err);
}

/* One write statement as a TransactWriteItems action. */
static void
write_action(StTxAction *a, const PqlStmt *s, const Av *params)
{
	PqlPlan		plan;

	a->table = ops_table_lookup(s->table);
	plan_of(s, a->table, &plan);
	partiql_bind_request(&a->req, &plan, params);
	switch (s->kind)
	{
		case PQL_INSERT:
			a->op = ST_TX_PUT;
			a->item = partiql_value_of(s->value, params);
			if (a->item->type != AV_M)
				st_error(ST_ERR_VALIDATION, "The VALUE of an INSERT must be a tuple of attributes");
			ops_check_item(a->table, a->item);
			a->keymap = av_new(AV_M);
			av_map_put_nocheck(a->keymap, a->table->pk.name, strlen(a->table->pk.name),
							   av_copy(av_map_get(a->item, a->table->pk.name, strlen(a->table->pk.name))));
			if (a->table->sk.name)
				av_map_put_nocheck(a->keymap, a->table->sk.name, strlen(a->table->sk.name),
								   av_copy(av_map_get(a->item, a->table->sk.name, strlen(a->table->sk.name))));
			/* DynamoDB's reason for a duplicate INSERT in a transaction */
			a->failure_code = "ValidationError";
			a->failure_message = "Duplicate primary key exists in table";
			break;
		case PQL_UPDATE:
			a->op = ST_TX_UPDATE;
			a->keymap = partiql_write_keymap(a->table, &plan, params);
			ops_expr_add_update(&a->req, plan.update);
			ops_expr_write_update(&a->req, a->table);
			break;
		case PQL_DELETE:
			a->op = ST_TX_DELETE;
			a->keymap = partiql_write_keymap(a->table, &plan, params);
			break;
		case PQL_EXISTS:
			a->op = ST_TX_CONDITION_CHECK;
			a->keymap = partiql_write_keymap(a->table, &plan, params);
			break;
		default:
			st_internal_error("PartiQL statement kind %d in a write transaction", (int) s->kind);
	}
	ops_key_from_map(a->table, a->keymap, &a->key);
	ops_expr_add_condition(&a->req, plan.condition, "ConditionExpression");
	ops_expr_finish(&a->req);
}


/* The reads: each a SELECT of one whole key, its item (filtered, projected) or a miss. */
static void
transact_reads(const PqlStmt **stmts, const Av *const *params, int n, StCapacity *cap,
			   PartiqlEmit emit, void *arg)
{
	for (int i = 0; i < n; i++)
	{
		StTable    *t = ops_table_lookup(stmts[i]->table);
		PqlPlan		plan;
		StExprRequest req;
		Jsonb	   *stored;
		Av		   *item = NULL;

		plan_of(stmts[i], t, &plan);
		if (plan.access != PQL_ACCESS_GET || stmts[i]->index)
			st_error(ST_ERR_VALIDATION,
					 "Validation failed in TransactStatements[%d]: Select statements within ExecuteTransaction must specify the primary key in the where clause.",
					 i);
		partiql_bind_request(&req, &plan, params[i]);
		ops_expr_add_filter(&req, plan.filter, NULL);
		ops_expr_add_projection(&req, plan.projection);
		ops_expr_finish(&req);
		stored = ops_get(t, partiql_write_keymap(t, &plan, params[i]));
		if (stored)
			item = av_item_from_stored(stored);
		if (cap)
			ops_capacity_read(cap, t, NULL, item ? av_item_size(item) : 0, true, true);
		if (item && !ops_expr_filter_passes(&req, item))
			item = NULL;
		if (item && req.projection)
			item = ops_expr_project_item(&req, item);
		emit(arg, NULL, item);
	}
}

void
partiql_transact(const char *const *statements, const Av *const *params, int n,
				 StCapacity *cap, bool typed, PartiqlEmit emit, void *arg)
{
	const PqlStmt **stmts = palloc(sizeof(PqlStmt *) * Max(1, n));
	int			nreads = 0;
	StTxAction *actions;

	for (int i = 0; i < n; i++)
	{
		stmts[i] = partiql_prepare(statements[i]);
		partiql_check_params(stmts[i], params[i]);
		if (stmts[i]->kind == PQL_SELECT)
			nreads++;
	}
	if (nreads > 0 && nreads < n)
		st_error(ST_ERR_VALIDATION,
				 "ExecuteTransaction API does not support both read and write operations in the same request.");
	if (nreads > 0)
	{
		transact_reads(stmts, params, n, cap, emit, arg);
		return;
	}
	actions = palloc0(sizeof(StTxAction) * Max(1, n));
	for (int i = 0; i < n; i++)
		write_action(&actions[i], stmts[i], params[i]);
	ops_transact_prepare(actions, n);
	ops_transact_write(actions, n, typed, cap != NULL && ops_capacity_wanted(cap));
	if (cap)
		ops_transact_count_writes(cap, actions, n);
}
