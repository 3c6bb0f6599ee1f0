/*-------------------------------------------------------------------------
 *
 * stream_mappings.c
 *		Event source mappings of DynamoDB Streams to SQL functions: a role
 *		registers a function of one jsonb argument for a table's stream,
 *		and the stream worker (ttl/stream_worker.c) calls it with each
 *		batch of records, as that role, with the mapping's checkpoint
 *		moved in the same transaction.
 *
 * Lambda's event source mappings are the model (CreateEventSourceMapping;
 * the parameters for DynamoDB Streams are listed in "Lambda parameters for
 * Amazon DynamoDB event source mappings" of the Lambda developer guide):
 * BatchSize (default 100), StartingPosition (TRIM_HORIZON or LATEST),
 * MaximumRetryAttempts (-1, the default, retries until the batch succeeds;
 * at most 10000), an on-failure destination for a batch out of retries,
 * and a State, Enabled or Disabled.  The function gets the batch as a
 * Lambda function gets its event: {"Records": [...]}, each record as
 * GetRecords gives it.
 *
 * What Lambda cannot give, this does: the function's writes and the
 * checkpoint commit together, so that each record is processed exactly
 * once (a failed batch is rolled back whole, checkpoint included, and
 * tried again).  A mapping is a row of stdesign.stream_mappings, its
 * role's: only that role sees, changes or drops it; the worker runs it as
 * that role, checking at every batch that the role still exists under its
 * name, may EXECUTE the function and may read the stream (SELECT on the
 * table, no row security), since grants can be revoked.  A mapping that
 * cannot run for such a reason goes Disabled, the reason in its
 * StateTransitionReason; one whose function fails is retried, and past
 * its retries the batch goes to stdesign.stream_dead_letters (readable by
 * the role through st_stream_dead_letters) and the checkpoint moves past
 * it, in one transaction.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
#include "utils/uuid.h"

#include "catalog/st_catalog.h"
#include "common/st_common.h"
#include "storage/stream_capture.h"
#include "stream_consumers.h"
#include "stream_mappings.h"
#include "stream_ops.h"
#include "stream_read.h"

/*
 * A role's mappings at most: the worker serves every mapping of the
 * database in turn, so that one role's thousands would slow the others'.
 */
#define MAPPINGS_PER_ROLE_MAX 100

/* An error kept in the catalog (last_error, dead letters): at most this many bytes. */
#define ERROR_TEXT_MAX 2048

/* The dead letters' place, as a DestinationConfig's OnFailure names it. */
#define DEAD_LETTERS "stdesign.stream_dead_letters"

/*
 * The mapping's function (alias m of stdesign.stream_mappings), or NULL.
 * A mapping keeps its function's OID, its qualified name and its owner, not
 * a regprocedure: pg_upgrade refuses a table with a regprocedure column
 * (functions' OIDs are not kept across it, nor across pg_dump), while roles'
 * OIDs are kept by pg_upgrade and regrole is dumped by name.  The function
 * is the stored OID while that is a function of the stored owner or of the
 * stored name (renamed, or given to another owner: the owner's doing);
 * else, after an upgrade or a restore gave it another OID, the function of
 * the stored name and owner.  A function of the same name created again by
 * another role is never called as the mapping's role, and a stale OID
 * (after a restore into another cluster) is taken only for a function of
 * the same name or owner.  Enabling a mapping and each batch run store
 * the function's OID, name and owner again.
 */
#define MAPPING_FUNCTION \
	"COALESCE((SELECT p.oid FROM pg_catalog.pg_proc p WHERE p.oid OPERATOR(pg_catalog.=) m.function" \
	"          AND (p.proowner OPERATOR(pg_catalog.=) m.function_owner::pg_catalog.oid" \
	"               OR p.oid OPERATOR(pg_catalog.=) pg_catalog.to_regprocedure(m.function_name)::pg_catalog.oid))," \
	"         (SELECT p.oid FROM pg_catalog.pg_proc p" \
	"          WHERE p.oid OPERATOR(pg_catalog.=) pg_catalog.to_regprocedure(m.function_name)::pg_catalog.oid" \
	"          AND p.proowner OPERATOR(pg_catalog.=) m.function_owner::pg_catalog.oid))"

/*
 * The mappings (alias m) of the role whose OID is the parameter p: its
 * OID, and the name it had when it made them (role_name), as stream
 * consumers and backups check their owner: a dropped role's OID given to
 * a new role must not hand the old role's mappings and dead letters (the
 * records themselves) to the new one.  The worker refuses to run such a
 * mapping already (ops_stream_mapping_problem).
 */
