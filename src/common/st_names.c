/*-------------------------------------------------------------------------
 *
 * st_names.c
 *		st_first_duplicate: the first name of a request's list that repeats
 *		an earlier one, in O(n log n).
 *
 * Requests carry lists whose length DynamoDB does not bound by itself
 * (AttributeDefinitions, GlobalSecondaryIndexUpdates); checking each
 * element against every earlier one took minutes for 50,000 elements, and
 * never looked at statement_timeout.  Sorting the names (with their
 * positions) finds the same first repeat: the smallest position that
 * repeats an earlier name.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "miscadmin.h"

#include "st_common.h"

typedef struct NamePos
{
	const char *name;
	int			pos;
} NamePos;

static int
name_pos_cmp(const void *a, const void *b)
{
	const NamePos *x = (const NamePos *) a;
	const NamePos *y = (const NamePos *) b;
	int			c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int
st_first_duplicate(const char *const *names, int n)
{
	NamePos    *sorted;
	int			first = -1;

	if (n < 2)
		return -1;
	sorted = palloc(sizeof(NamePos) * n);
	for (int i = 0; i < n; i++)
	{
		sorted[i].name = names[i];
		sorted[i].pos = i;
	}
	CHECK_FOR_INTERRUPTS();
	qsort(sorted, n, sizeof(NamePos), name_pos_cmp);
	for (int i = 1; i < n; i++)
	{
		/* in a run of equal names, the second is the earliest repeat */
		if (strcmp(sorted[i].name, sorted[i - 1].name) == 0 &&
			(i < 2 || strcmp(sorted[i - 1].name, sorted[i - 2].name) != 0) &&
			(first < 0 || sorted[i].pos < first))
			first = sorted[i].pos;
	}
	pfree(sorted);
	return first;
}
