/*-------------------------------------------------------------------------
 *
 * sql_transact.c
 *		st_transact (TransactWriteItems) and st_transact_get
 *		(TransactGetItems): request parsing, ClientRequestToken.
 *
 * TransactItems are DynamoDB's own JSON: typed AttributeValues unless the
 * call says plain => true; TableName may be left out for the default table.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "catalog/st_catalog.h"
#include "item/av_jsonb.h"
#include "json_req.h"
#include "ops/transact.h"
#include "sql_args.h"
#include "transact_request.h"

#define ST_TOKEN_MAX 36

/* The aggregate size of a transaction's items, at most (DynamoDB: 4 MB). */
#define ST_TRANSACT_MAX_BYTES ((int64) 4 * 1024 * 1024)

/* A token is kept ten minutes; requests are compared by a hash of their text. */
#define TOKEN_EXPIRY_SQL "(pg_catalog.now() OPERATOR(pg_catalog.-) '10 minutes'::pg_catalog.interval)"
#define TOKEN_HASH_SQL "pg_catalog.sha256(pg_catalog.convert_to($3::pg_catalog.text, 'UTF8'::pg_catalog.name))"

/*
 * Tables are looked up once per call: a cache entry stays valid for the
 * whole call once looked up, even if an invalidation arrives meanwhile.
 */
typedef struct TableSet
{
	int			n;
	const char *names[ST_TRANSACT_MAX_ACTIONS];
	StTable    *tables[ST_TRANSACT_MAX_ACTIONS];
} TableSet;

static StTable *
table_of(TableSet *ts, const char *name)
{
	const char *resolved = name ? catalog_table_name(name, "tableName") : catalog_default_table_name();

	for (int i = 0; i < ts->n; i++)
		if (strcmp(ts->names[i], resolved) == 0)
			return ts->tables[i];
	ts->names[ts->n] = pstrdup(resolved);
	ts->tables[ts->n] = catalog_lookup(resolved, false);
	return ts->tables[ts->n++];
}

static void
check_item_count(Jsonb *items)
{
	int			n;

	if (!api_jreq_is_array(items))
		st_error(ST_ERR_SERIALIZATION, "TransactItems must be a JSON array");
	n = api_jreq_array_length(items);
	if (n < 1)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1");
	if (n > ST_TRANSACT_MAX_ACTIONS)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to %d",
				 ST_TRANSACT_MAX_ACTIONS);
}

/* The one operation of a TransactItems element, or a ValidationException. */
static Jsonb *
element_operation(Jsonb *el, const char *const *ops, int nops, int *which, const char *message)
{
	Jsonb	   *body = NULL;
	int			found = 0;

	if (!api_jreq_is_object(el))
		st_error(ST_ERR_SERIALIZATION, "Each TransactItems element must be a JSON object");
	for (int i = 0; i < nops; i++)
	{
		Jsonb	   *m = api_jreq_member(el, ops[i]);

		if (m)
		{
			found++;
			body = m;
			*which = i;
		}
	}
	if (found != 1 || !api_jreq_is_object(body))
		st_error(ST_ERR_VALIDATION, "%s", message);
	return body;
}

static Av  *
required_map(Jsonb *body, const char *field, const char *path, bool typed)
{
	Jsonb	   *m = api_jreq_member(body, field);

	if (m == NULL)
		st_validation_null("%s", path);
	return av_map_from_jsonb(m, typed, field);
}

/* The key attributes of an item, as a key map. */
static Av  *
key_of_item(StTable *t, const Av *item)
{
	Av		   *keymap = av_new(AV_M);
	const StKeyDef *keys[2] = {&t->pk, &t->sk};

	for (int k = 0; k < 2; k++)
	{
		Av		   *v;

		if (keys[k]->name == NULL)
			continue;
		v = av_map_get(item, keys[k]->name, strlen(keys[k]->name));
		if (v)
			av_map_put_nocheck(keymap, keys[k]->name, strlen(keys[k]->name), v);
	}
	return keymap;
}

/*
 * Parse one action.  A key or item that fails validation does not stop the
 * request: DynamoDB cancels the transaction with a ValidationError reason
 * on that action (see api_transact_parse_write), so the error goes to *invalid
 * (false when the action is valid).  Everything else is refused at once.
 */