#define MAPPING_OF_ROLE(p) \
	" m.role OPERATOR(pg_catalog.=) " p "::pg_catalog.regrole" \
	" AND m.role_name OPERATOR(pg_catalog.=) (SELECT r.rolname FROM pg_catalog.pg_roles r" \
	"  WHERE r.oid OPERATOR(pg_catalog.=) " p ")"

/* ---------- checks ---------- */

static void
check_batch_size(int batch_size)
{
	if (batch_size < 1 || batch_size > OPS_STREAM_RECORDS_MAX)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%d' at 'batchSize' failed to satisfy constraint: Member must have value between 1 and %d",
				 batch_size, OPS_STREAM_RECORDS_MAX);
}

static void
check_retries(int max_retries)
{
	if (max_retries < -1 || max_retries > OPS_MAPPING_RETRIES_MAX)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%d' at 'maximumRetryAttempts' failed to satisfy constraint: Member must have value between -1 and %d",
				 max_retries, OPS_MAPPING_RETRIES_MAX);
}

/*
 * Why fn cannot be a mapping's function, or NULL: it must exist, be a
 * function (not a procedure, an aggregate or a window function), take one
 * argument of type jsonb and return no set.  name: the function's name as
 * the mapping stored it, for the message when it is no longer found, or
 * NULL.
 */
static char *
function_problem(Oid fn, const char *name)
{
	HeapTuple	tup;
	Form_pg_proc proc;
	char	   *problem = NULL;

	if (!OidIsValid(fn) && name != NULL)
		return psprintf("the function %s of the stream mapping no longer exists (dropped, or made again under its name by another role)",
						name);
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	if (!HeapTupleIsValid(tup))
		return psprintf("function %u does not exist", fn);
	proc = (Form_pg_proc) GETSTRUCT(tup);
	if (proc->prokind != PROKIND_FUNCTION || proc->proretset || proc->pronargs != 1 ||
		proc->proargtypes.values[0] != JSONBOID)
		problem = psprintf("the function of a stream mapping takes one argument of type jsonb (the batch) and returns no set: %s does not",
						   format_procedure(fn));
	ReleaseSysCache(tup);
	return problem;
}

/* The owner of fn, which exists (checked) */
static Oid
function_owner(Oid fn)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		st_internal_error("cache lookup failed for function %u", fn);
	owner = ((Form_pg_proc) GETSTRUCT(tup))->proowner;
	ReleaseSysCache(tup);
	return owner;
}

/* May the current user EXECUTE fn?  Raises otherwise. */
static void
check_execute(Oid fn)
{
	AclResult	acl = st_proc_aclcheck(fn, GetUserId(), ACL_EXECUTE);

	if (acl != ACLCHECK_OK)
		aclcheck_error(acl, OBJECT_FUNCTION, get_func_name(fn));
}

/* Is the stream still the table's (not left by a deleted table, not removed)? */
static bool
stream_live(int64 stream_id)
{
	CatalogAsOwner save;
	Oid			types[1] = {INT8OID};
	Datum		args[1];
	bool		live;

	args[0] = Int64GetDatum(stream_id);
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT 1 FROM stdesign.streams WHERE stream_id OPERATOR(pg_catalog.=) $1"
							  " AND table_deleted_at IS NULL",
							  1, types, args, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.streams");
	live = SPI_processed > 0;
	SPI_finish();
	catalog_as_owner_end(&save);
	return live;
}

/*
 * May the current user run a mapping of fn (fn_name: its stored name, or
 * NULL) on the table's stream stream_id?  Raises otherwise.
 */
static void
check_rights(Oid fn, const char *fn_name, const char *table_name, int64 stream_id)
{
	StTable    *t;
	char	   *problem = function_problem(fn, fn_name);

	if (problem)
		st_error(ST_ERR_VALIDATION, "%s", problem);
	check_execute(fn);
	t = catalog_lookup(table_name, true);
	if (t == NULL)
		st_error(ST_ERR_RESOURCE_NOT_FOUND, "Requested resource not found: Table: %s not found", table_name);
	ops_stream_check_read(t);
	if (!stream_live(stream_id))
		st_error(ST_ERR_RESOURCE_NOT_FOUND,
				 "Requested resource not found: the stream of table %s the mapping reads is gone (the table was deleted, or the stream disabled and aged out); drop the mapping and create it again",
				 table_name);
}

/* text of at most ERROR_TEXT_MAX bytes, cut at a character's end */
static Datum
clipped_text(const char *s)
{
	int			len = strlen(s);

	if (len > ERROR_TEXT_MAX)
		len = pg_mbcliplen(s, len, ERROR_TEXT_MAX);
	return PointerGetDatum(cstring_to_text_with_len(s, len));
}

/* ---------- registration ---------- */

