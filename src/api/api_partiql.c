/*-------------------------------------------------------------------------
 *
 * api_partiql.c
 *		st_api's ExecuteStatement, BatchExecuteStatement and
 *		ExecuteTransaction, and the SQL function st_partiql.
 *
 * The statements themselves are src/partiql's: parsed (cached), planned
 * onto GetItem / Query / Scan / the writes, and run by the operations
 * layer.  This file reads DynamoDB's requests and writes its responses
 * (shapes from DynamoDB's API reference and its service model):
 *
 *	ExecuteStatement		{Items, NextToken?, LastEvaluatedKey?, ConsumedCapacity?}
 *	BatchExecuteStatement	{Responses: [{TableName?, Item?, Error?: {Code, Message}}],
 *							 ConsumedCapacity?}
 *	ExecuteTransaction		{Responses: [{Item?}] (reads), ConsumedCapacity?}
 *
 * BatchExecuteStatement runs each statement on its own (a subtransaction
 * each, so that one statement's failure leaves the others' writes): a
 * failed statement becomes its Error entry with DynamoDB's batch codes
 * (ConditionalCheckFailed, DuplicateItem, ValidationError,
 * ResourceNotFound, ...).  A batch is all reads or all writes, and a read
 * must name one whole key, as in DynamoDB.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/tuplestore.h"

#include "api.h"
#include "item/av_jsonb.h"
#include "json_req.h"
#include "partiql/partiql.h"
#include "sql_args.h"
#include "transact_request.h"

/* The Parameters of a statement (a JSON array of AttributeValues) as an AV_L, or NULL. */
static Av  *
statement_params(Jsonb *params, bool typed)
{
	Av		   *list;
	int			n;

	if (params == NULL)
		return NULL;
	if (!api_jreq_is_array(params))
		st_error(ST_ERR_SERIALIZATION, "Parameters must be a JSON array");
	n = api_jreq_array_length(params);
	list = av_new(AV_L);
	for (int i = 0; i < n; i++)
		av_append(list, av_from_jsonb_value(&api_jreq_array_element(params, i)->root, typed));
	return list;
}

static bool
return_old_on_failure(Jsonb *request)
{
	static const char *const on_failure_set[] = {"ALL_OLD", "NONE"};
	const char *v = api_enum(request, "ReturnValuesOnConditionCheckFailure",
							 "returnValuesOnConditionCheckFailure", on_failure_set, 2);

	return v && strcmp(v, "ALL_OLD") == 0;
}

/* ---------- ExecuteStatement ---------- */

/* Items into the response's "Items" array; stored items go out as they are. */
static void
out_emit(void *arg, Jsonb *stored, const Av *item)
{
	ApiOut	   *out = (ApiOut *) arg;

	if (stored)
		api_out_stored_item_elem(out, (Jsonb *) PG_DETOAST_DATUM_COPY(PointerGetDatum(stored)));
	else if (item)
		api_out_item(out, item);
}

Jsonb *
api_execute_statement(Jsonb *request)
{
	StCapacity *cap = ops_capacity_new(api_capacity_mode(request));
	PartiqlCall call;
	ApiOut		out;

	memset(&call, 0, sizeof(call));
	(void) api_required(request, "Statement", "statement");
	call.statement = api_jreq_member_text(request, "Statement", "Statement");
	call.params = statement_params(api_jreq_member(request, "Parameters"), true);
	call.mode = PARTIQL_MODE_STATEMENT;
	call.consistent = api_jreq_member_bool(request, "ConsistentRead", "ConsistentRead", false);
	call.limit = api_jreq_member_int(request, "Limit", "Limit", -1);
	if (api_jreq_member(request, "Limit") && call.limit < 1)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%lld' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
				 (long long) call.limit);
	call.next_token = api_jreq_member_text(request, "NextToken", "NextToken");
	call.cap = ops_capacity_wanted(cap) ? cap : NULL;
	call.return_old_on_failure = return_old_on_failure(request);
	call.emit = out_emit;
	call.arg = &out;

	api_out_begin(&out);
	api_out_key(&out, "Items");
	api_out_begin_array(&out);
	partiql_execute(&call);
	api_out_end_array(&out);
	if (call.next_token_out)
	{
		api_out_key(&out, "NextToken");
		api_out_string(&out, call.next_token_out);
		api_out_key(&out, "LastEvaluatedKey");
		api_out_item(&out, call.last_key);
	}
	api_out_capacity(&out, call.cap, false);
	return api_out_end(&out);
}

