/*-------------------------------------------------------------------------
 *
 * key_trigger.h
 *		The key columns of a row, as the stdesign.set_keys() trigger sets
 *		them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_KEY_TRIGGER_H
#define ST_KEY_TRIGGER_H

#include "postgres.h"

#include "utils/jsonb.h"
#include "utils/reltrigger.h"

/*
 * values[0] (pk) and, for a table with a sort key, values[1] (sk): the key
 * attributes of item named by the set_keys trigger's arguments.  Raises
 * DynamoDB's validation error for a missing or mistyped key attribute.
 */
extern void storage_set_keys_values(const Trigger *trigger, Jsonb *item, Datum *values);

#endif							/* ST_KEY_TRIGGER_H */