/* The mapping's answer, as CreateEventSourceMapping gives it; NULL when the role has none of uuid. */
static Jsonb *
mapping_answer(const char *uuid, Oid role)
{
	CatalogAsOwner save;
	Oid			types[2] = {TEXTOID, OIDOID};
	Datum		args[2];
	Jsonb	   *answer = NULL;
	MemoryContext caller = CurrentMemoryContext;
	char	   *table_name = NULL;
	char	   *label = NULL;
	Oid			atypes[3] = {TEXTOID, OIDOID, TEXTOID};
	Datum		aargs[3];
	char		anulls[3] = {' ', ' ', ' '};

	args[0] = CStringGetTextDatum(uuid);
	args[1] = ObjectIdGetDatum(role);
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT m.table_name, s.label FROM stdesign.stream_mappings m"
							  " LEFT JOIN stdesign.streams s ON s.stream_id OPERATOR(pg_catalog.=) m.stream_id"
							  " WHERE m.uuid OPERATOR(pg_catalog.=) $1::pg_catalog.uuid"
							  " AND" MAPPING_OF_ROLE("$2"),
							  2, types, args, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.stream_mappings");
	if (SPI_processed == 1)
	{
		table_name = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		label = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
		aargs[0] = args[0];
		aargs[1] = args[1];
		if (label)
			aargs[2] = CStringGetTextDatum(ops_stream_arn(table_name, label));
		else
			anulls[2] = 'n';
		if (SPI_execute_with_args("SELECT pg_catalog.jsonb_build_object("
								  " 'UUID', uuid, 'EventSourceArn', $3, 'TableName', table_name,"
								  " 'FunctionName', COALESCE(" MAPPING_FUNCTION "::pg_catalog.regprocedure::pg_catalog.text, function_name),"
								  " 'BatchSize', batch_size,"
								  " 'StartingPosition', starting_position,"
								  " 'MaximumRetryAttempts', maximum_retry_attempts,"
								  " 'DestinationConfig', CASE WHEN dead_letter"
								  "   THEN '{\"OnFailure\": {\"Destination\": \"" DEAD_LETTERS "\"}}'::pg_catalog.jsonb"
								  "   ELSE '{}'::pg_catalog.jsonb END,"
								  " 'State', state, 'StateTransitionReason', state_transition_reason,"
								  " 'SequenceNumber', position::pg_catalog.text,"
								  " 'LastProcessingResult', COALESCE(last_processing_result, 'No records processed'),"
								  " 'LastModified', pg_catalog.floor(pg_catalog.date_part('epoch', last_modified))::pg_catalog.int8)"
								  " FROM stdesign.stream_mappings m"
								  " WHERE uuid OPERATOR(pg_catalog.=) $1::pg_catalog.uuid"
								  " AND" MAPPING_OF_ROLE("$2"),
								  3, atypes, aargs, anulls, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
			st_internal_error("could not read stdesign.stream_mappings");
		{
			bool		isnull;
			Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
			MemoryContext spi = MemoryContextSwitchTo(caller);

			answer = DatumGetJsonbPCopy(d);
			MemoryContextSwitchTo(spi);
		}
	}
	SPI_finish();
	catalog_as_owner_end(&save);
	return answer;
}

/* A uuid's text, checked (an API's caller may pass any text). */
static const char *
check_uuid(const char *uuid)
{
	if (uuid == NULL)
		st_validation_null("UUID");
	/* its canonical form, which the catalog's queries take */
	return DatumGetCString(DirectFunctionCall1(uuid_out, DirectFunctionCall1(uuid_in, CStringGetDatum(uuid))));
}

Jsonb *
ops_stream_mapping_create(const char *table_name, Oid function, int batch_size, const char *start,
						  int max_retries, bool dead_letter, bool enabled)
{
	StTable    *t;
	char	   *tname;
	int64		stream_id;
	int64		position;
	char	   *uuid;
	Oid			role = GetUserId();
	CatalogAsOwner save;
	Oid			types[14] = {TEXTOID, OIDOID, TEXTOID, TEXTOID, INT8OID, OIDOID, INT4OID, TEXTOID,
	INT4OID, BOOLOID, TEXTOID, INT8OID, TEXTOID, OIDOID};
	Datum		args[14];
	uint64		count;

	if (table_name == NULL)
		st_validation_null("TableName");
	check_batch_size(batch_size);
	check_retries(max_retries);
	t = catalog_lookup(table_name, false);
	tname = pstrdup(t->name);
	/* the starting position is checked here, the stream found */
	ops_stream_start_position(tname, start, &stream_id, &position);
	check_rights(function, NULL, tname, stream_id);

	/* a bound on each role's mappings (see above) */
	args[0] = ObjectIdGetDatum(role);
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT pg_catalog.count(*) FROM stdesign.stream_mappings"
							  " WHERE role OPERATOR(pg_catalog.=) $1::pg_catalog.regrole",
							  1, &types[1], args, NULL, false, 0) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.stream_mappings");
	{
		bool		isnull;

		count = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_finish();
	catalog_as_owner_end(&save);
	if (count >= MAPPINGS_PER_ROLE_MAX)
		st_error(ST_ERR_LIMIT_EXCEEDED,
				 "Stream mapping limit exceeded: a role may have %d stream mappings",
				 MAPPINGS_PER_ROLE_MAX);

	uuid = DatumGetCString(DirectFunctionCall1(uuid_out, DirectFunctionCall1(gen_random_uuid, (Datum) 0)));
	args[0] = CStringGetTextDatum(uuid);
	args[1] = ObjectIdGetDatum(role);
	args[2] = CStringGetTextDatum(GetUserNameFromId(role, false));
	args[3] = CStringGetTextDatum(tname);
	args[4] = Int64GetDatum(stream_id);
	args[5] = ObjectIdGetDatum(function);
	args[6] = Int32GetDatum(batch_size);
	args[7] = CStringGetTextDatum(start);
	args[8] = Int32GetDatum(max_retries);
	args[9] = BoolGetDatum(dead_letter);
	args[10] = CStringGetTextDatum(enabled ? "Enabled" : "Disabled");
	args[11] = Int64GetDatum(position);
	args[12] = CStringGetTextDatum(format_procedure_qualified(function));
	args[13] = ObjectIdGetDatum(function_owner(function));
	catalog_check_triggers();
	if (catalog_write("INSERT INTO stdesign.stream_mappings (uuid, role, role_name, table_name, stream_id,"
					  " function, function_name, function_owner, batch_size, starting_position,"
					  " maximum_retry_attempts, dead_letter, state,"
					  " state_transition_reason, position, retries, created_at, last_modified)"
					  " VALUES ($1::pg_catalog.uuid, $2::pg_catalog.regrole, $3, $4, $5, $6, $13, $14::pg_catalog.regrole,"
					  " $7, $8, $9, $10, $11, 'USER_INITIATED', $12, 0, pg_catalog.now(), pg_catalog.now())",
					  14, types, args, NULL) != 1)
		st_internal_error("could not write stdesign.stream_mappings");
	return mapping_answer(uuid, role);
}

/*
 * The current user's mapping uuid locked, its table, stream and function
 * (InvalidOid when no longer found) with its stored name; raises when none.
 */
static void
mapping_get(const char *uuid, char **table_name, int64 *stream_id, Oid *function, char **function_name)
{
	CatalogAsOwner save;
	Oid			types[2] = {TEXTOID, OIDOID};
	Datum		args[2];
	bool		isnull;
	MemoryContext caller = CurrentMemoryContext;

	args[0] = CStringGetTextDatum(uuid);
	args[1] = ObjectIdGetDatum(GetUserId());
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT table_name, stream_id, COALESCE(" MAPPING_FUNCTION ", 0), function_name"
							  " FROM stdesign.stream_mappings m"
							  " WHERE uuid OPERATOR(pg_catalog.=) $1::pg_catalog.uuid"
							  " AND" MAPPING_OF_ROLE("$2") " FOR UPDATE OF m",
							  2, types, args, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.stream_mappings");
	if (SPI_processed == 0)
		st_error(ST_ERR_RESOURCE_NOT_FOUND, "The resource you requested does not exist.");
	*table_name = MemoryContextStrdup(caller, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
	*stream_id = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	*function = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull));
	*function_name = MemoryContextStrdup(caller, SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4));
	SPI_finish();
	catalog_as_owner_end(&save);
}