/* ---------- BatchExecuteStatement ---------- */

typedef struct BatchEntry
{
	const char *table;
	bool		has_item;
	Av		   *item;
	const char *code;			/* Error.Code, or NULL */
	char	   *message;
	Av		   *error_item;		/* Error.Item: ReturnValuesOnConditionCheckFailure */
} BatchEntry;

static void
batch_emit(void *arg, Jsonb *stored, const Av *item)
{
	BatchEntry *e = (BatchEntry *) arg;

	e->has_item = true;
	e->item = stored ? av_item_from_stored(stored) : av_copy(item);
}

/* DynamoDB's batch error code of one of stdesign's exceptions, or NULL (not a statement's error). */
static const char *
batch_code(int sqlerrcode)
{
	static const struct
	{
		StErrCode	err;
		const char *code;
	}			codes[] = {
		{ST_ERR_CONDITIONAL_CHECK_FAILED, "ConditionalCheckFailed"},
		{ST_ERR_DUPLICATE_ITEM, "DuplicateItem"},
		{ST_ERR_VALIDATION, "ValidationError"},
		{ST_ERR_SERIALIZATION, "ValidationError"},
		{ST_ERR_RESOURCE_NOT_FOUND, "ResourceNotFound"},
		{ST_ERR_TRANSACTION_CONFLICT, "TransactionConflict"},
		{ST_ERR_ITEM_COLLECTION_SIZE, "ItemCollectionSizeLimitExceeded"},
		{ST_ERR_INTERNAL, "InternalServerError"},
	};
	const char *state = unpack_sql_state(sqlerrcode);

	for (int i = 0; i < (int) lengthof(codes); i++)
		if (strcmp(state, st_exception_sqlstate(codes[i].err)) == 0)
			return codes[i].code;
	return NULL;
}

/* One statement of a batch, in a subtransaction of its own. */
static void
batch_run(PartiqlCall *call, BatchEntry *e)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		partiql_execute(call);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		const char *sep;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		e->code = batch_code(edata->sqlerrcode);
		if (e->code == NULL)
			ReThrowError(edata);
		/* "ConditionalCheckFailedException: The conditional request failed" */
		sep = strstr(edata->message, ": ");
		e->message = pstrdup(sep ? sep + 2 : edata->message);
		e->has_item = false;
		/* a failed condition's DETAIL is {"Item": ...} when the statement asked for it */
		if (edata->detail && strcmp(e->code, "ConditionalCheckFailed") == 0)
		{
			Jsonb	   *detail = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(edata->detail)));
			Jsonb	   *item = api_jreq_member(detail, "Item");

			if (item)
				e->error_item = av_map_from_jsonb(item, true, "Item");
		}
	}
	PG_END_TRY();
}

/*
 * Two statements of a batch on one item: BatchExecuteStatement runs on
 * BatchGetItem and BatchWriteItem (developer guide, "Running batch
 * operations with PartiQL for DynamoDB"), which refuse the whole request
 * so ("You try to perform multiple operations on the same item in the
 * same BatchWriteItem request", API Reference, BatchWriteItem).
 */
static void
check_batch_duplicates(Jsonb *statements, int n)
{
	StringInfoData *keys = palloc0(sizeof(StringInfoData) * Max(1, n));
	bool	   *has_key = palloc0(sizeof(bool) * Max(1, n));

	for (int i = 0; i < n; i++)
	{
		Jsonb	   *el = api_jreq_array_element(statements, i);

		initStringInfo(&keys[i]);
		has_key[i] = partiql_statement_key(api_jreq_member_text(el, "Statement", "Statement"),
										   statement_params(api_jreq_member(el, "Parameters"), true),
										   &keys[i]);
		for (int j = 0; j < i && has_key[i]; j++)
		{
			if (has_key[j] && keys[j].len == keys[i].len &&
				memcmp(keys[j].data, keys[i].data, keys[i].len) == 0)
				st_error(ST_ERR_VALIDATION, "Provided list of item keys contains duplicates");
		}
	}
}

