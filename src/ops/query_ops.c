/*-------------------------------------------------------------------------
 *
 * query_ops.c
 *		Query: one partition of a table or index, in sort-key order.
 *
 * The key condition becomes a range on the sort key: = is [v, v], < and <=
 * an upper bound, > and >= a lower one, BETWEEN both, and begins_with(p) the
 * range [p, successor(p)) where successor(p) is the smallest byte string
 * greater than every string that starts with p.  Since the comparison is
 * by bytes (S under COLLATE "C", B as bytea), this is exact for UTF-8 and
 * for binary, and the index range scan reads only matching items.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/jsonb.h"

#include "expr/expr.h"
#include "item/av_jsonb.h"
#include "item_ops.h"
#include "traffic.h"

const StKeyDef *
ops_query_pk(const StQuerySpec *q)
{
	return q->index ? &q->index->pk : &q->table->pk;
}

const StKeyDef *
ops_query_sk(const StQuerySpec *q)
{
	return q->index ? &q->index->sk : &q->table->sk;
}

/*
 * The exclusive upper bound of begins_with(prefix): drop trailing 0xFF bytes
 * and increment the last remaining byte.  False when there is none (the
 * prefix is all 0xFF): then every greater key matches.
 */
static bool
prefix_successor(const Av *prefix, Av **out)
{
	int			len = prefix->len;

	while (len > 0 && (unsigned char) prefix->str[len - 1] == 0xFF)
		len--;
	if (len == 0)
		return false;
	*out = av_new_str(prefix->type, prefix->str, len);
	(*out)->str[len - 1] = (char) ((unsigned char) (*out)->str[len - 1] + 1);
	return true;
}

static void
check_operand(const Av *v, const StKeyDef *def)
{
	if (v->type != def->type)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: Condition parameter type does not match schema type");
}

/* Fill the sort-key part of a range from the key condition. */
static void
sort_range(const StQuerySpec *q, StQueryRange *r)
{
	const StKeyDef *sk = ops_query_sk(q);
	Av		   *succ;

	r->lower_kind = r->upper_kind = ST_BOUND_NONE;
	if (q->sort_op == ST_SORT_NONE)
		return;
	if (sk->name == NULL)
		st_error(ST_ERR_VALIDATION, "Query key condition not supported");
	check_operand(q->sort1, sk);
	switch (q->sort_op)
	{
		case ST_SORT_EQ:
			r->lower_kind = r->upper_kind = ST_BOUND_INCLUSIVE;
			r->lower = r->upper = storage_key_datum(q->sort1);
			break;
		case ST_SORT_LT:
		case ST_SORT_LE:
			r->upper_kind = q->sort_op == ST_SORT_LT ? ST_BOUND_EXCLUSIVE : ST_BOUND_INCLUSIVE;
			r->upper = storage_key_datum(q->sort1);
			break;
		case ST_SORT_GT:
		case ST_SORT_GE:
			r->lower_kind = q->sort_op == ST_SORT_GT ? ST_BOUND_EXCLUSIVE : ST_BOUND_INCLUSIVE;
			r->lower = storage_key_datum(q->sort1);
			break;
		case ST_SORT_BETWEEN:
			check_operand(q->sort2, sk);
			if (av_compare_scalar(q->sort1, q->sort2) > 0)
				st_error(ST_ERR_VALIDATION,
						 "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {%s:%s}, upper bound operand: AttributeValue: {%s:%s}",
						 av_type_name(q->sort1->type), q->sort1->type == AV_B ? "<binary>" : q->sort1->str,
						 av_type_name(q->sort2->type), q->sort2->type == AV_B ? "<binary>" : q->sort2->str);
			r->lower_kind = r->upper_kind = ST_BOUND_INCLUSIVE;
			r->lower = storage_key_datum(q->sort1);
			r->upper = storage_key_datum(q->sort2);
			break;
		case ST_SORT_BEGINS_WITH:
			if (sk->type == AV_N)
				st_error(ST_ERR_VALIDATION,
						 "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N");
			r->lower_kind = ST_BOUND_INCLUSIVE;
			r->lower = storage_key_datum(q->sort1);
			if (prefix_successor(q->sort1, &succ))
			{
				r->upper_kind = ST_BOUND_EXCLUSIVE;
				r->upper = storage_key_datum(succ);
			}
			break;
		default:
			break;
	}
}

