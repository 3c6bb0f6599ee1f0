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

/* The TableDescription of a table (ResourceNotFoundException when absent). */
extern Av  *ops_table_describe(const char *name);

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

/* After a change to a table's catalog rows: a distributed table's are copied to every worker. */
extern void ops_table_publish(const char *name);

/* Distribute a table over Citus's workers by its partition key; returns its number of shards. */
extern int	ops_table_distribute(const char *name, int shard_count);

#endif							/* ST_TABLE_ADMIN_H */