Jsonb *
ops_stream_mapping_update(const char *uuid, int enabled, int batch_size, int max_retries, int dead_letter)
{
	char	   *table_name;
	int64		stream_id;
	Oid			function;
	char	   *function_name;
	Oid			types[8] = {TEXTOID, BOOLOID, INT4OID, INT4OID, BOOLOID, OIDOID, OIDOID, TEXTOID};
	Datum		args[8];
	char		nulls[8] = {' ', ' ', ' ', ' ', ' ', 'n', 'n', 'n'};

	uuid = check_uuid(uuid);
	if (batch_size != INT_MIN)
		check_batch_size(batch_size);
	if (max_retries != INT_MIN)
		check_retries(max_retries);
	mapping_get(uuid, &table_name, &stream_id, &function, &function_name);
	/* enabled again: may the role still run it? */
	if (enabled > 0)
		check_rights(function, function_name, table_name, stream_id);

	args[0] = CStringGetTextDatum(uuid);
	args[1] = BoolGetDatum(enabled > 0);
	nulls[1] = enabled < 0 ? 'n' : ' ';
	args[2] = Int32GetDatum(batch_size);
	nulls[2] = batch_size == INT_MIN ? 'n' : ' ';
	args[3] = Int32GetDatum(max_retries);
	nulls[3] = max_retries == INT_MIN ? 'n' : ' ';
	args[4] = BoolGetDatum(dead_letter > 0);
	nulls[4] = dead_letter < 0 ? 'n' : ' ';
	/* enabled: the function as it is now (see MAPPING_FUNCTION) */
	if (enabled > 0)
	{
		args[5] = ObjectIdGetDatum(function);
		args[6] = ObjectIdGetDatum(function_owner(function));
		args[7] = CStringGetTextDatum(format_procedure_qualified(function));
		nulls[5] = nulls[6] = nulls[7] = ' ';
	}
	catalog_check_triggers();
	if (catalog_write("UPDATE stdesign.stream_mappings SET"
					  " state = CASE WHEN $2 IS NULL THEN state WHEN $2 THEN 'Enabled' ELSE 'Disabled' END,"
					  " state_transition_reason = CASE WHEN $2 IS NULL THEN state_transition_reason"
					  "   ELSE 'USER_INITIATED' END,"
					  " retries = CASE WHEN $2 THEN 0 ELSE retries END,"
					  " batch_size = COALESCE($3, batch_size),"
					  " maximum_retry_attempts = COALESCE($4, maximum_retry_attempts),"
					  " dead_letter = COALESCE($5, dead_letter), last_modified = pg_catalog.now(),"
					  " function = COALESCE($6, function),"
					  " function_owner = COALESCE($7::pg_catalog.regrole, function_owner),"
					  " function_name = COALESCE($8, function_name)"
					  " WHERE uuid OPERATOR(pg_catalog.=) $1::pg_catalog.uuid",
					  8, types, args, nulls) != 1)
		st_internal_error("could not write stdesign.stream_mappings");
	return mapping_answer(uuid, GetUserId());
}