/* ---------- multi-attribute GSI keys ---------- */

ExprKeyOp
ops_query_key_op(StSortOp op)
{
	switch (op)
	{
		case ST_SORT_LT:
			return EXPR_KEY_LT;
		case ST_SORT_LE:
			return EXPR_KEY_LE;
		case ST_SORT_GT:
			return EXPR_KEY_GT;
		case ST_SORT_GE:
			return EXPR_KEY_GE;
		case ST_SORT_BETWEEN:
			return EXPR_KEY_BETWEEN;
		case ST_SORT_BEGINS_WITH:
			return EXPR_KEY_BEGINS_WITH;
		default:
			return EXPR_KEY_EQ;
	}
}

static StSortOp
multi_sort_op(ExprKeyOp op)
{
	static const StSortOp ops[] = {ST_SORT_EQ, ST_SORT_LT, ST_SORT_LE, ST_SORT_GT, ST_SORT_GE,
	ST_SORT_BETWEEN, ST_SORT_BEGINS_WITH};

	return ops[op];
}

/*
 * The query rules of a multi-attribute key (DynamoDB Developer Guide,
 * "Multi-attribute keys pattern"): every partition-key attribute with =;
 * sort-key attributes left to right, none skipped, with = up to the last
 * one used, which may also have <, <=, >, >=, BETWEEN or begins_with.  A
 * missing attribute is named as DynamoDB names a missing key ("Query
 * condition missed key schema element"); another shape gets its "Query key
 * condition not supported", with the rule it breaks.
 */
void
ops_query_set_multi_condition(StQuerySpec *q, const ExprKeyConditionMulti *m)
{
	const StIndex *ix = q->index;
	int			last = -1;

	for (int i = 0; i < ix->npk; i++)
	{
		if (!m->has[i])
			st_error(ST_ERR_VALIDATION, "Query condition missed key schema element: %s", ix->keys[i].name);
		if (m->op[i] != EXPR_KEY_EQ)
			st_error(ST_ERR_VALIDATION, "Query key condition not supported");
		q->multi_values[i] = m->value1[i];
	}
	for (int i = ix->npk; i < ix->npk + ix->nsk; i++)
		if (m->has[i])
			last = i;
	for (int i = ix->npk; i <= last; i++)
	{
		if (!m->has[i])
			st_error(ST_ERR_VALIDATION, "Query condition missed key schema element: %s", ix->keys[i].name);
		if (i < last && m->op[i] != EXPR_KEY_EQ)
			st_error(ST_ERR_VALIDATION,
					 "Query key condition not supported: a condition other than = is only allowed on the last sort key attribute used (%s), not on %s",
					 ix->keys[last].name, ix->keys[i].name);
	}
	if (m->other_attribute)
	{
		for (int i = ix->npk; i < ix->npk + ix->nsk; i++)
			if (!m->has[i])
				st_error(ST_ERR_VALIDATION, "Query condition missed key schema element: %s", ix->keys[i].name);
		st_error(ST_ERR_VALIDATION, "Query key condition not supported");
	}
	q->multi = true;
	q->multi_neq = 0;
	q->sort_op = ST_SORT_NONE;
	for (int i = ix->npk; i <= last; i++)
	{
		if (i == last && m->op[i] != EXPR_KEY_EQ)
		{
			q->sort_op = multi_sort_op(m->op[i]);
			q->sort1 = m->value1[i];
			q->sort2 = m->value2[i];
			break;
		}
		q->multi_values[i] = m->value1[i];
		q->multi_neq++;
	}
}

/* The values of the key condition, as a typed map (StQueryRange.multi_eq). */
static Av *
multi_eq_map(const StQuerySpec *q)
{
	const StIndex *ix = q->index;
	Av		   *map = av_new(AV_M);

	for (int i = 0; i < ix->npk + q->multi_neq; i++)
	{
		const StKeyDef *k = &ix->keys[i];

		check_operand(q->multi_values[i], k);
		ops_check_key_value(q->multi_values[i], k, i < ix->npk, NULL);
		av_map_put_nocheck(map, k->name, strlen(k->name), av_copy(q->multi_values[i]));
	}
	return map;
}