static bool
parse_write_action(StTxAction *a, Jsonb *el, int pos, bool typed, TableSet *ts, StErr *invalid)
{
	static const char *const ops[] = {"ConditionCheck", "Put", "Delete", "Update"};
	int			which = 0;
	Jsonb	   *body = element_operation(el, ops, 4, &which,
										 "TransactItems can only contain one of Check, Put, Update or Delete");
	char	   *rv;
	bool		is_invalid = false;

	a->op = (StTxOp) which;
	a->table = table_of(ts, api_jreq_member_text(body, "TableName", "TableName"));
	if (a->op == ST_TX_PUT)
	{
		a->item = required_map(body, "Item", psprintf("transactItems.%d.member.put.item", pos), typed);
		if (!ops_validate_item(a->table, a->item, invalid))
			is_invalid = true;
		a->keymap = key_of_item(a->table, a->item);
	}
	else
		a->keymap = required_map(body, "Key", psprintf("transactItems.%d.member.key", pos), typed);
	if (!is_invalid && !ops_key_valid(a->table, a->keymap, invalid))
		is_invalid = true;
	if (!is_invalid)
		ops_key_from_map(a->table, a->keymap, &a->key);

	ops_expr_init(&a->req, api_jreq_member(body, "ExpressionAttributeNames"),
					  api_jreq_member(body, "ExpressionAttributeValues"), typed);
	if (a->op == ST_TX_UPDATE)
	{
		char	   *upd = api_jreq_member_text(body, "UpdateExpression", "UpdateExpression");

		if (upd == NULL)
			st_validation_null("transactItems.%d.member.update.updateExpression", pos);
		ops_expr_add_update(&a->req, upd);
		ops_expr_write_update(&a->req, a->table);
	}
	ops_expr_add_condition(&a->req, api_jreq_member_text(body, "ConditionExpression", "ConditionExpression"),
						   "ConditionExpression");
	if (a->op == ST_TX_CONDITION_CHECK && a->req.condition == NULL)
		st_validation_null("transactItems.%d.member.conditionCheck.conditionExpression", pos);
	ops_expr_finish(&a->req);
	ops_expr_check_key_paths(&a->req, a->table);

	rv = api_jreq_member_text(body, "ReturnValuesOnConditionCheckFailure", "ReturnValuesOnConditionCheckFailure");
	if (rv && strcmp(rv, "ALL_OLD") != 0 && strcmp(rv, "NONE") != 0)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%s' at 'transactItems.%d.member.returnValuesOnConditionCheckFailure' failed to satisfy constraint: Member must satisfy enum value set: [ALL_OLD, NONE]",
				 rv, pos);
	a->return_old_on_failure = rv && strcmp(rv, "ALL_OLD") == 0;
	return is_invalid;
}

/*
 * DynamoDB: "The aggregate size of the items in the transaction cannot
 * exceed 4 MB" - the items a Put writes and the keys the other actions
 * name, refused before any item is read.
 */
static void
check_transaction_size(StTxAction *actions, int n)
{
	int64		total = 0;

	for (int i = 0; i < n; i++)
		total += av_item_size(actions[i].op == ST_TX_PUT ? actions[i].item : actions[i].keymap);
	if (total > ST_TRANSACT_MAX_BYTES)
		st_error(ST_ERR_VALIDATION, "Transaction request cannot be larger than 4 MB");
}

/*
 * Cancel a transaction whose actions failed validation: TransactionCanceled
 * with reason ValidationError (and its message) on each of them, None on
 * the others, as DynamoDB answers a key of the wrong type or an invalid item
 * in one action (its TransactionCanceledException documents "a user error,
 * such as an invalid data format" among the reasons).
 */
static void
cancel_invalid(const StErr *errs, const bool *invalid, int n)
{
	StTxReason *reasons = palloc0(sizeof(StTxReason) * n);

	for (int i = 0; i < n; i++)
	{
		reasons[i].code = invalid[i] ? "ValidationError" : "None";
		reasons[i].message = invalid[i] ? pstrdup(errs[i].message) : NULL;
	}
	ops_transact_cancel(reasons, n, true);
}

StTxAction *
api_transact_parse_write(Jsonb *items, bool typed, int *n)
{
	TableSet   *ts = palloc0(sizeof(TableSet));
	StTxAction *actions;
	StErr	   *errs;
	bool	   *invalid;
	bool		any_invalid = false;

	check_item_count(items);
	*n = api_jreq_array_length(items);
	actions = palloc0(sizeof(StTxAction) * *n);
	errs = palloc0(sizeof(StErr) * *n);
	invalid = palloc0(sizeof(bool) * *n);
	for (int i = 0; i < *n; i++)
		any_invalid |= invalid[i] =
			parse_write_action(&actions[i], api_jreq_array_element(items, i), i + 1, typed, ts, &errs[i]);
	check_transaction_size(actions, *n);
	if (any_invalid)
		cancel_invalid(errs, invalid, *n);
	ops_transact_prepare(actions, *n);
	return actions;
}

