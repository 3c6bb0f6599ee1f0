/*-------------------------------------------------------------------------
 *
 * citus.c
 *		What stdesign needs to know about Citus, found at run time through
 *		SQL: Citus installs no C headers, and a server without it must not
 *		depend on it.  Whether the extension is there, whether a relation is
 *		a distributed table or a shard of one, and the copy of a table's
 *		catalog rows to every worker (docs/citus.md).
 *
 * The catalog tables stay each node's own (the extension's copy, created
 * on every node with CREATE EXTENSION); a distributed table's rows are
 * written to the workers by catalog_publish, whenever stdesign changes
 * them on the coordinator (st_distribute_table, a GSI added or dropped,
 * the table dropped), when the coordinator's transaction commits.  Workers need them to verify the shards' set_keys
 * trigger and to serve stdesign calls of their own.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "common/st_common.h"
#include "st_catalog.h"

int			st_citus_shard_count_guc = 0;
bool		st_citus_delegate_reads_guc = true;

bool
catalog_citus_present(void)
{
	return OidIsValid(get_extension_oid("citus", true));
}

/*
 * Citus names the connections a node opens to another "citus_internal
 * gpid=...": the DDL it propagates to shards (CREATE TABLE, CREATE
 * TRIGGER, DROP) arrives through them.  Only with Citus installed.
 */
bool
catalog_citus_internal_session(void)
{
	return application_name != NULL &&
		strncmp(application_name, "citus_internal", strlen("citus_internal")) == 0 &&
		catalog_citus_present();
}

/* One boolean or oid answer of a query with one oid-like parameter, inside SPI. */
static Datum
citus_scalar(const char *sql, Oid argtype, Datum arg, bool *found)
{
	Oid			types[1] = {argtype};
	Datum		values[1] = {arg};
	Datum		result = (Datum) 0;
	bool		isnull = true;

	SPI_connect();
	if (SPI_execute_with_args(sql, 1, types, values, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read Citus's metadata: %s", sql);
	if (SPI_processed == 1)
		result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	SPI_finish();
	*found = !isnull;
	return result;
}

bool
catalog_citus_distributed(Oid relid)
{
	bool		found;

	if (!catalog_citus_present())
		return false;
	(void) citus_scalar("SELECT true FROM pg_catalog.pg_dist_partition"
						" WHERE logicalrelid OPERATOR(pg_catalog.=) $1"
						" AND partmethod OPERATOR(pg_catalog.=) 'h'",
						REGCLASSOID, ObjectIdGetDatum(relid), &found);
	return found;
}

/*
 * A shard is named after its table with "_<shard id>" appended (cut and
 * hashed when that is too long; the id stays at the end): the id names
 * the shard in pg_dist_shard, whose table must then be in the same schema.
 * Not there: the shard of a table being distributed, whose metadata (and
 * table) the worker does not see yet while the coordinator copies the
 * table's rows into it; its name without the suffix is its table's
 * (unless Citus had to cut it: docs/citus.md).
 */
char *
catalog_citus_shard_table_name(Oid relid)
{
	char	   *relname = get_rel_name(relid);
	char	   *us;
	char	   *end;
	int64		shardid;
	bool		found;
	Oid			parent;

	if (relname == NULL || !catalog_citus_present())
		return NULL;
	us = strrchr(relname, '_');
	if (us == NULL || us == relname || us[1] == '\0')
		return NULL;
	errno = 0;
	shardid = strtoi64(us + 1, &end, 10);
	if (*end != '\0' || errno != 0 || shardid <= 0)
		return NULL;
	parent = DatumGetObjectId(citus_scalar("SELECT logicalrelid::pg_catalog.oid FROM pg_catalog.pg_dist_shard"
										   " WHERE shardid OPERATOR(pg_catalog.=) $1",
										   INT8OID, Int64GetDatum(shardid), &found));
	if (!found)
		return pnstrdup(relname, us - relname);
	if (parent == relid || get_rel_namespace(parent) != get_rel_namespace(relid))
		return NULL;
	return get_rel_name(parent);
}

/*
 * The tables whose catalog rows this transaction changed on a Citus
 * coordinator: copied to the workers just before it commits (its
 * XACT_EVENT_PRE_COMMIT, which runs before Citus's own, so before the
 * distributed transaction's two-phase commit), so that a transaction that
 * rolls back leaves the workers' catalog as it was.  A copy that fails
 * (a worker down) fails the commit.  The rows copied are those the
 * transaction is about to commit, whatever its subtransactions did.  In
 * TopTransactionContext.
 */
static List *pending = NIL;
static bool callback_registered = false;

static void
publish_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PRE_PREPARE:
			if (pending == NIL)
				break;
			/* the statements and portals are done: SPI needs a snapshot of its own */
			PushActiveSnapshot(GetTransactionSnapshot());
			while (pending != NIL)
			{
				char	   *name = linitial(pending);

				pending = list_delete_first(pending);
				catalog_publish_now(name);
			}
			PopActiveSnapshot();
			break;
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PREPARE:
			pending = NIL;
			break;
		default:
			break;
	}
}

