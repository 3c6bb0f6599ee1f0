/*-------------------------------------------------------------------------
 *
 * backup_ops.c
 *		On-demand backups (CreateBackup, DescribeBackup, ListBackups,
 *		DeleteBackup, RestoreTableFromBackup), by DynamoDB's API reference
 *		and its developer guide ("On-demand backup and restore").
 *
 * Storage: one row per backup in stdesign.backups, the items of every
 * backup in stdesign.backup_items keyed by backup_id (one relation for all
 * backups rather than one per backup: no DDL per backup, nothing for a
 * backup to leave behind, and pg_dump keeps them as extension data).  Both
 * are the catalog's: written and read by these functions as the catalog's
 * owner after the caller's right is checked, granted to no one.
 *
 * The copy is one statement (INSERT ... SELECT ... RETURNING, counted by
 * the statement around it), so it sees one snapshot of the table: what
 * DynamoDB calls a transactionally consistent backup.  BackupSizeBytes is
 * the sum of the items' sizes by DynamoDB's rules (stdesign.item_size),
 * the size DescribeTable gives.
 *
 * A Citus distributed table (docs/citus.md) has no snapshot of the whole
 * cluster: Citus reads each shard under its own.  Its copy first takes a
 * SHARE lock on the table's relation on the coordinator, through which
 * every write goes: the lock waits for the writes in flight, whose
 * commit (Citus's COMMIT PREPARED on every worker) completes before they
 * release their locks, and holds back new ones until the backup's
 * transaction ends, so that every shard is read in the same state.  A
 * restore into a distributed table (stdesign.citus_shard_count, as for
 * CreateTable) writes the items into the new table before distributing
 * it, by st_distribute_table's path: the shards' rows need their key
 * columns given, which the coordinator's relation computes itself.
 *
 * What a restore restores (RestoreTableFromBackup, API reference): the key
 * schema, attribute definitions, billing mode and throughput, the local
 * and global secondary indexes (or the overrides), the items.  Not
 * restored, as in DynamoDB ("You must manually set up the following on the
 * restored table: Auto scaling policies, IAM policies, Amazon CloudWatch
 * metrics and alarms, Tags, Stream settings, Time to Live (TTL)
 * settings"): tags, time to live, point-in-time recovery, deletion
 * protection; grants on the source relation (IAM's counterpart) neither.
 *
 * ARNs: arn:aws:dynamodb:<region>:<account>:table/<table>/backup/
 * <creation time in ms, 14 digits zero-padded>-<8 hex digits>, as the API
 * reference's and the AWS CLI's examples show them ("table/MusicCollection/
 * backup/01576616366715-b4e58d3a"), with the region and account of the
 * table ARNs (ST_ARN_PREFIX).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "port/pg_bswap.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "backup_ops.h"
#include "catalog/st_catalog.h"
#include "item/av_jsonb.h"
#include "storage/st_storage.h"
#include "table_admin.h"
#include "ttl_ops.h"

/* A backup's row, as read back. */
typedef struct BackupRow
{
	int64		id;
	char	   *arn;
	char	   *name;
	char	   *table_name;
	Oid			owner;
	char	   *created;		/* epoch seconds, 3 decimals */
	char	   *size;
	Av		   *source;			/* {SourceTableDetails, SourceTableFeatureDetails} */
	Av		   *definition;		/* the CreateTable request of a restore */
} BackupRow;

static void
put(Av *map, const char *name, Av *value)
{
	av_map_put_nocheck(map, name, strlen(name), value);
}

static Av  *
s_value(const char *s)
{
	return av_new_str(AV_S, s, strlen(s));
}

static Av  *
n_value(const char *s)
{
	return av_new_str(AV_N, s, strlen(s));
}

/* A member of a plain map copied to another, when present. */
static void
copy_member(Av *to, const Av *from, const char *name)
{
	const Av   *v = from ? av_map_get(from, name, strlen(name)) : NULL;

	if (v)
		put(to, name, av_copy(v));
}

/* stdesign.backups comes with 0.2.0: until ALTER EXTENSION stdesign UPDATE there are no backups. */
static void
check_catalog(void)
{
	Oid			nsp = get_namespace_oid("stdesign", true);

	if (!OidIsValid(nsp) || !OidIsValid(get_relname_relid("backups", nsp)))
		st_error_hint(ST_ERR_VALIDATION, "Run ALTER EXTENSION stdesign UPDATE.",
					  "On-demand backups need the catalog of stdesign 0.2.0");
}