bool
ops_stream_mapping_drop(const char *uuid)
{
	Oid			types[2] = {TEXTOID, OIDOID};
	Datum		args[2];

	uuid = check_uuid(uuid);
	args[0] = CStringGetTextDatum(uuid);
	args[1] = ObjectIdGetDatum(GetUserId());
	catalog_check_triggers();
	if (catalog_write("DELETE FROM stdesign.stream_mappings m WHERE uuid OPERATOR(pg_catalog.=) $1::pg_catalog.uuid"
					  " AND" MAPPING_OF_ROLE("$2"),
					  2, types, args, NULL) == 0)
		return false;
	(void) catalog_write("DELETE FROM stdesign.stream_dead_letters WHERE mapping OPERATOR(pg_catalog.=) $1::pg_catalog.uuid",
						 1, types, args, NULL);
	return true;
}

bool
ops_stream_dead_letter_delete(const char *uuid, int64 first_sequence)
{
	Oid			types[3] = {TEXTOID, OIDOID, INT8OID};
	Datum		args[3];

	uuid = check_uuid(uuid);
	args[0] = CStringGetTextDatum(uuid);
	args[1] = ObjectIdGetDatum(GetUserId());
	args[2] = Int64GetDatum(first_sequence);
	catalog_check_triggers();
	/* of a mapping of the caller's, by its OID and the name it had (MAPPING_OF_ROLE) */
	return catalog_write("DELETE FROM stdesign.stream_dead_letters d"
						 " WHERE d.mapping OPERATOR(pg_catalog.=) $1::pg_catalog.uuid"
						 " AND d.first_sequence OPERATOR(pg_catalog.=) $3"
						 " AND EXISTS (SELECT 1 FROM stdesign.stream_mappings m"
						 "  WHERE m.uuid OPERATOR(pg_catalog.=) d.mapping AND" MAPPING_OF_ROLE("$2") ")",
						 3, types, args, NULL) > 0;
}

/* The rows of query (parameters: the current user, then arg when not NULL) into tupstore. */
static void
list_rows(const char *query, const char *arg, Tuplestorestate *tupstore, TupleDesc desc)
{
	CatalogAsOwner save;
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		args[2];
	char		nulls[2] = {' ', ' '};
	Datum	   *values = palloc(sizeof(Datum) * desc->natts);
	bool	   *isnull = palloc(sizeof(bool) * desc->natts);

	args[0] = ObjectIdGetDatum(GetUserId());
	args[1] = arg ? CStringGetTextDatum(arg) : (Datum) 0;
	nulls[1] = arg ? ' ' : 'n';
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args(query, 2, types, args, nulls, true, 0) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.stream_mappings");
	if (SPI_tuptable->tupdesc->natts != desc->natts)
		st_internal_error("stream mappings: the function's columns are not the catalog's");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		heap_deform_tuple(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, values, isnull);
		tuplestore_putvalues(tupstore, desc, values, isnull);
	}
	SPI_finish();
	catalog_as_owner_end(&save);
}