/*
 * ClientRequestToken: true when this token was already used, within ten
 * minutes, by the same request of the same role (the caller then applies
 * nothing again); IdempotentParameterMismatchException when by a different
 * one.  Otherwise the token is recorded in the caller's transaction, so that
 * a rollback forgets it.  A request whose token is in use by a transaction
 * still running waits for that transaction's outcome.
 *
 * Tokens are kept per role (the current user): one role's token never
 * answers, blocks or reveals another's.  stdesign.transact_tokens is not
 * granted to anyone: it is read and written here as its owner, as
 * Postgres's referential-integrity triggers act as the table owner, so that
 * a role needs no privilege on it and cannot read, delete or plant tokens
 * with plain SQL.  The statements name every function and operator with its
 * schema (they run as the owner, under the caller's search_path).
 *
 * Expired tokens are cleared on the way, but only those no other
 * transaction is clearing (SKIP LOCKED), a bounded number at a time:
 * requests under different tokens must never wait for each other.  A token
 * that expired and was not cleared yet is simply taken over.
 */
/* The owner of stdesign.transact_tokens, who alone reads and writes it. */
static Oid
token_table_owner(void)
{
	Oid			relid = get_relname_relid("transact_tokens", get_namespace_oid("stdesign", false));

	if (!OidIsValid(relid))
		st_internal_error("table stdesign.transact_tokens is missing");
	return catalog_relation_owner(relid);
}