/* ---------- CreateBackup ---------- */

/*
 * The CreateTable request that restores the table as DescribeTable shows
 * it: key schema, attribute definitions, billing, throughput, indexes.
 */
static Av  *
restore_definition(const Av *described)
{
	Av		   *req = av_new(AV_M);
	const Av   *bms = av_map_get(described, "BillingModeSummary", 18);
	const Av   *mode = bms ? av_map_get(bms, "BillingMode", 11) : NULL;
	bool		on_demand = mode && mode->type == AV_S && strcmp(mode->str, "PAY_PER_REQUEST") == 0;
	static const char *const kinds[2] = {"GlobalSecondaryIndexes", "LocalSecondaryIndexes"};

	copy_member(req, described, "AttributeDefinitions");
	copy_member(req, described, "KeySchema");
	put(req, "BillingMode", s_value(on_demand ? "PAY_PER_REQUEST" : "PROVISIONED"));
	if (!on_demand)
	{
		const Av   *pt = av_map_get(described, "ProvisionedThroughput", 21);
		Av		   *out = av_new(AV_M);

		copy_member(out, pt, "ReadCapacityUnits");
		copy_member(out, pt, "WriteCapacityUnits");
		put(req, "ProvisionedThroughput", out);
	}
	for (int k = 0; k < 2; k++)
	{
		const Av   *list = av_map_get(described, kinds[k], strlen(kinds[k]));
		Av		   *out;

		if (list == NULL || list->type != AV_L)
			continue;
		out = av_new(AV_L);
		for (int i = 0; i < list->n; i++)
		{
			const Av   *ix = list->items[i];
			Av		   *el = av_new(AV_M);

			copy_member(el, ix, "IndexName");
			copy_member(el, ix, "KeySchema");
			copy_member(el, ix, "Projection");
			if (k == 0 && !on_demand)
			{
				const Av   *pt = av_map_get(ix, "ProvisionedThroughput", 21);
				Av		   *ptout = av_new(AV_M);

				copy_member(ptout, pt, "ReadCapacityUnits");
				copy_member(ptout, pt, "WriteCapacityUnits");
				put(el, "ProvisionedThroughput", ptout);
			}
			av_append(out, el);
		}
		put(req, kinds[k], out);
	}
	return req;
}

/*
 * SourceTableDetails and SourceTableFeatureDetails (API reference, the
 * shapes of those names) of the table as described, with the item count
 * and size of the copy.
 */
static Av  *
source_value(const Av *described, const char *table_name, const char *count, const char *size)
{
	Av		   *src = av_new(AV_M);
	Av		   *details = av_new(AV_M);
	Av		   *features = av_new(AV_M);
	const Av   *bms = av_map_get(described, "BillingModeSummary", 18);
	const Av   *pt = av_map_get(described, "ProvisionedThroughput", 21);
	Av		   *ptout = av_new(AV_M);
	Av		   *ttl = ops_ttl_describe(table_name);
	const Av   *ttl_status = av_map_get(ttl, "TimeToLiveStatus", 16);

	copy_member(details, described, "TableName");
	copy_member(details, described, "TableId");
	copy_member(details, described, "TableArn");
	put(details, "TableSizeBytes", n_value(size));
	copy_member(details, described, "KeySchema");
	if (av_map_get(described, "CreationDateTime", 16))
		put(details, "TableCreationDateTime", av_copy(av_map_get(described, "CreationDateTime", 16)));
	copy_member(ptout, pt, "ReadCapacityUnits");
	copy_member(ptout, pt, "WriteCapacityUnits");
	put(details, "ProvisionedThroughput", ptout);
	put(details, "ItemCount", n_value(count));
	put(details, "BillingMode",
		s_value(bms && av_map_get(bms, "BillingMode", 11) ? "PAY_PER_REQUEST" : "PROVISIONED"));

	/* the indexes as LocalSecondaryIndexInfo and GlobalSecondaryIndexInfo */
	for (int k = 0; k < 2; k++)
	{
		const char *kind = k == 0 ? "GlobalSecondaryIndexes" : "LocalSecondaryIndexes";
		const Av   *list = av_map_get(described, kind, strlen(kind));
		Av		   *out;

		if (list == NULL || list->type != AV_L)
			continue;
		out = av_new(AV_L);
		for (int i = 0; i < list->n; i++)
		{
			Av		   *el = av_new(AV_M);

			copy_member(el, list->items[i], "IndexName");
			copy_member(el, list->items[i], "KeySchema");
			copy_member(el, list->items[i], "Projection");
			if (k == 0)
			{
				const Av   *ixpt = av_map_get(list->items[i], "ProvisionedThroughput", 21);
				Av		   *ixout = av_new(AV_M);

				copy_member(ixout, ixpt, "ReadCapacityUnits");
				copy_member(ixout, ixpt, "WriteCapacityUnits");
				put(el, "ProvisionedThroughput", ixout);
			}
			av_append(out, el);
		}
		put(features, kind, out);
	}
	/* time to live as it was: described, not restored (see the banner) */
	if (ttl_status && ttl_status->type == AV_S && strcmp(ttl_status->str, "ENABLED") == 0)
		put(features, "TimeToLiveDescription", ttl);
	put(src, "SourceTableDetails", details);
	put(src, "SourceTableFeatureDetails", features);
	return src;
}