void
ops_stream_mappings_list(Tuplestorestate *tupstore, TupleDesc desc)
{
	list_rows("SELECT uuid, table_name::pg_catalog.text, " MAPPING_FUNCTION "::pg_catalog.regprocedure,"
			  " batch_size, starting_position,"
			  " maximum_retry_attempts, dead_letter, state, state_transition_reason, position, retries,"
			  " last_error, last_error_at, last_run, last_processing_result, created_at, last_modified"
			  " FROM stdesign.stream_mappings m WHERE" MAPPING_OF_ROLE("$1")
			  " AND $2 IS NULL ORDER BY created_at, uuid",
			  NULL, tupstore, desc);
}

void
ops_stream_dead_letters_list(const char *uuid, Tuplestorestate *tupstore, TupleDesc desc)
{
	if (uuid)
		uuid = check_uuid(uuid);
	list_rows("SELECT mapping, table_name::pg_catalog.text, first_sequence, last_sequence, records, error,"
			  " attempts, failed_at FROM stdesign.stream_dead_letters d"
			  " WHERE EXISTS (SELECT 1 FROM stdesign.stream_mappings m WHERE m.uuid OPERATOR(pg_catalog.=) d.mapping"
			  "  AND" MAPPING_OF_ROLE("$1") ")"
			  " AND ($2 IS NULL OR d.mapping OPERATOR(pg_catalog.=) $2::pg_catalog.uuid)"
			  " ORDER BY failed_at, mapping, first_sequence",
			  uuid, tupstore, desc);
}

/* ---------- the worker's steps ---------- */

bool
ops_stream_mappings_present(void)
{
	Oid			nsp;

	if (!OidIsValid(get_extension_oid("stdesign", true)))
		return false;
	nsp = get_namespace_oid("stdesign", true);
	return OidIsValid(nsp) && OidIsValid(get_relname_relid("stream_mappings", nsp));
}

List *
ops_stream_mappings_due(int retry_delay_ms)
{
	CatalogAsOwner save;
	Oid			types[1] = {INT4OID};
	Datum		args[1];
	List	   *due = NIL;
	MemoryContext caller = CurrentMemoryContext;

	args[0] = Int32GetDatum(retry_delay_ms);
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT uuid::pg_catalog.text FROM stdesign.stream_mappings"
							  " WHERE state OPERATOR(pg_catalog.=) 'Enabled' AND (retries OPERATOR(pg_catalog.=) 0"
							  " OR last_error_at IS NULL OR last_error_at OPERATOR(pg_catalog.+) pg_catalog.make_interval("
							  "   secs => $1 OPERATOR(pg_catalog.*) pg_catalog.power(2, LEAST(retries OPERATOR(pg_catalog.-) 1, 6))"
							  "     OPERATOR(pg_catalog./) 1000.0) OPERATOR(pg_catalog.<=) pg_catalog.clock_timestamp())"
							  " ORDER BY last_run NULLS FIRST, uuid",
							  1, types, args, NULL, true, 0) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.stream_mappings");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		char	   *uuid = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		MemoryContext spi = MemoryContextSwitchTo(caller);

		/* the list in the caller's memory too, not SPI's */
		due = lappend(due, pstrdup(uuid));
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	catalog_as_owner_end(&save);
	return due;
}