Jsonb *
api_batch_execute_statement(Jsonb *request)
{
	Jsonb	   *statements = api_required(request, "Statements", "statements");
	StCapacity *cap = ops_capacity_new(api_capacity_mode(request));
	int			n = api_jreq_array_length(statements);
	BatchEntry *entries = palloc0(sizeof(BatchEntry) * Max(1, n));
	int			nreads = 0;
	int			nwrites = 0;
	ApiOut		out;

	if (n < 1 || n > PARTIQL_MAX_BATCH)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value at 'statements' failed to satisfy constraint: Member must have length %s",
				 n < 1 ? "greater than or equal to 1" : "less than or equal to 25");
	/* reads and writes may not be mixed (a statement that does not parse counts as neither) */
	for (int i = 0; i < n; i++)
	{
		char	   *text = api_jreq_member_text(api_jreq_array_element(statements, i), "Statement",
												"Statement");
		int			read;

		if (text == NULL)
			st_validation_null("statements.%d.member.statement", i + 1);
		read = partiql_is_read(text);
		nreads += read == 1;
		nwrites += read == 0;
	}
	if (nreads > 0 && nwrites > 0)
		st_error(ST_ERR_VALIDATION, "Read and write requests together in the same batch is not supported.");
	check_batch_duplicates(statements, n);

	for (int i = 0; i < n; i++)
	{
		Jsonb	   *el = api_jreq_array_element(statements, i);
		PartiqlCall call;

		memset(&call, 0, sizeof(call));
		call.statement = api_jreq_member_text(el, "Statement", "Statement");
		call.params = statement_params(api_jreq_member(el, "Parameters"), true);
		call.mode = PARTIQL_MODE_BATCH;
		call.consistent = api_jreq_member_bool(el, "ConsistentRead", "ConsistentRead", false);
		call.limit = -1;
		call.cap = ops_capacity_wanted(cap) ? cap : NULL;
		call.return_old_on_failure = return_old_on_failure(el);
		call.emit = batch_emit;
		call.arg = &entries[i];
		batch_run(&call, &entries[i]);
		/* the table is named when the statement got as far as it (DynamoDB's entries) */
		if (call.table_name && (entries[i].code == NULL ||
								(strcmp(entries[i].code, "ValidationError") != 0 &&
								 strcmp(entries[i].code, "ResourceNotFound") != 0)))
			entries[i].table = pstrdup(call.table_name);
	}

	api_out_begin(&out);
	api_out_key(&out, "Responses");
	api_out_begin_array(&out);
	for (int i = 0; i < n; i++)
	{
		BatchEntry *e = &entries[i];

		api_out_begin_object(&out);
		if (e->code)
		{
			api_out_key(&out, "Error");
			api_out_begin_object(&out);
			api_out_key(&out, "Code");
			api_out_string(&out, e->code);
			api_out_key(&out, "Message");
			api_out_string(&out, e->message);
			if (e->error_item)
			{
				api_out_key(&out, "Item");
				api_out_item(&out, e->error_item);
			}
			api_out_end_object(&out);
		}
		if (e->table)
		{
			api_out_key(&out, "TableName");
			api_out_string(&out, e->table);
		}
		if (e->has_item && e->item)
		{
			api_out_key(&out, "Item");
			api_out_item(&out, e->item);
		}
		api_out_end_object(&out);
	}
	api_out_end_array(&out);
	api_out_capacity(&out, ops_capacity_wanted(cap) ? cap : NULL, true);
	return api_out_end(&out);
}

/* ---------- ExecuteTransaction ---------- */

typedef struct TxOut
{
	ApiOut	   *out;
	int			count;
} TxOut;