/* A new backup id: random, positive, its low 32 bits the ARN's hex part. */
static int64
new_backup_id(void)
{
	uint64		r;

	if (!pg_strong_random(&r, sizeof(r)))
		st_internal_error("could not generate a backup id");
	return (int64) (r & PG_INT64_MAX);
}

Av *
ops_backup_create(const char *table_name, const char *backup_name)
{
	StTable    *t;
	Av		   *described;
	int64		id = new_backup_id();
	TimestampTz now = GetCurrentTimestamp();
	int64		epoch_ms = now / 1000 + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000;
	char	   *arn;
	char	   *created;
	char	   *count;
	char	   *size;
	Av		   *details;
	CatalogAsOwner save;
	StringInfoData sql;
	MemoryContext caller = CurrentMemoryContext;

	check_catalog();
	t = catalog_lookup(table_name, true);
	/* CreateBackup of a missing table: TableNotFoundException (API reference, CreateBackup) */
	if (t == NULL)
		st_error(ST_ERR_TABLE_NOT_FOUND, "Table not found: %s", table_name);
	/* a backup reads every item: SELECT on the relation, no row-level security there */
	catalog_check_keys_readable(t, "CreateBackup");
	table_name = pstrdup(t->name);
	/* the definition only: the copy below counts the items and their size */
	described = ops_table_describe_definition(table_name);
	arn = psprintf("%s%s/backup/%014lld-%08x", ST_ARN_PREFIX, table_name,
				   (long long) epoch_ms, (unsigned int) (id & 0xffffffff));
	created = psprintf("%lld.%03d", (long long) (epoch_ms / 1000), (int) (epoch_ms % 1000));

	/* the copy: one statement, one snapshot; its count and size from the rows it wrote */
	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "WITH copied AS (INSERT INTO stdesign.backup_items (backup_id, item)"
					 " SELECT $1, item FROM %s%s RETURNING item)"
					 " SELECT pg_catalog.count(*)::pg_catalog.text,"
					 " COALESCE(pg_catalog.sum(stdesign.item_size(item)), 0)::pg_catalog.text FROM copied",
					 t->distributed ? "" : "ONLY ", t->qualified);
	/* a write of the catalog, as catalog_write's: no trigger of someone else's may run as its owner */
	catalog_check_triggers();
	/* a distributed table: one state of every shard (see the banner) */
	if (t->distributed)
		LockRelationOid(t->relid, ShareLock);
	catalog_as_owner_begin(&save);
	SPI_connect();
	{
		Oid			type = INT8OID;
		Datum		arg = Int64GetDatum(id);
		MemoryContext spi;

		if (SPI_execute_with_args(sql.data, 1, &type, &arg, NULL, false, 0) != SPI_OK_SELECT ||
			SPI_processed != 1)
			st_internal_error("could not copy the items of %s", table_name);
		spi = MemoryContextSwitchTo(caller);
		count = pstrdup(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1));
		size = pstrdup(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2));
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	catalog_as_owner_end(&save);

	{
		Oid			types[9] = {INT8OID, TEXTOID, TEXTOID, TEXTOID, OIDOID, INT8OID, INT8OID, JSONBOID, JSONBOID};
		Datum		values[9];

		values[0] = Int64GetDatum(id);
		values[1] = CStringGetTextDatum(arn);
		values[2] = CStringGetTextDatum(backup_name);
		values[3] = CStringGetTextDatum(table_name);
		values[4] = ObjectIdGetDatum(GetUserId());
		values[5] = Int64GetDatum(epoch_ms);
		values[6] = DirectFunctionCall1(int8in, CStringGetDatum(size));
		values[7] = JsonbPGetDatum(av_item_to_jsonb(source_value(described, table_name, count, size), false));
		values[8] = JsonbPGetDatum(av_item_to_jsonb(restore_definition(described), false));
		if (catalog_write("INSERT INTO stdesign.backups (backup_id, backup_arn, backup_name, table_name,"
						  " owner_role, owner_name, created_at, size_bytes, source, definition)"
						  " VALUES ($1, $2, $3, $4, $5,"
						  " (SELECT r.rolname FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) $5),"
						  " pg_catalog.to_timestamp($6::pg_catalog.float8 OPERATOR(pg_catalog./) 1000), $7, $8, $9)",
						  9, types, values, NULL) != 1)
			st_internal_error("could not record backup %s", arn);
	}
	CommandCounterIncrement();

	/* BackupDetails (API reference): the copy is done when CreateBackup answers */
	details = av_new(AV_M);
	put(details, "BackupArn", s_value(arn));
	put(details, "BackupName", s_value(backup_name));
	put(details, "BackupSizeBytes", n_value(size));
	put(details, "BackupStatus", s_value("AVAILABLE"));
	put(details, "BackupType", s_value("USER"));
	put(details, "BackupCreationDateTime", n_value(created));
	return details;
}

