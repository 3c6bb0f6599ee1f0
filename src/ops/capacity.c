/*-------------------------------------------------------------------------
 *
 * capacity.c
 *		ConsumedCapacity by DynamoDB's documented rules.
 *
 * Units are counted in halves, as integers, so that the sums are exact and
 * 0.5 (an eventually consistent read of a small item) prints as it should.
 *
 * Reads: the bytes read are rounded up to 4 KB units (a miss still costs
 * one unit); an eventually consistent read costs half, a transactional
 * read twice.  Query and Scan pass the summed size of the items they read,
 * BatchGetItem and TransactGetItems one call per item, so the rounding
 * happens where DynamoDB does it.
 *
 * Writes: the larger of the old and the new item, rounded up to 1 KB units
 * (at least one), doubled in a transaction.  Each secondary index then
 * costs what its own entry costs: an item entering or leaving the index is
 * one write of the projected entry; an item whose index key changes is a
 * delete and a put; an item that stays with the same index key costs one
 * write when its projected attributes change, and nothing otherwise.  The
 * projected entry holds the table's and the index's key attributes, plus
 * every attribute (ALL) or the NonKeyAttributes (INCLUDE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "capacity.h"

#define READ_UNIT_BYTES 4096
#define WRITE_UNIT_BYTES 1024

/* What one table, or one of its indexes, consumed: in half units. */
typedef struct CapUse
{
	int64		read;
	int64		write;
	bool		touched;		/* reported even when zero */
} CapUse;

typedef struct CapIndex
{
	char	   *name;
	bool		is_local;
	CapUse		use;
} CapIndex;

typedef struct CapTable
{
	char	   *name;
	bool		transactional;	/* report Read/WriteCapacityUnits too */
	CapUse		table;
	int			nindexes;
	CapIndex   *indexes;
} CapTable;

struct StCapacity
{
	StCapacityMode mode;
	int			ntables;
	int			cap;
	CapTable   *tables;
};

StCapacity *
ops_capacity_new(StCapacityMode mode)
{
	StCapacity *c = palloc0(sizeof(StCapacity));

	c->mode = mode;
	return c;
}

bool
ops_capacity_wanted(const StCapacity *c)
{
	return c != NULL && c->mode != ST_CAPACITY_NONE;
}

/* The entry of table t, created on first use (tables keep request order). */
static CapTable *
table_entry(StCapacity *c, StTable *t)
{
	CapTable   *e;

	for (int i = 0; i < c->ntables; i++)
		if (strcmp(c->tables[i].name, t->name) == 0)
			return &c->tables[i];
	if (c->ntables == c->cap)
	{
		c->cap = Max(4, c->cap * 2);
		c->tables = c->tables ? repalloc(c->tables, sizeof(CapTable) * c->cap)
			: palloc(sizeof(CapTable) * c->cap);
	}
	e = &c->tables[c->ntables++];
	memset(e, 0, sizeof(*e));
	/* copies: the catalog entry may be rebuilt before the response is */
	e->name = pstrdup(t->name);
	e->nindexes = t->nindexes;
	e->indexes = palloc0(sizeof(CapIndex) * Max(1, t->nindexes));
	for (int i = 0; i < t->nindexes; i++)
	{
		e->indexes[i].name = pstrdup(t->indexes[i].name);
		e->indexes[i].is_local = t->indexes[i].is_local;
	}
	return e;
}

static CapUse *
index_use(CapTable *e, StIndex *ix)
{
	for (int i = 0; i < e->nindexes; i++)
		if (strcmp(e->indexes[i].name, ix->name) == 0)
			return &e->indexes[i].use;
	return &e->table;			/* not reached: ix belongs to the table */
}

/* Whole units of `unit` bytes for `bytes` (at least one), in halves. */
static int64
halves(int64 bytes, int64 unit)
{
	int64		units = (bytes + unit - 1) / unit;

	return 2 * Max(units, 1);
}

void
ops_capacity_read(StCapacity *c, StTable *t, StIndex *ix, int64 bytes, bool consistent,
			  bool transactional)
{
	CapTable   *e;
	CapUse	   *u;
	int64		h;

	if (c == NULL || c->mode == ST_CAPACITY_NONE)
		return;
	h = halves(bytes, READ_UNIT_BYTES);
	if (transactional)
		h *= 2;
	else if (!consistent)
		h /= 2;
	e = table_entry(c, t);
	e->transactional |= transactional;
	u = ix ? index_use(e, ix) : &e->table;
	u->read += h;
	u->touched = true;
	if (ix)
		e->table.touched = true;
}

