/*-------------------------------------------------------------------------
 *
 * ttl_ops.h
 *		Time to live: UpdateTimeToLive and DescribeTimeToLive (the setting,
 *		kept in stdesign.tables), and the expiry of items, one batch at a
 *		time, for the background worker (src/ttl) and st_expire.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_TTL_OPS_H
#define ST_TTL_OPS_H

#include "postgres.h"

#include "catalog/st_catalog.h"
#include "item/av.h"

/*
 * Turn time to live on or off for a table, with DynamoDB's rules; returns
 * the TimeToLiveSpecification {Enabled, AttributeName}.  Needs the
 * ownership of the table's relation, as UpdateTable does.
 */
extern Av  *ops_ttl_update(const char *table_name, const char *attribute, bool enabled);

/* The TimeToLiveDescription {TimeToLiveStatus, AttributeName?} of a table. */
extern Av  *ops_ttl_describe(const char *table_name);

/*
 * The table's expiry attribute when time to live is enabled on it, else
 * NULL (also when the catalog is still 0.1.0's).
 */
extern char *ops_ttl_attribute(const char *table_name);

/*
 * The tables with time to live enabled, in name order (a List of char *);
 * NIL when the catalog is still 0.1.0's.
 */
extern List *ops_ttl_tables(void);

/*
 * One batch of expiry: delete up to `limit` items of t whose attribute
 * `attribute` is a Number of epoch seconds in the past (and not more than
 * five years in the past, which DynamoDB ignores), each by the path of
 * DeleteItem with the condition that it is still expired once locked.
 * Items other transactions hold are skipped.  Returns the items deleted;
 * *more is set when the batch was full and something was deleted (there
 * may be more to delete).
 */
extern int64 ops_expire_batch(StTable *t, const char *attribute, int limit, bool *more);

#endif							/* ST_TTL_OPS_H */
