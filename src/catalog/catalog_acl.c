/*-------------------------------------------------------------------------
 *
 * catalog_acl.c
 *		Who may change a table, who may read its keys, and the catalog's
 *		writes, made with the rights of the catalog's owner.
 *
 * The catalog (stdesign.tables, indexes, tags, models) is not a grant: no
 * role but the extension's owner needs, or may use, write privileges on
 * it.  Table administration goes through stdesign's functions and st_api,
 * which check the caller's right first, as Postgres's own DDL does (the
 * ownership of the table's relation for every change of a table; CREATE on
 * schema stdesign_data for a new one) and then write the catalog rows as
 * the catalog's owner, as Postgres's catalog code writes pg_class whatever
 * the caller's privileges on it.  The statement-level trigger
 * stdesign.catalog_write_guard() on each catalog table refuses every other
 * write (INSERT, UPDATE, DELETE, TRUNCATE) by a role that is neither a
 * superuser nor has the owner's privileges, so that a write grant given by
 * an older README's advice cannot be used to rewrite another owner's table.
 *
 * Reads: a table's key values (the traffic counters) need SELECT on its
 * relation, and are refused to a role row-level security applies to there,
 * since counters cannot be filtered by a policy.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "utils/syscache.h"

#include "st_catalog.h"

Oid
catalog_relation_owner(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		st_internal_error("cache lookup failed for relation %u", relid);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

/* The catalog's owner: that of stdesign.tables (the extension's owner). */
Oid
catalog_owner(void)
{
	Oid			nsp = get_namespace_oid("stdesign", false);
	Oid			relid = get_relname_relid("tables", nsp);

	if (!OidIsValid(relid))
		st_internal_error("table stdesign.tables is missing");
	return catalog_relation_owner(relid);
}

void
catalog_check_owner(StTable *t)
{
	if (!st_class_ownercheck(t->relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, t->relname);
}

void
catalog_check_create(void)
{
	Oid			nsp = get_namespace_oid(ST_DATA_SCHEMA, false);
	AclResult	res = st_namespace_aclcheck(nsp, GetUserId(), ACL_CREATE);

	if (res != ACLCHECK_OK)
		aclcheck_error(res, OBJECT_SCHEMA, ST_DATA_SCHEMA);
}

bool
catalog_keys_readable(StTable *t)
{
	return pg_class_aclcheck(t->relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK &&
		check_enable_rls(t->relid, InvalidOid, true) != RLS_ENABLED;
}

void
catalog_check_keys_readable(StTable *t, const char *function)
{
	AclResult	res = pg_class_aclcheck(t->relid, GetUserId(), ACL_SELECT);

	if (res != ACLCHECK_OK)
		aclcheck_error(res, OBJECT_TABLE, t->relname);
	if (check_enable_rls(t->relid, InvalidOid, true) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("%s cannot show the keys of table %s: row-level security applies to you on its relation",
						function, t->name),
				 errdetail("The counts are kept per key value, unfiltered by the relation's policies."),
				 errhint("The relation's owner, a superuser or a role with BYPASSRLS may read them.")));
}

/*
 * Switch to the catalog's owner, with no way back to the caller's rights
 * for anything that runs meanwhile (SECURITY_RESTRICTED_OPERATION, as
 * Postgres's maintenance commands run a table owner's code).  An error
 * raised meanwhile is fine: aborting the (sub)transaction restores the
 * caller's user.
 */
void
catalog_as_owner_begin(CatalogAsOwner *save)
{
	GetUserIdAndSecContext(&save->userid, &save->sec_context);
	SetUserIdAndSecContext(catalog_owner(), save->sec_context |
						   SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
}

void
catalog_as_owner_end(CatalogAsOwner *save)
{
	SetUserIdAndSecContext(save->userid, save->sec_context);
}

/*
 * A trigger on a catalog table runs as the catalog's owner when stdesign
 * writes: one that a role hung there (TRIGGER on the table, granted by
 * mistake, GRANT ALL ON ALL TABLES IN SCHEMA stdesign) would run its code
 * with those rights.  So stdesign writes nothing while a catalog table has
 * an enabled trigger other than Postgres's own (its foreign keys) and the
 * write guard.
 */
void
catalog_check_triggers(void)
{
	static const char *const names[] = {"tables", "indexes", "tags", "models", "backups", "backup_items",
	"streams", "stream_records", "stream_shards", "stream_iterator_key", "stream_consumers",
	"stream_mappings", "stream_dead_letters"};
	Oid			nsp = get_namespace_oid("stdesign", false);

	/*
	 * The guard's OID is looked up before any relation is opened: a
	 * syscache lookup may process invalidations, which can rebuild the
	 * relcache entry and free the trigger descriptor being walked.
	 */
	Oid			guard = LookupFuncName(list_make2(makeString("stdesign"),
												  makeString("catalog_write_guard")),
									   0, NULL, true);

	for (int i = 0; i < (int) lengthof(names); i++)
	{
		Oid			relid = get_relname_relid(names[i], nsp);
		Relation	rel;
		TriggerDesc *td;

		if (!OidIsValid(relid))
			continue;			/* a 0.1.0 catalog: no tags nor models yet */
		rel = table_open(relid, AccessShareLock);
		td = rel->trigdesc;
		for (int j = 0; td && j < td->numtriggers; j++)
		{
			Trigger    *tg = &td->triggers[j];

			if (tg->tgisinternal || tg->tgenabled == TRIGGER_DISABLED ||
				(OidIsValid(guard) && tg->tgfoid == guard))
				continue;
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("stdesign does not write its catalog while table stdesign.%s has trigger \"%s\"",
							names[i], tg->tgname),
					 errdetail("The trigger would run as the catalog's owner."),
					 errhint("Drop the trigger, and revoke TRIGGER on the catalog tables from every role but their owner.")));
		}
		table_close(rel, AccessShareLock);
	}
}

uint64
catalog_write(const char *sql, int nargs, Oid *types, Datum *args, const char *nulls)
{
	CatalogAsOwner save;
	uint64		n;

	catalog_check_triggers();
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args(sql, nargs, types, args, nulls, false, 0) < 0)
		st_internal_error("could not update the catalog");
	n = SPI_processed;
	SPI_finish();
	catalog_as_owner_end(&save);
	return n;
}

/*
 * stdesign.catalog_write_guard(): BEFORE INSERT OR UPDATE OR DELETE OR
 * TRUNCATE FOR EACH STATEMENT on each catalog table.  The current user is
 * the catalog's owner when stdesign writes (catalog_write), a superuser
 * when pg_restore does or ALTER EXTENSION runs; anyone else is refused,
 * whatever was granted.
 */
PG_FUNCTION_INFO_V1(st_catalog_write_guard);
Datum
st_catalog_write_guard(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	Relation	rel;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("stdesign.catalog_write_guard() must be called as a trigger")));
	rel = trigdata->tg_relation;
	if (!superuser() && !has_privs_of_role(GetUserId(), rel->rd_rel->relowner))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table stdesign.%s: stdesign's catalog is written by stdesign's functions only",
						RelationGetRelationName(rel)),
				 errhint("Create, change and drop tables with st_create_table, st_create_gsi, st_update_ttl, st_tag_table, st_set_model, st_drop_table, st_api and the like: they check that you own the table.")));
	return PointerGetDatum(NULL);
}