bool
api_transact_token_seen(const char *token, Jsonb *request)
{
	Oid			types[3] = {OIDOID, TEXTOID, JSONBOID};
	Datum		values[3];
	bool		old_catalog = catalog_sql_is_0_1_0();
	bool		seen = false;
	bool		same = false;
	Oid			save_userid;
	int			save_sec_context;

	if (strlen(token) < 1 || strlen(token) > ST_TOKEN_MAX)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%s' at 'clientRequestToken' failed to satisfy constraint: Member must have length %s",
				 token, strlen(token) < 1 ? "greater than or equal to 1" : "less than or equal to 36");
	values[0] = ObjectIdGetDatum(GetUserId());
	values[1] = CStringGetTextDatum(token);
	values[2] = JsonbPGetDatum(request);

	/* an error on the way restores the user with the (sub)transaction's abort */
	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(token_table_owner(), save_sec_context |
						   SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	SPI_connect();
	if (SPI_execute("DELETE FROM stdesign.transact_tokens WHERE ctid OPERATOR(pg_catalog.=) ANY (ARRAY("
					"SELECT ctid FROM stdesign.transact_tokens"
					" WHERE created_at OPERATOR(pg_catalog.<) " TOKEN_EXPIRY_SQL
					" LIMIT 100 FOR UPDATE SKIP LOCKED))",
					false, 0) != SPI_OK_DELETE)
		st_internal_error("could not expire transaction tokens");
	/* a 0.1.0 catalog (before ALTER EXTENSION UPDATE) keeps tokens without a role */
	if (SPI_execute_with_args(old_catalog
							  ? "INSERT INTO stdesign.transact_tokens AS t (token, request_hash)"
							  " VALUES ($2, " TOKEN_HASH_SQL ")"
							  " ON CONFLICT (token) DO UPDATE"
							  " SET request_hash = excluded.request_hash, created_at = pg_catalog.now()"
							  " WHERE t.created_at OPERATOR(pg_catalog.<) " TOKEN_EXPIRY_SQL
							  : "INSERT INTO stdesign.transact_tokens AS t (role_id, token, request_hash)"
							  " VALUES ($1, $2, " TOKEN_HASH_SQL ")"
							  " ON CONFLICT (role_id, token) DO UPDATE"
							  " SET request_hash = excluded.request_hash, created_at = pg_catalog.now()"
							  " WHERE t.created_at OPERATOR(pg_catalog.<) " TOKEN_EXPIRY_SQL,
							  3, types, values, NULL, false, 0) != SPI_OK_INSERT)
		st_internal_error("could not record a transaction token");
	if (SPI_processed == 0)
	{
		bool		isnull;

		if (SPI_execute_with_args(old_catalog
								  ? "SELECT request_hash OPERATOR(pg_catalog.=) " TOKEN_HASH_SQL
								  " FROM stdesign.transact_tokens WHERE token OPERATOR(pg_catalog.=) $2"
								  : "SELECT request_hash OPERATOR(pg_catalog.=) " TOKEN_HASH_SQL
								  " FROM stdesign.transact_tokens WHERE token OPERATOR(pg_catalog.=) $2"
								  " AND role_id OPERATOR(pg_catalog.=) $1",
								  3, types, values, NULL, false, 0) != SPI_OK_SELECT || SPI_processed != 1)
			st_internal_error("could not read a transaction token");
		seen = true;
		same = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_finish();
	SetUserIdAndSecContext(save_userid, save_sec_context);
	if (seen && !same)
		st_error(ST_ERR_IDEMPOTENT_MISMATCH,
				 "The request uses the same client token as a previous, but non-identical request.");
	return seen;
}

/* st_transact(transact_items, client_request_token, plain) */
PG_FUNCTION_INFO_V1(st_transact);
Datum
st_transact(PG_FUNCTION_ARGS)
{
	Jsonb	   *items = api_arg_jsonb(fcinfo, 0);
	char	   *token = api_arg_text(fcinfo, 1);
	bool		typed = !api_arg_bool(fcinfo, 2, false);
	StTxAction *actions;
	int			n;

	if (items == NULL)
		st_validation_null("transactItems");
	actions = api_transact_parse_write(items, typed, &n);
	if (token && api_transact_token_seen(token, items))
		PG_RETURN_JSONB_P(DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}"))));
	ops_transact_write(actions, n, typed, false);
	PG_RETURN_JSONB_P(DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}"))));
}

/* ---------- TransactGetItems ---------- */

typedef struct TxGet
{
	StTable    *table;
	Av		   *keymap;
	StExprRequest req;
} TxGet;

Jsonb *
api_transact_get_responses(Jsonb *items, bool typed)
{
	static const char *const ops[] = {"Get"};
	TableSet   *ts = palloc0(sizeof(TableSet));
	int			n;
	TxGet	   *gets;
	StTxAction *dup;
	StringInfoData out;

	check_item_count(items);
	n = api_jreq_array_length(items);
	gets = palloc0(sizeof(TxGet) * n);
	dup = palloc0(sizeof(StTxAction) * n);
	for (int i = 0; i < n; i++)
	{
		int			which;
		Jsonb	   *body = element_operation(api_jreq_array_element(items, i), ops, 1, &which,
											 "TransactItems can only contain Get");
		StKey		key;

		gets[i].table = table_of(ts, api_jreq_member_text(body, "TableName", "TableName"));
		gets[i].keymap = required_map(body, "Key", psprintf("transactItems.%d.member.get.key", i + 1), typed);
		ops_key_from_map(gets[i].table, gets[i].keymap, &key);
		ops_expr_init(&gets[i].req, api_jreq_member(body, "ExpressionAttributeNames"), NULL, typed);
		ops_expr_add_projection(&gets[i].req, api_jreq_member_text(body, "ProjectionExpression", "ProjectionExpression"));
		ops_expr_finish(&gets[i].req);
		ops_expr_check_key_paths(&gets[i].req, gets[i].table);
		dup[i].table = gets[i].table;
		dup[i].keymap = gets[i].keymap;
	}
	ops_transact_prepare(dup, n);

	/* every Get reads the statement's one snapshot */
	initStringInfo(&out);
	appendStringInfoString(&out, "{\"Responses\": [");
	for (int i = 0; i < n; i++)
	{
		Jsonb	   *stored = ops_get(gets[i].table, gets[i].keymap);

		appendStringInfoString(&out, i ? ", " : "");
		if (stored == NULL)
			appendStringInfoString(&out, "{}");
		else
		{
			Av		   *item = ops_expr_project_item(&gets[i].req, av_item_from_stored(stored));
			Jsonb	   *jb = av_item_to_jsonb(item, typed);

			appendStringInfo(&out, "{\"Item\": %s}", api_jreq_text(jb));
		}
	}
	appendStringInfoString(&out, "]}");
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data)));
}

/* st_transact_get(transact_items, plain) */
PG_FUNCTION_INFO_V1(st_transact_get);
Datum
st_transact_get(PG_FUNCTION_ARGS)
{
	Jsonb	   *items = api_arg_jsonb(fcinfo, 0);

	if (items == NULL)
		st_validation_null("transactItems");
	PG_RETURN_JSONB_P(api_transact_get_responses(items, !api_arg_bool(fcinfo, 1, false)));
}