/* ---------- reading backups ---------- */

/*
 * The owner: owner_role while that role still has the name it had, else
 * nobody (0, which only a superuser's privileges cover).
 */
#define BACKUP_COLUMNS "backup_id, backup_arn, backup_name, table_name," \
	" CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) owner_role" \
	" AND r.rolname OPERATOR(pg_catalog.=) owner_name) THEN owner_role ELSE 0::pg_catalog.oid END," \
	" pg_catalog.round(EXTRACT(epoch FROM created_at), 3)::pg_catalog.text," \
	" size_bytes::pg_catalog.text, source, definition"

static BackupRow *
row_from_tuple(HeapTuple tup, TupleDesc desc)
{
	BackupRow  *row = palloc0(sizeof(BackupRow));
	bool		isnull;

	row->id = DatumGetInt64(SPI_getbinval(tup, desc, 1, &isnull));
	row->arn = SPI_getvalue(tup, desc, 2);
	row->name = SPI_getvalue(tup, desc, 3);
	row->table_name = SPI_getvalue(tup, desc, 4);
	row->owner = DatumGetObjectId(SPI_getbinval(tup, desc, 5, &isnull));
	row->created = SPI_getvalue(tup, desc, 6);
	row->size = SPI_getvalue(tup, desc, 7);
	row->source = av_map_from_jsonb(DatumGetJsonbP(SPI_getbinval(tup, desc, 8, &isnull)), false, "source");
	row->definition = av_map_from_jsonb(DatumGetJsonbP(SPI_getbinval(tup, desc, 9, &isnull)), false, "definition");
	return row;
}

/*
 * The backup of an ARN, when the caller may see it: a role with the
 * privileges of the role that made it (its members, superusers).  Any
 * other is "not found", as a backup of another account is, so that its
 * existence is not told either.
 */
