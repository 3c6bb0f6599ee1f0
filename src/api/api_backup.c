/*-------------------------------------------------------------------------
 *
 * api_backup.c
 *		On-demand backups for st_api and the HTTP endpoint: CreateBackup,
 *		DescribeBackup, ListBackups, DeleteBackup, RestoreTableFromBackup;
 *		and their friendly functions st_create_backup, st_restore_backup,
 *		st_delete_backup.
 *
 * The model's checks (api_validate.c) come first for every one of them:
 * the lengths and patterns of BackupName, BackupArn, TargetTableName, the
 * Limit of ListBackups (1 to 100), the BackupType enum.  The friendly
 * functions build DynamoDB's request and run the same checks and handler.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "api.h"
#include "item/av_jsonb.h"
#include "json_req.h"
#include "ops/backup_ops.h"
#include "sql_args.h"

static Jsonb *
plain_response(const char *key, const Av *value)
{
	ApiOut		out;

	api_out_begin(&out);
	api_out_key(&out, key);
	api_out_plain(&out, value);
	return api_out_end(&out);
}

/* BackupArn: required (the model checked its length). */
static char *
backup_arn(Jsonb *request)
{
	char	   *arn = api_jreq_member_text(request, "BackupArn", "backupArn");

	if (arn == NULL)
		st_validation_null("backupArn");
	return arn;
}

/* CreateBackup: {TableName, BackupName} -> {BackupDetails} */
Jsonb *
api_create_backup(Jsonb *request)
{
	char	   *name = api_table_name(request);
	char	   *backup = api_jreq_member_text(request, "BackupName", "backupName");

	if (backup == NULL)
		st_validation_null("backupName");
	return plain_response("BackupDetails", ops_backup_create(name, backup));
}

/* DescribeBackup: {BackupArn} -> {BackupDescription} */
Jsonb *
api_describe_backup(Jsonb *request)
{
	return plain_response("BackupDescription", ops_backup_describe(backup_arn(request)));
}

/* DeleteBackup: {BackupArn} -> {BackupDescription}, BackupStatus DELETED */
Jsonb *
api_delete_backup(Jsonb *request)
{
	return plain_response("BackupDescription", ops_backup_delete(backup_arn(request)));
}

/* A timestamp member (epoch seconds, a JSON number), or false when absent. */
static bool
member_epoch(Jsonb *request, const char *key, double *out)
{
	Jsonb	   *m = api_jreq_member(request, key);
	JsonbValue	v;

	if (m == NULL)
		return false;
	if (!JsonbExtractScalar(&m->root, &v) || v.type != jbvNumeric)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for %s: expected a number of seconds", key);
	/* through its text: a number past double's range is +-inf (ListBackups clamps it), not an ERROR */
	*out = strtod(DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v.val.numeric))), NULL);
	return true;
}

/*
 * ListBackups: {TableName?, Limit?, TimeRangeLowerBound?,
 * TimeRangeUpperBound?, ExclusiveStartBackupArn?, BackupType?} ->
 * {BackupSummaries, LastEvaluatedBackupArn?}.  TableName may be a table's
 * ARN, and may name a table deleted since: its backups are still listed.
 */
Jsonb *
api_list_backups(Jsonb *request)
{
	static const char *const types[] = {"USER", "SYSTEM", "AWS_BACKUP", "ALL"};
	StBackupFilter f;
	const char *type = api_enum(request, "BackupType", "backupType", types, lengthof(types));
	char	   *last = NULL;
	Av		   *list;
	ApiOut		out;

	memset(&f, 0, sizeof(f));
	if (api_jreq_member(request, "TableName"))
		f.table_name = api_table_name(request);
	f.limit = (int) api_jreq_member_int(request, "Limit", "limit", 0);
	f.has_lower = member_epoch(request, "TimeRangeLowerBound", &f.lower);
	f.has_upper = member_epoch(request, "TimeRangeUpperBound", &f.upper);
	f.start_after = api_jreq_member_text(request, "ExclusiveStartBackupArn", "exclusiveStartBackupArn");
	/* USER is the default (API reference, ListBackups: BackupType) */
	f.user_type = type == NULL || strcmp(type, "USER") == 0 || strcmp(type, "ALL") == 0;
	list = ops_backup_list(&f, &last);

	api_out_begin(&out);
	api_out_key(&out, "BackupSummaries");
	api_out_plain(&out, list);
	if (last)
	{
		api_out_key(&out, "LastEvaluatedBackupArn");
		api_out_string(&out, last);
	}
	return api_out_end(&out);
}

/*
 * RestoreTableFromBackup: {TargetTableName, BackupArn, overrides} ->
 * {TableDescription} with RestoreSummary.
 */
static Av  *
restore(Jsonb *request)
{
	char	   *target = api_jreq_member_text(request, "TargetTableName", "targetTableName");
	char	   *arn;

	if (target == NULL)
		st_validation_null("targetTableName");
	arn = backup_arn(request);
	return ops_backup_restore(arn, target, av_map_from_jsonb(request, false, "request"));
}

Jsonb *
api_restore_table_from_backup(Jsonb *request)
{
	return plain_response("TableDescription", restore(request));
}

/* ---------- SQL functions ---------- */

/* A request of string members (names[i] = values[i]; NULL values left out), checked by the model. */
static Jsonb *
string_request(const char *operation, int n, const char *const *names, char *const *values)
{
	Av		   *req = av_new(AV_M);
	Jsonb	   *request;

	for (int i = 0; i < n; i++)
		if (values[i])
			av_map_put_nocheck(req, names[i], strlen(names[i]),
							   av_new_str(AV_S, values[i], strlen(values[i])));
	request = av_item_to_jsonb(req, false);
	api_validate_request(operation, request);
	return request;
}

/* st_create_backup(table_name, backup_name) -> BackupDetails */
PG_FUNCTION_INFO_V1(st_create_backup);
Datum
st_create_backup(PG_FUNCTION_ARGS)
{
	static const char *const names[] = {"TableName", "BackupName"};
	char	   *values[2] = {api_arg_text(fcinfo, 0), api_arg_text(fcinfo, 1)};
	Jsonb	   *request = string_request("CreateBackup", 2, names, values);

	PG_RETURN_JSONB_P(av_item_to_jsonb(ops_backup_create(api_table_name(request), values[1]), false));
}

/* st_restore_backup(backup_arn, target_table_name) -> TableDescription */
PG_FUNCTION_INFO_V1(st_restore_backup);
Datum
st_restore_backup(PG_FUNCTION_ARGS)
{
	static const char *const names[] = {"BackupArn", "TargetTableName"};
	char	   *values[2] = {api_arg_text(fcinfo, 0), api_arg_text(fcinfo, 1)};
	Jsonb	   *request = string_request("RestoreTableFromBackup", 2, names, values);

	PG_RETURN_JSONB_P(av_item_to_jsonb(restore(request), false));
}

/* st_delete_backup(backup_arn) -> BackupDescription */
PG_FUNCTION_INFO_V1(st_delete_backup);
Datum
st_delete_backup(PG_FUNCTION_ARGS)
{
	static const char *const names[] = {"BackupArn"};
	char	   *values[1] = {api_arg_text(fcinfo, 0)};
	Jsonb	   *request = string_request("DeleteBackup", 1, names, values);

	PG_RETURN_JSONB_P(av_item_to_jsonb(ops_backup_delete(backup_arn(request)), false));
}
