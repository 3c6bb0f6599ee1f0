/*-------------------------------------------------------------------------
 *
 * studio_export.c
 *		Export in DynamoDB's export format: one {"Item": {...}} line per
 *		item, its attributes as typed AttributeValues, as an export to S3
 *		writes them (ExportFormat DYNAMODB_JSON); st_import reads them back.
 *
 *	 st_export(table_name) -> SETOF text
 *	 st_export_file(table_name, path text) -> bigint	 (pg_write_server_files)
 *
 * Items come in key order (partition key bytes, then sort key), which an
 * export to S3 does not promise, but which makes two exports of the same
 * items the same lines.  A file on the server is written with the
 * privileges COPY TO a file needs: superuser or pg_write_server_files, an
 * absolute path, and files not writable by group or others.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>

#include "catalog/pg_authid.h"
#include "commands/progress.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/fd.h"
#include "utils/acl.h"
#include "utils/backend_progress.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "ops/item_ops.h"
#include "studio.h"

typedef struct ExportState
{
	Tuplestorestate *store;		/* st_export: the lines */
	TupleDesc	desc;
	FILE	   *file;			/* st_export_file: the file */
	const char *path;
	StringInfoData line;
	int64		n;
	int64		bytes;
	MemoryContext row_cxt;
} ExportState;

/* {"Item": <the stored typed item>}: the stored form is DynamoDB's typed JSON. */
static bool
export_row(Jsonb *stored, void *arg)
{
	ExportState *st = arg;
	MemoryContext old = MemoryContextSwitchTo(st->row_cxt);

	resetStringInfo(&st->line);
	appendStringInfoString(&st->line, "{\"Item\": ");
	JsonbToCString(&st->line, &stored->root, VARSIZE(stored));
	appendStringInfoChar(&st->line, '}');
	if (st->store)
	{
		Datum		value = PointerGetDatum(cstring_to_text_with_len(st->line.data, st->line.len));
		bool		isnull = false;

		tuplestore_putvalues(st->store, st->desc, &value, &isnull);
	}
	else
	{
		appendStringInfoChar(&st->line, '\n');
		if (fwrite(st->line.data, 1, st->line.len, st->file) != (size_t) st->line.len)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not write to file \"%s\": %m", st->path)));
	}
	st->n++;
	st->bytes += st->line.len;
	if (st->n % 1000 == 0)
	{
		pgstat_progress_update_param(PROGRESS_COPY_TUPLES_PROCESSED, st->n);
		pgstat_progress_update_param(PROGRESS_COPY_BYTES_PROCESSED, st->bytes);
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->row_cxt);
	return true;
}

static void
export_run(const char *name, ExportState *st, int copy_type)
{
	StTable    *t = catalog_lookup(name, false);
	MemoryContext line_cxt = AllocSetContextCreate(CurrentMemoryContext, "stdesign export line",
												   ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(line_cxt);

	/* every item: SELECT on the relation (its policies apply to the scan) */
	studio_check_select(t);
	initStringInfo(&st->line);
	MemoryContextSwitchTo(old);
	st->row_cxt = AllocSetContextCreate(CurrentMemoryContext, "stdesign export row",
										ALLOCSET_DEFAULT_SIZES);
	pgstat_progress_start_command(PROGRESS_COMMAND_COPY, t->relid);
	pgstat_progress_update_param(PROGRESS_COPY_COMMAND, PROGRESS_COPY_COMMAND_TO);
	pgstat_progress_update_param(PROGRESS_COPY_TYPE, copy_type);
	ops_scan_uncounted(t, NULL, -1, export_row, st);
	pgstat_progress_end_command();
	MemoryContextDelete(st->row_cxt);
	MemoryContextDelete(line_cxt);
}

PG_FUNCTION_INFO_V1(st_export);
Datum
st_export(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ExportState st;

	memset(&st, 0, sizeof(st));
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	st.store = rsinfo->setResult;
	st.desc = rsinfo->setDesc;
	export_run(studio_io_arg_text(fcinfo, 0), &st, PROGRESS_COPY_TYPE_CALLBACK);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(st_export_file);
Datum
st_export_file(PG_FUNCTION_ARGS)
{
	char	   *name = studio_io_arg_text(fcinfo, 0);
	char	   *path = studio_io_arg_required(fcinfo, 1, "path");
	ExportState st;
	mode_t		oumask;
	struct stat stbuf;

	if (!has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to export to a file"),
				 errdetail("Only roles with privileges of the \"pg_write_server_files\" role may write files on the server, as with COPY TO a file."),
				 errhint("st_export returns the lines to the client.")));
	if (!is_absolute_path(path))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("relative path not allowed for st_export_file")));
	/* the table's privilege before the file is created or emptied */
	studio_check_select(catalog_lookup(name, false));
	memset(&st, 0, sizeof(st));
	st.path = path;
	oumask = umask(S_IWGRP | S_IWOTH);
	PG_TRY();
	{
		st.file = AllocateFile(path, PG_BINARY_W);
	}
	PG_FINALLY();
	{
		umask(oumask);
	}
	PG_END_TRY();
	if (st.file == NULL)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\" for writing: %m", path)));
	if (fstat(fileno(st.file), &stbuf) == 0 && S_ISDIR(stbuf.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is a directory", path)));
	export_run(name, &st, PROGRESS_COPY_TYPE_FILE);
	if (FreeFile(st.file) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", path)));
	PG_RETURN_INT64(st.n);
}