void
ops_query_check_multi_start(const StQuerySpec *q)
{
	const StIndex *ix = q->index;

	for (int i = 0; i < ix->npk + q->multi_neq; i++)
	{
		const char *name = ix->keys[i].name;

		if (!av_equal(av_map_get(q->start->key, name, strlen(name)), q->multi_values[i]))
			st_error(ST_ERR_VALIDATION,
					 "The provided starting key is outside query boundaries based on provided conditions");
	}
}

/* A query's rows passed on, their sizes summed for the traffic counters. */
typedef struct CountedRows
{
	StRowCallback callback;
	void	   *arg;
	int64		bytes;
} CountedRows;

static bool
counted_row(Jsonb *item, void *arg)
{
	CountedRows *cr = arg;

	cr->bytes += av_stored_item_size(item);
	return cr->callback(item, cr->arg);
}

void
ops_query(const StQuerySpec *q, StRowCallback callback, void *arg)
{
	StQueryRange r;
	const StKeyDef *pk = ops_query_pk(q);

	/* a multi-attribute key is only queried through its own condition (Query, PartiQL); st_query takes one value */
	if (q->index && q->index->multi && !q->multi)
		st_error(ST_ERR_VALIDATION,
				 "The index %s has a key of several attributes: query it with a KeyConditionExpression (Query) or PartiQL; st_query reads only indexes with one partition-key attribute",
				 q->index->name);
	if (q->multi)
	{
		/* sort_range reads the index's sk: here the RANGE attribute bounded */
		StIndex		bounded = *q->index;
		StQuerySpec qb = *q;

		memset(&r, 0, sizeof(r));
		r.multi_eq = multi_eq_map(q);
		r.multi_neq = q->multi_neq;
		if (q->sort_op != ST_SORT_NONE)
		{
			bounded.sk = q->index->keys[q->index->npk + q->multi_neq];
			qb.index = &bounded;
			sort_range(&qb, &r);
		}
		r.backward = !q->forward;
		r.limit = q->limit;
		r.start = q->start;
		if (q->limit == 0)
			return;
		/* traffic is counted per partition: every HASH attribute's value */
		if (ops_traffic_on() && !q->uncounted)
		{
			CountedRows cr = {callback, arg, 0};

			storage_query(q->table, q->index, &r, counted_row, &cr);
			ops_traffic_read(q->table, q->index, ops_index_partition(q->index, q->multi_values), cr.bytes);
			return;
		}
		storage_query(q->table, q->index, &r, callback, arg);
		return;
	}
	check_operand(q->pk, pk);
	ops_check_key_value(q->pk, pk, true, NULL);
	memset(&r, 0, sizeof(r));
	r.pk = storage_key_datum(q->pk);
	sort_range(q, &r);
	r.backward = !q->forward;
	r.limit = q->limit;
	r.start = q->start;
	if (q->limit == 0)
		return;
	if (ops_traffic_on() && !q->uncounted)
	{
		CountedRows cr = {callback, arg, 0};

		storage_query(q->table, q->index, &r, counted_row, &cr);
		ops_traffic_read(q->table, q->index, q->pk, cr.bytes);
		return;
	}
	storage_query(q->table, q->index, &r, callback, arg);
}

/*
 * A key attribute of ExclusiveStartKey as a Datum of its key column's type,
 * for a position (0 when the key space has no such attribute).
 */
Datum
ops_start_key_datum(const Av *start, const StKeyDef *k)
{
	Av		   *v;

	if (k->name == NULL)
		return (Datum) 0;
	v = av_map_get(start, k->name, strlen(k->name));
	if (v == NULL || v->type != k->type)
		st_error(ST_ERR_VALIDATION,
				 "The provided starting key is invalid: The provided key element does not match the schema");
	return storage_key_datum(v);
}