static void
tx_emit(void *arg, Jsonb *stored, const Av *item)
{
	TxOut	   *t = (TxOut *) arg;

	api_out_begin_object(t->out);
	if (item || stored)
	{
		api_out_key(t->out, "Item");
		api_out_item(t->out, item ? item : av_item_from_stored(stored));
	}
	api_out_end_object(t->out);
	t->count++;
}

Jsonb *
api_execute_transaction(Jsonb *request)
{
	Jsonb	   *statements = api_required(request, "TransactStatements", "transactStatements");
	char	   *token = api_jreq_member_text(request, "ClientRequestToken", "ClientRequestToken");
	StCapacity *cap = ops_capacity_new(api_capacity_mode(request));
	int			n = api_jreq_array_length(statements);
	const char **texts = palloc(sizeof(char *) * Max(1, n));
	const Av  **params = palloc(sizeof(Av *) * Max(1, n));
	ApiOut		out;
	TxOut		tx;

	if (n < 1 || n > PARTIQL_MAX_TRANSACTION)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value at 'transactStatements' failed to satisfy constraint: Member must have length %s",
				 n < 1 ? "greater than or equal to 1" : "less than or equal to 100");
	for (int i = 0; i < n; i++)
	{
		Jsonb	   *el = api_jreq_array_element(statements, i);

		texts[i] = api_jreq_member_text(el, "Statement", "Statement");
		if (texts[i] == NULL)
			st_validation_null("transactStatements.%d.member.statement", i + 1);
		params[i] = statement_params(api_jreq_member(el, "Parameters"), true);
	}

	api_out_begin(&out);
	api_out_key(&out, "Responses");
	api_out_begin_array(&out);
	tx.out = &out;
	tx.count = 0;
	/* the token covers TransactStatements, as TransactWriteItems' covers TransactItems */
	if (token == NULL || !api_transact_token_seen(token, statements))
		partiql_transact(texts, params, n, ops_capacity_wanted(cap) ? cap : NULL, true,
						 tx_emit, &tx);
	api_out_end_array(&out);
	api_out_capacity(&out, ops_capacity_wanted(cap) ? cap : NULL, true);
	return api_out_end(&out);
}

/* ---------- st_partiql ---------- */

typedef struct SqlOut
{
	Tuplestorestate *store;
	TupleDesc	desc;
	bool		typed;
} SqlOut;

static void
sql_emit(void *arg, Jsonb *stored, const Av *item)
{
	SqlOut	   *out = (SqlOut *) arg;
	Datum		value;
	bool		isnull = false;

	if (stored)
		value = JsonbPGetDatum(out->typed ? stored : av_stored_to_plain(stored));
	else
		value = JsonbPGetDatum(av_item_to_jsonb(item, out->typed));
	tuplestore_putvalues(out->store, out->desc, &value, &isnull);
}

/*
 * st_partiql(statement, parameters, typed): the items a statement returns,
 * every page of them (NextToken followed to the end).  parameters is a
 * JSON array: plain values, or typed AttributeValues with typed => true.
 */
PG_FUNCTION_INFO_V1(st_partiql);
Datum
st_partiql(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *statement = api_arg_required_text(fcinfo, 0, "statement");
	bool		typed = api_arg_bool(fcinfo, 2, false);
	Jsonb	   *params = api_arg_jsonb(fcinfo, 1);
	PartiqlCall call;
	SqlOut		out;

	if (strlen(statement) < 1)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '' at 'statement' failed to satisfy constraint: Member must have length greater than or equal to 1");
	memset(&call, 0, sizeof(call));
	call.statement = statement;
	call.params = statement_params(params, typed);
	call.mode = PARTIQL_MODE_STATEMENT;
	call.limit = -1;
	call.emit = sql_emit;
	call.arg = &out;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	out.store = rsinfo->setResult;
	out.desc = rsinfo->setDesc;
	out.typed = typed;
	do
	{
		partiql_execute(&call);
		call.next_token = call.next_token_out;
		CHECK_FOR_INTERRUPTS();
	} while (call.next_token);
	return (Datum) 0;
}