OpsStreamMapping *
ops_stream_mapping_lock(const char *uuid)
{
	CatalogAsOwner save;
	Oid			types[1] = {TEXTOID};
	Datum		args[1];
	OpsStreamMapping *m = NULL;
	MemoryContext caller = CurrentMemoryContext;

	args[0] = CStringGetTextDatum(uuid);
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT role::pg_catalog.oid, role_name::pg_catalog.text, table_name, stream_id,"
							  " COALESCE(" MAPPING_FUNCTION ", 0), batch_size, maximum_retry_attempts, dead_letter,"
							  " position, retries, function_name FROM stdesign.stream_mappings m"
							  " WHERE uuid OPERATOR(pg_catalog.=) $1::pg_catalog.uuid"
							  " AND state OPERATOR(pg_catalog.=) 'Enabled' FOR UPDATE OF m SKIP LOCKED",
							  1, types, args, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.stream_mappings");
	if (SPI_processed == 1)
	{
		HeapTuple	tup = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;

		m = MemoryContextAllocZero(caller, sizeof(OpsStreamMapping));
		m->uuid = MemoryContextStrdup(caller, uuid);
		m->role = DatumGetObjectId(SPI_getbinval(tup, desc, 1, &isnull));
		m->role_name = MemoryContextStrdup(caller, SPI_getvalue(tup, desc, 2));
		m->table_name = MemoryContextStrdup(caller, SPI_getvalue(tup, desc, 3));
		m->stream_id = DatumGetInt64(SPI_getbinval(tup, desc, 4, &isnull));
		m->function = DatumGetObjectId(SPI_getbinval(tup, desc, 5, &isnull));
		m->batch_size = DatumGetInt32(SPI_getbinval(tup, desc, 6, &isnull));
		m->max_retries = DatumGetInt32(SPI_getbinval(tup, desc, 7, &isnull));
		m->dead_letter = DatumGetBool(SPI_getbinval(tup, desc, 8, &isnull));
		m->position = DatumGetInt64(SPI_getbinval(tup, desc, 9, &isnull));
		m->retries = DatumGetInt32(SPI_getbinval(tup, desc, 10, &isnull));
		m->function_name = MemoryContextStrdup(caller, SPI_getvalue(tup, desc, 11));
	}
	SPI_finish();
	catalog_as_owner_end(&save);
	return m;
}

char *
ops_stream_mapping_problem(const OpsStreamMapping *m)
{
	char	   *name = GetUserNameFromId(m->role, true);

	if (name == NULL || strcmp(name, m->role_name) != 0)
		return psprintf("the role %s that created the mapping no longer exists", m->role_name);
	return function_problem(m->function, m->function_name);
}

void
ops_stream_mapping_check(const OpsStreamMapping *m)
{
	/* the worker switched to the role: these are its rights */
	if (GetUserId() != m->role)
		st_internal_error("a stream mapping's checks run as its role");
	check_rights(m->function, m->function_name, m->table_name, m->stream_id);
}

/* {"Records": [records...]} */
static Jsonb *
batch_of(Jsonb **records, int n)
{
	JsonbParseState *state = NULL;
	JsonbValue	key;
	JsonbValue *done;

	(void) pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	key.type = jbvString;
	key.val.string.val = "Records";
	key.val.string.len = strlen("Records");
	(void) pushJsonbValue(&state, WJB_KEY, &key);
	(void) pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < n; i++)
	{
		JsonbValue	record;

		record.type = jbvBinary;
		record.val.binary.data = &records[i]->root;
		record.val.binary.len = VARSIZE(records[i]) - VARHDRSZ;
		(void) pushJsonbValue(&state, WJB_ELEM, &record);
	}
	(void) pushJsonbValue(&state, WJB_END_ARRAY, NULL);
	done = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	return JsonbValueToJsonb(done);
}

/*
 * The function, called as fmgr calls any (its SECURITY DEFINER and SET
 * clauses apply, still inside the worker's security-restricted operation).
 */
static void
call_function(Oid fn, Jsonb *batch)
{
	FmgrInfo	flinfo;

	LOCAL_FCINFO(fcinfo, 1);

	fmgr_info(fn, &flinfo);
	InitFunctionCallInfoData(*fcinfo, &flinfo, 1, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = JsonbPGetDatum(batch);
	fcinfo->args[0].isnull = false;
	/* what it returns is not used (void, a count, NULL: all the same) */
	(void) FunctionCallInvoke(fcinfo);
}

int
ops_stream_mapping_invoke(const OpsStreamMapping *m)
{
	Jsonb	  **records;
	int			n;
	int64		last;
	Oid			types[5] = {TEXTOID, INT8OID, OIDOID, OIDOID, TEXTOID};
	Datum		args[5];
	char		nulls[5] = {' ', ' ', ' ', ' ', ' '};
	HeapTuple	tup;

	records = ops_stream_records_of(m->stream_id, m->position, m->batch_size, &n, &last);
	if (n == 0)
		return 0;
	call_function(m->function, batch_of(records, n));

	/*
	 * The checkpoint, in the function's transaction; with the function's
	 * name and owner as they are now, so that a function renamed or given
	 * to another owner since the mapping was made is still found by its
	 * name after an upgrade or a restore.
	 */
	args[0] = CStringGetTextDatum(m->uuid);
	args[1] = Int64GetDatum(last);
	args[2] = ObjectIdGetDatum(m->function);
	catalog_check_triggers();
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(m->function));
	if (HeapTupleIsValid(tup))
	{
		args[3] = ObjectIdGetDatum(((Form_pg_proc) GETSTRUCT(tup))->proowner);
		ReleaseSysCache(tup);
		args[4] = CStringGetTextDatum(format_procedure_qualified(m->function));
	}
	else
		nulls[3] = nulls[4] = 'n';
	(void) catalog_write("UPDATE stdesign.stream_mappings SET position = $2, retries = 0,"
						 " last_run = pg_catalog.clock_timestamp(), last_processing_result = 'OK',"
						 " function = CASE WHEN $4 IS NULL THEN function ELSE $3 END,"
						 " function_owner = COALESCE($4::pg_catalog.regrole, function_owner),"
						 " function_name = COALESCE($5, function_name)"
						 " WHERE uuid OPERATOR(pg_catalog.=) $1::pg_catalog.uuid",
						 5, types, args, nulls);
	return n;
}