/*
 * Items a local secondary index query fetched from its table: each item is
 * rounded up to 4 KB on its own (`units` is their sum), halved for an
 * eventually consistent read.
 */
void
ops_capacity_read_fetched(StCapacity *c, StTable *t, int64 units, bool consistent)
{
	CapTable   *e;
	int64		h;

	if (c == NULL || c->mode == ST_CAPACITY_NONE || units <= 0)
		return;
	h = consistent ? 2 * units : units;
	e = table_entry(c, t);
	e->table.read += h;
	e->table.touched = true;
}

/* The 4 KB read units of one item of `bytes` (at least one). */
int64
ops_capacity_read_units(int64 bytes)
{
	return halves(bytes, READ_UNIT_BYTES) / 2;
}

/* ---------- writes ---------- */

static bool
has_attr(const Av *item, const char *name)
{
	return name != NULL && av_map_get(item, name, strlen(name)) != NULL;
}

/* Is the item in the index (sparse: every key attribute of the index present)? */
static bool
in_index(const StIndex *ix, const Av *item)
{
	if (item == NULL)
		return false;
	for (int i = 0; i < ix->npk + ix->nsk; i++)
		if (!has_attr(item, ix->keys[i].name))
			return false;
	return true;
}

static void
copy_attr(Av *to, const Av *item, const char *name)
{
	Av		   *v;

	if (name == NULL || av_map_get(to, name, strlen(name)) != NULL)
		return;
	v = av_map_get(item, name, strlen(name));
	if (v)
		av_map_put_nocheck(to, name, strlen(name), v);
}

/* The index entry of an item: its keys and the projected attributes. */
static Av  *
project(const StTable *t, const StIndex *ix, const Av *item)
{
	Av		   *entry;

	if (ix->projection == ST_PROJECT_ALL)
		return (Av *) item;
	entry = av_new(AV_M);
	copy_attr(entry, item, t->pk.name);
	copy_attr(entry, item, t->sk.name);
	for (int i = 0; i < ix->npk + ix->nsk; i++)
		copy_attr(entry, item, ix->keys[i].name);
	if (ix->projection == ST_PROJECT_INCLUDE)
		for (int i = 0; i < ix->n_non_key; i++)
			copy_attr(entry, item, ix->non_key_attributes[i]);
	return entry;
}

int64
ops_index_entry_size(const StTable *t, const StIndex *ix, const Av *item)
{
	return in_index(ix, item) ? av_item_size(project(t, ix, item)) : -1;
}

static bool
same_attr(const Av *a, const Av *b, const char *name)
{
	if (name == NULL)
		return true;
	return av_equal(av_map_get(a, name, strlen(name)), av_map_get(b, name, strlen(name)));
}

/* Have both items the same index key (every key attribute of the index equal)? */
static bool
same_keys(const StIndex *ix, const Av *a, const Av *b)
{
	for (int i = 0; i < ix->npk + ix->nsk; i++)
		if (!same_attr(a, b, ix->keys[i].name))
			return false;
	return true;
}

/* The half units one index spends on a change from old_item to new_item. */
int64
ops_capacity_index_write_halves(const StTable *t, const StIndex *ix, const Av *old_item, const Av *new_item)
{
	bool		was = in_index(ix, old_item);
	bool		is = in_index(ix, new_item);
	Av		   *old_entry = was ? project(t, ix, old_item) : NULL;
	Av		   *new_entry = is ? project(t, ix, new_item) : NULL;

	if (!was && !is)
		return 0;
	if (!was)
		return halves(av_item_size(new_entry), WRITE_UNIT_BYTES);
	if (!is)
		return halves(av_item_size(old_entry), WRITE_UNIT_BYTES);
	if (!same_keys(ix, old_item, new_item))
		return halves(av_item_size(old_entry), WRITE_UNIT_BYTES) +
			halves(av_item_size(new_entry), WRITE_UNIT_BYTES);
	if (av_equal(old_entry, new_entry))
		return 0;
	return halves(Max(av_item_size(old_entry), av_item_size(new_entry)), WRITE_UNIT_BYTES);
}