char *
ops_query_sql(StTable *t, StIndex *ix, StBoundKind lower, StBoundKind upper, bool backward)
{
	StQueryRange r;

	memset(&r, 0, sizeof(r));
	r.lower_kind = lower;
	r.upper_kind = upper;
	r.backward = backward;
	return storage_query_sql(t, ix, &r);
}

/*
 * A Scan's rows passed on, counted per partition for the traffic counters.
 * DynamoDB serves a Scan partition by partition, each read charged to the
 * partition it reads; a scan here returns its items grouped by the
 * partition key of the key space scanned (the table's, or the index's:
 * storage_scan orders by it first), so a partition's read is counted when
 * the next partition begins, and the last one at the end: one read and the
 * read units of the summed sizes of its items per partition per call.  What
 * each item costs is its DynamoDB size (read from the stored jsonb, as a
 * Query's counting reads it), finding its partition key there and comparing
 * its bytes with the previous item's (bench/scan_traffic.sh).
 */
typedef struct ScanCount
{
	StRowCallback callback;
	void	   *arg;
	StTable    *t;
	StIndex    *ix;
	const StKeyDef *pkdef;
	char		type[2];		/* the key's type letter: S, N or B */
	MemoryContext cxt;			/* the caller's: rows come in a shorter one */
	char	   *cur;			/* the current partition key, as stored */
	int			curlen;
	int			cap;
	bool		have;			/* an item of the current partition was read */
	int64		bytes;
} ScanCount;

/* The partition key of the current run, counted with its bytes. */
static void
scan_count_flush(ScanCount *sc)
{
	Av		   *pk;

	if (!sc->have)
		return;
	if (sc->ix && sc->ix->npk > 1)
		pk = av_new_str(AV_S, sc->cur, sc->curlen);	/* ops_index_partition's text */
	else if (sc->pkdef->type == AV_B)
	{
		char	   *bytes;
		int			n;

		if (!av_base64_decode(sc->cur, sc->curlen, &bytes, &n))
			return;				/* not a key the table could hold: not counted */
		pk = av_new_str(AV_B, bytes, n);
	}
	else
		pk = av_new_str(sc->pkdef->type, sc->cur, sc->curlen);
	ops_traffic_read(sc->t, sc->ix, pk, sc->bytes);
	sc->have = false;
	sc->bytes = 0;
}

static bool
scan_counted_row(Jsonb *item, void *arg)
{
	ScanCount  *sc = arg;
	JsonbValue	vbuf;
	JsonbValue	sbuf;
	JsonbValue *attr;
	JsonbValue *key = NULL;
	const char *keytext = NULL;
	int			len = 0;

	if (sc->ix && sc->ix->npk > 1)
	{
		/* a partition of several HASH attributes: named as the counters name it */
		const Av   *part = ops_index_partition_of(sc->ix, av_item_from_stored(item));

		if (part)
		{
			keytext = part->str;
			len = part->len;
		}
	}
	else
	{
		attr = getKeyJsonValueFromContainer(&item->root, sc->pkdef->name, strlen(sc->pkdef->name), &vbuf);
		if (attr && attr->type == jbvBinary && JsonContainerIsObject(attr->val.binary.data))
			key = getKeyJsonValueFromContainer(attr->val.binary.data, sc->type, 1, &sbuf);
		if (key && key->type == jbvString)
		{
			keytext = key->val.string.val;
			len = key->val.string.len;
		}
	}
	if (keytext)
	{
		if (!sc->have || len != sc->curlen || memcmp(sc->cur, keytext, len) != 0)
		{
			scan_count_flush(sc);
			if (len > sc->cap)
			{
				sc->cap = Max(len, 2 * sc->cap);
				sc->cur = sc->cur ? repalloc(sc->cur, sc->cap) : MemoryContextAlloc(sc->cxt, sc->cap);
			}
			memcpy(sc->cur, keytext, len);
			sc->curlen = len;
			sc->have = true;
		}
		sc->bytes += av_stored_item_size(item);
	}
	return sc->callback(item, sc->arg);
}

