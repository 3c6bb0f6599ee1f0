/*-------------------------------------------------------------------------
 *
 * capacity.c
 *		ConsumedCapacity (being written).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "capacity.h"

struct StCapacity
{
	StCapacityMode mode;
};

StCapacity *
capacity_new(StCapacityMode mode)
{
	StCapacity *c = palloc0(sizeof(StCapacity));

	c->mode = mode;
	return c;
}

void
capacity_read(StCapacity *c, StTable *t, StIndex *ix, int64 bytes, bool consistent, bool transactional)
{
}

void
capacity_write(StCapacity *c, StTable *t, const Av *old_item, const Av *new_item, bool transactional)
{
}

Av *
capacity_result(StCapacity *c, bool as_list)
{
	return NULL;
}
