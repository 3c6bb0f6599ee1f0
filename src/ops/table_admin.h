/*-------------------------------------------------------------------------
 *
 * table_admin.h
 *		CreateTable, DescribeTable, DeleteTable, and adding or dropping a
 *		global secondary index: the catalog rows, the relation, its indexes.
 *
 * Requests and descriptions are Av maps in DynamoDB's JSON shape (built
 * from plain JSON), so that st_create_table and st_api share them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_TABLE_ADMIN_H
#define ST_TABLE_ADMIN_H

#include "postgres.h"

#include "item/av.h"

/*
 * Create a table from a CreateTable request, CloudFormation Properties, or
 * a CloudFormation template holding one AWS::DynamoDB::Table; returns the
 * TableDescription.
 */
extern Av  *ops_table_create(const Av *request);

/*
 * The CreateTable request that ops_table_create reads in request: the
 * Properties of a CloudFormation resource or of a template's one table,
 * else request itself.
 */
extern const Av *ops_table_request_proper(const Av *request);

/* A ProvisionedThroughput's values within DynamoDB's bound (10^12), else an ERROR. */
extern void ops_check_throughput_bounds(const Av *pt);

/*
 * OnDemandThroughput of a table (index_name NULL) or of a global secondary
 * index, and WarmThroughput: DynamoDB's checks, nothing when absent
 * (table_admin.c says which).  on_demand: the table is PAY_PER_REQUEST.
 */
extern void ops_check_on_demand_throughput(const Av *odt, bool on_demand, const char *index_name);
extern void ops_check_warm_throughput(const Av *wt);

/*
 * The setting in force after `asked` (checked, or NULL) on top of `stored`
 * (or NULL): every member there, -1 for no maximum; warm throughput never
 * below DynamoDB's starting values nor below what it was.
 */
extern Av  *ops_merge_on_demand_throughput(const Av *stored, const Av *asked);
extern Av  *ops_merge_warm_throughput(const Av *stored, const Av *asked);

/* The TableDescription of a table (ResourceNotFoundException when absent). */
extern Av  *ops_table_describe(const char *name);

/*
 * stdesign.describe_exact_pages: DescribeTable counts a table of at most
 * this many pages exactly, a larger one from a sample of as many pages.
 */
#define OPS_DESCRIBE_EXACT_PAGES_DEFAULT 1280
extern int	ops_describe_exact_pages;

/*
 * The same without reading the items: ItemCount, TableSizeBytes and the
 * indexes' counts and sizes are 0 (for a caller that counts them itself).
 */
extern Av  *ops_table_describe_definition(const char *name);

/* Drop a table; returns its description as it was, TableStatus DELETING. */
extern Av  *ops_table_drop(const char *name);

/*
 * Add a GSI (a GlobalSecondaryIndexes element) with its attribute types;
 * existing items are indexed.  With inherit_throughput, an index of a
 * PROVISIONED table that gives no ProvisionedThroughput gets the table's.
 * `path` names the index in error messages, as UpdateTable's request does
 * ("globalSecondaryIndexUpdates.1.member.create").
 */
extern Av  *ops_table_add_gsi(const char *name, const Av *gsi, const Av *attribute_definitions,
						  bool inherit_throughput, const char *path);

/* Drop a GSI. */
extern void ops_table_drop_gsi(const char *name, const char *index_name);

/* ---------- table settings and tags (table_meta.c) ---------- */

/*
 * Store one setting of a table's definition (DeletionProtectionEnabled,
 * PointInTimeRecoverySpecification): the stored CreateTable request keeps
 * what UpdateTable and the like change since.
 */
extern void ops_table_set_option(const char *name, const char *key, const Av *value);

/* One stored setting of a table's definition, or NULL (a copy). */
extern Av  *ops_table_option(const char *name, const char *key);

/*
 * Tags of a table, by DynamoDB's rules and in its words (TagResource,
 * UntagResource, ListTagsOfResource): `tags` an AV_L of {"Key", "Value"}
 * maps, checked (ops_tags_check, also alone: DynamoDB checks the tags
 * before it looks for the resource) and stored (a key given again takes
 * the new value); `keys` an AV_L of strings, checked (ops_tag_keys_check)
 * and removed (absent ones are no error); the list: the tags in key order
 * after `start_after` (NULL: from the first), at most `limit` (0: all),
 * *more set when some are left.
 */
extern void ops_tags_check(const Av *tags);
extern void ops_tag_keys_check(const Av *keys);
extern void ops_tags_add(const char *name, const Av *tags);
extern void ops_tags_remove(const char *name, const Av *keys);
extern Av  *ops_tags_list(const char *name, const char *start_after, int limit, bool *more);

/*
 * Point-in-time recovery: the ContinuousBackupsDescription of a table, and
 * the setting changed (enabled, with a recovery period of 1 to 35 days).
 * stdesign keeps and describes the setting; restoring is Postgres's own
 * point-in-time recovery, not stdesign's.
 */
extern Av  *ops_continuous_backups(const char *name);
extern void ops_set_point_in_time_recovery(const char *name, bool enabled, int recovery_days);
/* After a change to a table's catalog rows: a distributed table's are copied to every worker. */
extern void ops_table_publish(const char *name);

/* Distribute a table over Citus's workers by its partition key; returns its number of shards. */
extern int	ops_table_distribute(const char *name, int shard_count);

#endif							/* ST_TABLE_ADMIN_H */