static BackupRow *
find_backup(const char *arn)
{
	CatalogAsOwner save;
	Oid			type = TEXTOID;
	Datum		arg = CStringGetTextDatum(arn);
	Oid			me = GetUserId();
	BackupRow  *row = NULL;
	MemoryContext caller = CurrentMemoryContext;

	check_catalog();
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT " BACKUP_COLUMNS " FROM stdesign.backups"
							  " WHERE backup_arn OPERATOR(pg_catalog.=) $1",
							  1, &type, &arg, NULL, true, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.backups");
	if (SPI_processed == 1)
	{
		MemoryContext spi = MemoryContextSwitchTo(caller);

		row = row_from_tuple(SPI_tuptable->vals[0], SPI_tuptable->tupdesc);
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	catalog_as_owner_end(&save);
	/* DynamoDB's words: "Backup not found: <arn>" */
	if (row == NULL || !has_privs_of_role(me, row->owner))
		st_error(ST_ERR_BACKUP_NOT_FOUND, "Backup not found: %s", arn);
	return row;
}

/* BackupDetails of a row, with the status given. */
static Av  *
details_value(const BackupRow *row, const char *status)
{
	Av		   *d = av_new(AV_M);

	put(d, "BackupArn", s_value(row->arn));
	put(d, "BackupName", s_value(row->name));
	put(d, "BackupSizeBytes", n_value(row->size));
	put(d, "BackupStatus", s_value(status));
	put(d, "BackupType", s_value("USER"));
	put(d, "BackupCreationDateTime", n_value(row->created));
	return d;
}

static Av  *
description_value(const BackupRow *row, const char *status)
{
	Av		   *d = av_new(AV_M);

	put(d, "BackupDetails", details_value(row, status));
	copy_member(d, row->source, "SourceTableDetails");
	copy_member(d, row->source, "SourceTableFeatureDetails");
	return d;
}

Av *
ops_backup_describe(const char *backup_arn)
{
	return description_value(find_backup(backup_arn), "AVAILABLE");
}

/*
 * A time of the request in epoch seconds, kept within what to_timestamp
 * takes (4713 BC to 294276 AD): a bound beyond is beyond every backup.
 */
static double
clamp_epoch(double seconds)
{
	if (!(seconds > -2.0e11))
		return -2.0e11;
	if (seconds > 9.0e12)
		return 9.0e12;
	return seconds;
}

/*
 * A page of ListBackups without Limit: "at most 1 MB worth of items in a
 * page" (API reference, ListBackups), counted as the summaries' strings
 * and a bound on the rest of each one's JSON; and so at most as many rows
 * as the smallest summaries fill it with.
 */
#define LIST_PAGE_BYTES (1024 * 1024)
#define LIST_SUMMARY_OVERHEAD 256
#define LIST_PAGE_ROWS (LIST_PAGE_BYTES / LIST_SUMMARY_OVERHEAD)

Av *
ops_backup_list(const StBackupFilter *f, char **last_arn)
{
	int			page = f->limit > 0 ? f->limit : LIST_PAGE_ROWS;
	Size		bytes = 0;
	const char *previous = NULL;
	CatalogAsOwner save;
	Oid			types[6] = {OIDOID, TEXTOID, FLOAT8OID, FLOAT8OID, TEXTOID, FLOAT8OID};
	Datum		values[6];
	char		nulls[7] = "      ";
	const char *start_time = f->start_after ? strstr(f->start_after, "/backup/") : NULL;
	Av		   *list = av_new(AV_L);
	MemoryContext caller = CurrentMemoryContext;

	*last_arn = NULL;
	check_catalog();
	if (!f->user_type)
		return list;			/* SYSTEM, AWS_BACKUP: stdesign makes none */
	values[0] = ObjectIdGetDatum(GetUserId());
	values[1] = f->table_name ? CStringGetTextDatum(f->table_name) : (Datum) 0;
	nulls[1] = f->table_name ? ' ' : 'n';
	values[2] = Float8GetDatum(clamp_epoch(f->lower));
	nulls[2] = f->has_lower ? ' ' : 'n';
	values[3] = Float8GetDatum(clamp_epoch(f->upper));
	nulls[3] = f->has_upper ? ' ' : 'n';
	values[4] = f->start_after ? CStringGetTextDatum(f->start_after) : (Datum) 0;
	nulls[4] = f->start_after ? ' ' : 'n';
	/* the time in the ARN of ExclusiveStartBackupArn (when it has one): where a deleted one was */
	values[5] = Float8GetDatum(start_time ? clamp_epoch(strtod(start_time + 8, NULL) / 1000.0) : 0.0);
	nulls[5] = start_time ? ' ' : 'n';

	catalog_as_owner_begin(&save);
	SPI_connect();

	/*
	 * Oldest first, then by ARN; ExclusiveStartBackupArn continues after
	 * that backup's place in this order (one that is gone since: after its
	 * ARN's time, read from the ARN).  One more row than the limit says
	 * whether there is more.
	 */
	if (SPI_execute_with_args("SELECT " BACKUP_COLUMNS " FROM stdesign.backups b"
							  " WHERE (pg_catalog.pg_has_role($1, b.owner_role, 'USAGE')"
							  " AND EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) b.owner_role"
							  " AND r.rolname OPERATOR(pg_catalog.=) b.owner_name)"
							  " OR (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) $1))"
							  " AND ($2 IS NULL OR b.table_name OPERATOR(pg_catalog.=) $2)"
							  " AND ($3 IS NULL OR b.created_at OPERATOR(pg_catalog.>=) pg_catalog.to_timestamp($3))"
							  " AND ($4 IS NULL OR b.created_at OPERATOR(pg_catalog.<) pg_catalog.to_timestamp($4))"
							  " AND ($5 IS NULL OR (b.created_at, b.backup_arn) OPERATOR(pg_catalog.>)"
							  " (COALESCE((SELECT s.created_at FROM stdesign.backups s"
							  "   WHERE s.backup_arn OPERATOR(pg_catalog.=) $5),"
							  "   pg_catalog.to_timestamp($6), '-infinity'), $5))"
							  " ORDER BY b.created_at, b.backup_arn",
							  6, types, values, nulls, true, page + 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.backups");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		MemoryContext spi = MemoryContextSwitchTo(caller);
		BackupRow  *row;
		const Av   *details;
		const Av   *arn;
		Av		   *s;
		Size		size;

		row = row_from_tuple(SPI_tuptable->vals[i], SPI_tuptable->tupdesc);
		details = av_map_get(row->source, "SourceTableDetails", 18);
		arn = details ? av_map_get(details, "TableArn", 8) : NULL;
		size = LIST_SUMMARY_OVERHEAD + strlen(row->arn) + strlen(row->name) +
			strlen(row->table_name) + (arn && arn->type == AV_S ? strlen(arn->str) : 0);
		if (i == (uint64) page || (f->limit == 0 && i > 0 && bytes + size > LIST_PAGE_BYTES))
		{
			/* more to come: the last one listed is where the next page starts */
			*last_arn = pstrdup(previous);
			MemoryContextSwitchTo(spi);
			break;
		}
		bytes += size;
		/* BackupSummary (API reference) */
		s = av_new(AV_M);
		put(s, "TableName", s_value(row->table_name));
		copy_member(s, details, "TableId");
		copy_member(s, details, "TableArn");
		put(s, "BackupArn", s_value(row->arn));
		put(s, "BackupName", s_value(row->name));
		put(s, "BackupCreationDateTime", n_value(row->created));
		put(s, "BackupStatus", s_value("AVAILABLE"));
		put(s, "BackupType", s_value("USER"));
		put(s, "BackupSizeBytes", n_value(row->size));
		av_append(list, s);
		previous = row->arn;
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	catalog_as_owner_end(&save);
	return list;
}

/*
 * Take the backup's in-use lock, shared (a restore reads it) or exclusive
 * (a delete), for the rest of the transaction; one already held the other
 * way by another transaction is BackupInUseException (API reference:
 * "There is another ongoing conflicting backup control plane operation on
 * the table. The backup is either being created, deleted or restored to a
 * table.").
 */
static void
lock_backup(const BackupRow *row, bool exclusive)
{
	/*
	 * A lock on the backup as an object of class stdesign.backups: no SQL
	 * function takes a lock of that class, so no role can hold it to block
	 * another's restore or delete (an advisory lock's key anyone can take).
	 */
	Oid			backups = get_relname_relid("backups", get_namespace_oid("stdesign", false));

	if (!ConditionalLockDatabaseObject(backups, (Oid) (row->id & 0xffffffff),
									   (uint16) ((row->id >> 32) & 0xffff),
									   exclusive ? ExclusiveLock : ShareLock))
		st_error(ST_ERR_BACKUP_IN_USE, "Backup is in use: %s", row->arn);
}

/*
 * Is the backup still there, once its lock is held?  A DeleteBackup that
 * committed after the caller's statement began (find_backup read it by
 * that statement's snapshot) but before the lock was taken has left no
 * items: in READ COMMITTED the copy's own snapshot would see none, and
 * restore an empty table.  Read with a new snapshot (the transaction's
 * under REPEATABLE READ, where the items stay visible as well).
 */
static void
check_backup_kept(const BackupRow *row)
{
	CatalogAsOwner save;
	Oid			type = INT8OID;
	Datum		arg = Int64GetDatum(row->id);
	uint64		n;

	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT FROM stdesign.backups WHERE backup_id OPERATOR(pg_catalog.=) $1",
							  1, &type, &arg, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.backups");
	n = SPI_processed;
	SPI_finish();
	catalog_as_owner_end(&save);
	if (n != 1)
		st_error(ST_ERR_BACKUP_NOT_FOUND, "Backup not found: %s", row->arn);
}

Av *
ops_backup_delete(const char *backup_arn)
{
	BackupRow  *row = find_backup(backup_arn);
	Oid			type = INT8OID;
	Datum		arg = Int64GetDatum(row->id);

	lock_backup(row, true);
	(void) catalog_write("DELETE FROM stdesign.backup_items WHERE backup_id OPERATOR(pg_catalog.=) $1",
						 1, &type, &arg, NULL);
	/* a concurrent delete that committed first leaves nothing: not found, as after it */
	if (catalog_write("DELETE FROM stdesign.backups WHERE backup_id OPERATOR(pg_catalog.=) $1",
					  1, &type, &arg, NULL) != 1)
		st_error(ST_ERR_BACKUP_NOT_FOUND, "Backup not found: %s", backup_arn);
	CommandCounterIncrement();
	return description_value(row, "DELETED");
}

/* ---------- RestoreTableFromBackup ---------- */

/* Is the string `name` in the AV_L of strings `list`? */
static bool
list_has(const Av *list, const Av *name)
{
	for (int i = 0; i < list->n; i++)
		if (list->items[i]->type == AV_S && strcmp(list->items[i]->str, name->str) == 0)
			return true;
	return false;
}

/* Add the attribute names a KeySchema uses to `used` (an AV_L of S). */
static void
add_key_attributes(Av *used, const Av *key_schema)
{
	if (key_schema == NULL || key_schema->type != AV_L)
		return;
	for (int i = 0; i < key_schema->n; i++)
	{
		const Av   *name = key_schema->items[i]->type == AV_M
			? av_map_get(key_schema->items[i], "AttributeName", 13) : NULL;

		if (name && name->type == AV_S && !list_has(used, name))
			av_append(used, av_copy(name));
	}
}

/*
 * The CreateTable request of a restore: the backup's definition, the
 * overrides applied.  AttributeDefinitions keep the attributes the keys
 * still use (an index left out by an override takes its own with it);
 * an index override that uses one the backup has no definition of is
 * CreateTable's error.
 */
static Av  *
restore_request(const BackupRow *row, const char *target, const Av *ov)
{
	Av		   *req = av_copy(row->definition);
	const Av   *billing = ov ? av_map_get(ov, "BillingModeOverride", 19) : NULL;
	const Av   *pt = ov ? av_map_get(ov, "ProvisionedThroughputOverride", 29) : NULL;
	const Av   *gsis = ov ? av_map_get(ov, "GlobalSecondaryIndexOverride", 28) : NULL;
	const Av   *lsis = ov ? av_map_get(ov, "LocalSecondaryIndexOverride", 27) : NULL;
	const Av   *sse = ov ? av_map_get(ov, "SSESpecificationOverride", 24) : NULL;
	const Av   *mode;
	bool		on_demand;
	Av		   *used = av_new(AV_L);
	const Av   *defs;
	Av		   *kept = av_new(AV_L);
	const Av   *list;

	av_map_set(req, "TableName", 9, s_value(target));
	if (billing)
		av_map_set(req, "BillingMode", 11, av_copy(billing));
	if (pt)
		av_map_set(req, "ProvisionedThroughput", 21, av_copy(pt));
	if (gsis)
	{
		av_map_remove(req, "GlobalSecondaryIndexes", 22);
		if (gsis->type == AV_L && gsis->n > 0)
			put(req, "GlobalSecondaryIndexes", av_copy(gsis));
	}
	if (lsis)
	{
		av_map_remove(req, "LocalSecondaryIndexes", 21);
		if (lsis->type == AV_L && lsis->n > 0)
			put(req, "LocalSecondaryIndexes", av_copy(lsis));
	}
	if (sse)
		av_map_set(req, "SSESpecification", 16, av_copy(sse));

	/* throughput follows the billing mode: gone when on demand, the table's for an index without */
	mode = av_map_get(req, "BillingMode", 11);
	on_demand = mode && mode->type == AV_S && strcmp(mode->str, "PAY_PER_REQUEST") == 0;
	if (on_demand && pt == NULL)
		av_map_remove(req, "ProvisionedThroughput", 21);
	list = av_map_get(req, "GlobalSecondaryIndexes", 22);
	for (int i = 0; list && list->type == AV_L && i < list->n; i++)
	{
		Av		   *ix = list->items[i];

		if (ix->type != AV_M)
			continue;
		if (on_demand && !gsis)
			av_map_remove(ix, "ProvisionedThroughput", 21);
		else if (!on_demand && av_map_get(ix, "ProvisionedThroughput", 21) == NULL &&
				 av_map_get(req, "ProvisionedThroughput", 21) != NULL)
			put(ix, "ProvisionedThroughput", av_copy(av_map_get(req, "ProvisionedThroughput", 21)));
	}

	/* the attribute definitions the keys use */
	add_key_attributes(used, av_map_get(req, "KeySchema", 9));
	for (int k = 0; k < 2; k++)
	{
		list = av_map_get(req, k == 0 ? "GlobalSecondaryIndexes" : "LocalSecondaryIndexes", k == 0 ? 22 : 21);
		for (int i = 0; list && list->type == AV_L && i < list->n; i++)
			if (list->items[i]->type == AV_M)
				add_key_attributes(used, av_map_get(list->items[i], "KeySchema", 9));
	}
	defs = av_map_get(req, "AttributeDefinitions", 20);
	for (int i = 0; defs && defs->type == AV_L && i < defs->n; i++)
	{
		const Av   *name = av_map_get(defs->items[i], "AttributeName", 13);

		if (name && name->type == AV_S && list_has(used, name))
			av_append(kept, av_copy(defs->items[i]));
	}
	av_map_set(req, "AttributeDefinitions", 20, kept);
	return req;
}

Av *
ops_backup_restore(const char *backup_arn, const char *target_table, const Av *overrides)
{
	BackupRow  *row = find_backup(backup_arn);
	Av		   *request;
	Av		   *summary;
	Av		   *description;
	const Av   *details = av_map_get(row->source, "SourceTableDetails", 18);
	const Av   *source_arn = details ? av_map_get(details, "TableArn", 8) : NULL;
	StTable    *t;
	StringInfoData sql;
	Oid			type = INT8OID;
	Datum		arg = Int64GetDatum(row->id);
	int			shard_count;
	int			nest;

	lock_backup(row, false);
	check_backup_kept(row);
	/* RestoreTableFromBackup's own exception for a name in use (API reference) */
	if (catalog_lookup(target_table, true) != NULL)
		st_error(ST_ERR_TABLE_ALREADY_EXISTS, "Table already exists: %s", target_table);
	request = restore_request(row, target_table, overrides);
	/*
	 * CreateTable's path: its checks (CREATE on stdesign_data), relation,
	 * indexes; not yet distributed by stdesign.citus_shard_count (below).
	 */
	shard_count = st_citus_shard_count_guc;
	nest = NewGUCNestLevel();
	(void) set_config_option("stdesign.citus_shard_count", "0", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	(void) ops_table_create(request);
	AtEOXact_GUC(true, nest);

	/* RestoreSummary, kept with the table for DescribeTable (API reference, RestoreSummary) */
	summary = av_new(AV_M);
	put(summary, "SourceBackupArn", s_value(row->arn));
	if (source_arn)
		put(summary, "SourceTableArn", av_copy(source_arn));
	put(summary, "RestoreDateTime", n_value(row->created));
	put(summary, "RestoreInProgress", av_new_bool(false));
	ops_table_set_option(target_table, "RestoreSummary", summary);

	/* the items: the key columns and the indexes follow from each item, as for any write */
	t = catalog_lookup(target_table, false);
	initStringInfo(&sql);
	appendStringInfo(&sql, "INSERT INTO %s (item) SELECT item FROM stdesign.backup_items"
					 " WHERE backup_id OPERATOR(pg_catalog.=) $1", t->qualified);
	(void) catalog_write(sql.data, 1, &type, &arg, NULL);
	CommandCounterIncrement();
	/* distributed as CreateTable distributes, with its items (docs/citus.md) */
	if (shard_count > 0 && catalog_citus_present())
	{
		(void) storage_distribute(t, shard_count);
		CommandCounterIncrement();
	}
	description = ops_table_describe(target_table);
	return description;
}