/* storage_scan, its reads counted per partition when the counters are on. */
static void
scan_counted(StTable *t, StIndex *ix, const StScanRange *r, StRowCallback callback, void *arg)
{
	ScanCount	sc;

	if (!ops_traffic_on())
	{
		storage_scan(t, ix, r, callback, arg);
		return;
	}
	memset(&sc, 0, sizeof(sc));
	sc.callback = callback;
	sc.arg = arg;
	sc.cxt = CurrentMemoryContext;
	sc.t = t;
	sc.ix = ix;
	sc.pkdef = ix ? &ix->pk : &t->pk;
	sc.type[0] = av_type_name(sc.pkdef->type)[0];
	storage_scan(t, ix, r, scan_counted_row, &sc);
	scan_count_flush(&sc);
}

void
ops_scan_range(StTable *t, StIndex *ix, const StScanRange *range,
			   StRowCallback callback, void *arg)
{
	if (range->limit == 0)
		return;
	scan_counted(t, ix, range, callback, arg);
}

static void
scan_all(StTable *t, StIndex *ix, int64 limit, bool counted, StRowCallback callback, void *arg)
{
	StScanRange r;

	if (limit == 0)
		return;
	memset(&r, 0, sizeof(r));
	r.limit = limit;
	r.total_segments = 1;
	if (counted)
		scan_counted(t, ix, &r, callback, arg);
	else
		storage_scan(t, ix, &r, callback, arg);
}

void
ops_scan(StTable *t, StIndex *ix, int64 limit, StRowCallback callback, void *arg)
{
	scan_all(t, ix, limit, true, callback, arg);
}

void
ops_scan_uncounted(StTable *t, StIndex *ix, int64 limit, StRowCallback callback, void *arg)
{
	scan_all(t, ix, limit, false, callback, arg);
}

/* The segment of a parallel Scan that holds partition key pk. */
int
ops_segment_of(StTable *t, Datum pk, int total_segments)
{
	return storage_segment_of(t, pk, total_segments);
}

/* ---------- the key of an item in a key space ---------- */

static void
copy_key_attr(Av *dst, const Av *item, const StKeyDef *k)
{
	Av		   *v;

	if (k->name == NULL || av_map_get(dst, k->name, strlen(k->name)))
		return;
	v = av_map_get(item, k->name, strlen(k->name));
	if (v)
		av_map_put_nocheck(dst, k->name, strlen(k->name), av_copy(v));
}

/*
 * The key of an item in the key space read (LastEvaluatedKey, a page's
 * position): the table's key attributes, plus the index's, each once.
 */
Av *
ops_item_key(StTable *t, StIndex *ix, const Av *item)
{
	Av		   *key = av_new(AV_M);

	copy_key_attr(key, item, &t->pk);
	copy_key_attr(key, item, &t->sk);
	for (int i = 0; ix && i < ix->npk + ix->nsk; i++)
		copy_key_attr(key, item, &ix->keys[i]);
	return key;
}

/* ---------- the partition of an index ---------- */

const Av *
ops_index_partition(const StIndex *ix, const Av *const *values)
{
	Av		   *list;
	Jsonb	   *jb;
	char	   *text;

	for (int i = 0; i < ix->npk; i++)
		if (values[i] == NULL || !av_type_is_scalar(values[i]->type))
			return NULL;
	if (ix->npk == 1)
		return values[0];
	list = av_new(AV_L);
	for (int i = 0; i < ix->npk; i++)
	{
		const Av   *v = values[i];

		if (v->type == AV_B)
		{
			int			len;
			char	   *s = av_base64_encode(v->str, v->len, &len);

			av_append(list, av_new_str(AV_S, s, len));
		}
		else
			av_append(list, av_new_str(AV_S, v->str, v->len));
	}
	jb = av_value_to_jsonb(list, false);
	text = JsonbToCString(NULL, &jb->root, VARSIZE(jb));
	return av_new_str(AV_S, text, strlen(text));
}

const Av *
ops_index_partition_of(const StIndex *ix, const Av *item)
{
	const Av   *values[ST_MAX_INDEX_HASH_KEYS];

	if (item == NULL)
		return NULL;
	for (int i = 0; i < ix->npk; i++)
		values[i] = av_map_get(item, ix->keys[i].name, strlen(ix->keys[i].name));
	return ops_index_partition(ix, values);
}