int
ops_stream_mapping_failed(const OpsStreamMapping *m, const char *error)
{
	int			attempts = m->retries + 1;
	Jsonb	  **records;
	int			n;
	int64		last;
	Oid			types[6] = {TEXTOID, INT4OID, TEXTOID, INT8OID, OIDOID, JSONBOID};
	Datum		args[6];

	args[0] = CStringGetTextDatum(m->uuid);
	args[1] = Int32GetDatum(attempts);
	args[2] = clipped_text(error);
	catalog_check_triggers();
	if (m->max_retries < 0 || attempts <= m->max_retries)
	{
		/* to be tried again, after a delay (ops_stream_mappings_due) */
		(void) catalog_write("UPDATE stdesign.stream_mappings SET retries = $2, last_error = $3,"
							 " last_error_at = pg_catalog.clock_timestamp(), last_run = pg_catalog.clock_timestamp(),"
							 " last_processing_result = 'PROBLEM: Function call failed'"
							 " WHERE uuid OPERATOR(pg_catalog.=) $1::pg_catalog.uuid",
							 3, types, args, NULL);
		return 0;
	}

	/* out of retries: the batch set aside, and the position past it, together */
	records = ops_stream_records_of(m->stream_id, m->position, m->batch_size, &n, &last);
	args[3] = Int64GetDatum(last);
	args[4] = ObjectIdGetDatum(m->role);
	args[5] = JsonbPGetDatum(batch_of(records, n));
	if (n > 0 && m->dead_letter)
		(void) catalog_write("INSERT INTO stdesign.stream_dead_letters (mapping, role, table_name, first_sequence,"
							 " last_sequence, records, error, attempts, failed_at)"
							 " SELECT uuid, $5::pg_catalog.regrole, table_name,"
							 "  ($6 OPERATOR(pg_catalog.->) 'Records' OPERATOR(pg_catalog.->) 0"
							 "   OPERATOR(pg_catalog.->) 'dynamodb' OPERATOR(pg_catalog.->>) 'SequenceNumber')::pg_catalog.int8,"
							 "  $4, $6, $3, $2, pg_catalog.clock_timestamp()"
							 " FROM stdesign.stream_mappings WHERE uuid OPERATOR(pg_catalog.=) $1::pg_catalog.uuid",
							 6, types, args, NULL);
	(void) catalog_write("UPDATE stdesign.stream_mappings SET position = $4, retries = 0, last_error = $3,"
						 " last_error_at = pg_catalog.clock_timestamp(), last_run = pg_catalog.clock_timestamp(),"
						 " last_processing_result = CASE WHEN dead_letter"
						 "   THEN 'PROBLEM: Function call failed; the batch went to " DEAD_LETTERS "'"
						 "   ELSE 'PROBLEM: Function call failed; the batch was discarded' END"
						 " WHERE uuid OPERATOR(pg_catalog.=) $1::pg_catalog.uuid",
						 6, types, args, NULL);
	return n;
}

void
ops_stream_mapping_disable(const char *uuid, const char *reason)
{
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		args[2];

	args[0] = CStringGetTextDatum(uuid);
	args[1] = clipped_text(reason);
	catalog_check_triggers();
	(void) catalog_write("UPDATE stdesign.stream_mappings SET state = 'Disabled', state_transition_reason = $2,"
						 " last_error = $2, last_error_at = pg_catalog.clock_timestamp(),"
						 " last_processing_result = 'PROBLEM: the mapping was disabled',"
						 " last_modified = pg_catalog.clock_timestamp()"
						 " WHERE uuid OPERATOR(pg_catalog.=) $1::pg_catalog.uuid",
						 2, types, args, NULL);
}

void
ops_stream_mappings_wait_begin(void)
{
	storage_stream_wait_begin();
}

void
ops_stream_mappings_wait_sleep(long ms)
{
	storage_stream_wait_sleep(ms);
}

void
ops_stream_mappings_wait_end(void)
{
	storage_stream_wait_end();
}