void
catalog_publish(const char *table_name)
{
	MemoryContext old;

	if (!catalog_citus_present() || catalog_publish_pending(table_name))
		return;
	if (!callback_registered)
	{
		RegisterXactCallback(publish_xact_callback, NULL);
		callback_registered = true;
	}
	old = MemoryContextSwitchTo(TopTransactionContext);
	pending = lappend(pending, pstrdup(table_name));
	MemoryContextSwitchTo(old);
}

bool
catalog_publish_pending(const char *table_name)
{
	ListCell   *lc;

	foreach(lc, pending)
	{
		if (strcmp((char *) lfirst(lc), table_name) == 0)
			return true;
	}
	return false;
}

/*
 * One transaction per worker replaces the table's rows there (the rows of
 * stdesign.indexes go with those of stdesign.tables: ON DELETE CASCADE).
 * run_command_on_workers commits on each worker at once, outside the
 * caller's transaction: catalog_publish therefore only notes the table,
 * and its rows are copied when the caller's transaction commits (see
 * publish_xact_callback).
 */
void
catalog_publish_now(const char *table_name)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(table_name)};
	int			res;
	Oid			save_userid;
	int			save_sec_context;

	if (!catalog_citus_present())
		return;

	/*
	 * As the catalog's owner, the only role (with superusers) the workers'
	 * catalog accepts writes from (docs/security.md): the change itself
	 * was checked on this node.  Not a restricted operation: Citus opens
	 * its connections as the current user; the statements are fixed and
	 * run nothing of the caller's.
	 */
	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(catalog_owner(), save_sec_context | SECURITY_LOCAL_USERID_CHANGE);
	SPI_connect();
	res = SPI_execute_with_args(
								"SELECT w.nodename, w.nodeport, w.result"
								" FROM pg_catalog.run_command_on_workers(pg_catalog.format("
								"'BEGIN; DELETE FROM stdesign.tables WHERE table_name OPERATOR(pg_catalog.=) %L;"
								" INSERT INTO stdesign.tables SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::stdesign.tables, %L);"
								" INSERT INTO stdesign.indexes SELECT * FROM pg_catalog.jsonb_populate_recordset(NULL::stdesign.indexes, %L);"
								" COMMIT',"
								" $1,"
								" (SELECT COALESCE(pg_catalog.jsonb_agg(t), '[]') FROM stdesign.tables AS t"
								"   WHERE t.table_name OPERATOR(pg_catalog.=) $1),"
								" (SELECT COALESCE(pg_catalog.jsonb_agg(i), '[]') FROM stdesign.indexes AS i"
								"   WHERE i.table_name OPERATOR(pg_catalog.=) $1))) AS w"
								" WHERE NOT w.success",
								1, types, values, NULL, false, 0);
	if (res != SPI_OK_SELECT)
		st_internal_error("could not copy the catalog rows of table %s to the Citus workers", table_name);
	if (SPI_processed > 0)
	{
		char	   *node = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		char	   *port = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
		char	   *why = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3);

		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("could not copy the catalog rows of table %s to Citus worker %s:%s",
						table_name, node ? node : "?", port ? port : "?"),
				 errdetail("%s", why ? why : "no message")));
	}
	SPI_finish();
	SetUserIdAndSecContext(save_userid, save_sec_context);
}
