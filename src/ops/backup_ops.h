/*-------------------------------------------------------------------------
 *
 * backup_ops.h
 *		On-demand backups: CreateBackup, DescribeBackup, ListBackups,
 *		DeleteBackup and RestoreTableFromBackup.
 *
 * A backup is a row of stdesign.backups (what DescribeBackup tells, and
 * the CreateTable request a restore starts from) and the table's items,
 * copied into stdesign.backup_items by one INSERT ... SELECT in the
 * caller's transaction: one snapshot, so a transactionally consistent copy.
 * Backups are the extension's own rows, not the table's: DeleteTable
 * leaves them.  Who may do what is in docs/security.md ("Backups").
 *
 * Descriptions are plain Av maps in DynamoDB's JSON shapes.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_BACKUP_OPS_H
#define ST_BACKUP_OPS_H

#include "postgres.h"

#include "item/av.h"

/* The filters of ListBackups; has_lower/has_upper say whether the bounds are given. */
typedef struct StBackupFilter
{
	const char *table_name;		/* NULL: every table's */
	bool		has_lower;
	double		lower;			/* epoch seconds, inclusive */
	bool		has_upper;
	double		upper;			/* epoch seconds, exclusive */
	const char *start_after;	/* ExclusiveStartBackupArn, or NULL */
	int			limit;			/* 0: no limit */
	bool		user_type;		/* USER or ALL: stdesign's backups are all USER */
} StBackupFilter;

/* CreateBackup: back up the table now; returns BackupDetails. */
extern Av  *ops_backup_create(const char *table_name, const char *backup_name);

/* DescribeBackup: the BackupDescription of a backup the caller may see. */
extern Av  *ops_backup_describe(const char *backup_arn);

/*
 * ListBackups: the BackupSummaries the caller may see, oldest first;
 * *last_arn is the LastEvaluatedBackupArn (NULL when the list is complete).
 */
extern Av  *ops_backup_list(const StBackupFilter *filter, char **last_arn);

/* DeleteBackup: the BackupDescription, BackupStatus DELETED. */
extern Av  *ops_backup_delete(const char *backup_arn);

/*
 * RestoreTableFromBackup: a new table from the backup's definition with
 * the overrides of the request (a plain Av map: BillingModeOverride,
 * GlobalSecondaryIndexOverride, LocalSecondaryIndexOverride,
 * ProvisionedThroughputOverride, SSESpecificationOverride; NULL: none),
 * made by CreateTable's path and loaded with the backup's items; returns
 * its TableDescription with RestoreSummary.
 */
extern Av  *ops_backup_restore(const char *backup_arn, const char *target_table,
							   const Av *overrides);

#endif							/* ST_BACKUP_OPS_H */