int64
ops_capacity_index_insert_halves(const StTable *t, const StIndex *ix, const Av *new_item,
								 int64 new_size)
{
	if (!in_index(ix, new_item))
		return 0;
	if (ix->projection != ST_PROJECT_ALL)
		new_size = av_item_size(project(t, ix, new_item));
	return halves(new_size, WRITE_UNIT_BYTES);
}

void
ops_capacity_write(StCapacity *c, StTable *t, const Av *old_item, const Av *new_item,
			   bool transactional)
{
	CapTable   *e;
	int64		bytes = 0;
	int			mult = transactional ? 2 : 1;

	if (c == NULL || c->mode == ST_CAPACITY_NONE)
		return;
	e = table_entry(c, t);
	e->transactional |= transactional;
	if (old_item)
		bytes = av_item_size(old_item);
	if (new_item)
		bytes = Max(bytes, av_item_size(new_item));
	e->table.write += mult * halves(bytes, WRITE_UNIT_BYTES);
	e->table.touched = true;
	for (int i = 0; i < t->nindexes; i++)
	{
		int64		h = ops_capacity_index_write_halves(t, &t->indexes[i], old_item, new_item);

		if (h == 0)
			continue;
		e->indexes[i].use.write += mult * h;
		e->indexes[i].use.touched = true;
	}
}

/* ---------- the response ---------- */

static void
put_units(Av *map, const char *field, int64 h)
{
	char	   *text = psprintf("%.1f", h / 2.0);

	av_map_put_nocheck(map, field, strlen(field), av_new_str(AV_N, text, strlen(text)));
}

/* {"CapacityUnits": x, "ReadCapacityUnits"?: r, "WriteCapacityUnits"?: w} into map */
static void
put_use(Av *map, const CapUse *u, bool split)
{
	put_units(map, "CapacityUnits", u->read + u->write);
	if (split && u->read > 0)
		put_units(map, "ReadCapacityUnits", u->read);
	if (split && u->write > 0)
		put_units(map, "WriteCapacityUnits", u->write);
}

static Av  *
indexes_map(const CapTable *e, bool local, bool split)
{
	Av		   *m = av_new(AV_M);

	for (int i = 0; i < e->nindexes; i++)
	{
		const CapIndex *ix = &e->indexes[i];
		Av		   *one;

		if (ix->is_local != local || !ix->use.touched)
			continue;
		one = av_new(AV_M);
		put_use(one, &ix->use, split);
		av_map_put_nocheck(m, ix->name, strlen(ix->name), one);
	}
	return m;
}

static Av  *
table_result(const StCapacity *c, const CapTable *e)
{
	Av		   *r = av_new(AV_M);
	CapUse		total = e->table;

	for (int i = 0; i < e->nindexes; i++)
	{
		total.read += e->indexes[i].use.read;
		total.write += e->indexes[i].use.write;
	}
	av_map_put_nocheck(r, "TableName", 9, av_new_str(AV_S, e->name, strlen(e->name)));
	put_use(r, &total, e->transactional);
	if (c->mode == ST_CAPACITY_INDEXES)
	{
		Av		   *table = av_new(AV_M);
		Av		   *gsis = indexes_map(e, false, e->transactional);
		Av		   *lsis = indexes_map(e, true, e->transactional);

		put_use(table, &e->table, e->transactional);
		av_map_put_nocheck(r, "Table", 5, table);
		if (gsis->n > 0)
			av_map_put_nocheck(r, "GlobalSecondaryIndexes", 22, gsis);
		if (lsis->n > 0)
			av_map_put_nocheck(r, "LocalSecondaryIndexes", 21, lsis);
	}
	return r;
}

Av *
ops_capacity_result(StCapacity *c, bool as_list)
{
	Av		   *list;

	if (c == NULL || c->mode == ST_CAPACITY_NONE)
		return NULL;
	if (!as_list)
		return c->ntables > 0 ? table_result(c, &c->tables[0]) : NULL;
	list = av_new(AV_L);
	for (int i = 0; i < c->ntables; i++)
		av_append(list, table_result(c, &c->tables[i]));
	return list;
}
