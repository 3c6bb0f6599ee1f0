/*-------------------------------------------------------------------------
 *
 * studio_pattern.c
 *		Access patterns: st_run_pattern, and what a pattern reads, measured
 *		on the stored items for the checks and the cost.
 *
 * A pattern runs through the same operations as st_get and st_query
 * (ops_get, ops_query, ops_scan; the filter and projection through the
 * expression code): its key templates are filled from the parameters and
 * the call is what the equivalent st_query would be, so it returns the same
 * items in the same form.  The model is cached per backend, so a call costs
 * no more than that st_query plus the filling of its templates.
 *
 * Measuring runs a pattern with parameters taken from its "example" when
 * that reads something, or else found among the stored items of the
 * entities it reads (the placeholders read back from keys that match its
 * templates, or from attributes of the same name, or from the sort key a
 * condition's template matches), keeping the calls that read something;
 * it keeps the parameters it measured with, and says why when they read
 * nothing.  It counts what DynamoDB would: items read and returned, bytes
 * read (the index's projected entries for KEYS_ONLY and INCLUDE indexes)
 * and the read units of ConsumedCapacity; for PutItem the write units of
 * the entity's stored items, secondary indexes included.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "expr/expr.h"
#include "item/av_jsonb.h"
#include "ops/capacity.h"
#include "ops/expr_ops.h"
#include "studio.h"

#define SAMPLE_ITEMS 2000		/* stored items looked at to find parameters */
#define SAMPLE_CALLS 20			/* parameter sets measured per pattern */
#define SAMPLE_CANDIDATES 60	/* sets found, of which those that read items are measured */
#define SCAN_SAMPLE 10000		/* items a Scan pattern is measured on */
#define MEASURE_MAX_ITEMS 10000 /* items one measured call reads at most */

static bool entity_in_multi_index(const StIndex *ix, StudioEntity *e);

/* ---------- filling a pattern ---------- */

/* A value of "values", its strings' templates filled from params. */
static Av *
fill_value(const Av *v, const Av *params, const char *where)
{
	if (v->type == AV_S && memchr(v->str, '{', v->len) != NULL)
	{
		StudioTemplate tpl;

		studio_template_parse(v->str, v->len, &tpl, where);
		if (tpl.nparts == 1 && tpl.parts[0].is_param)
		{
			Av		   *p = av_map_get(params, tpl.parts[0].text, tpl.parts[0].len);

			if (p == NULL)
				st_error(ST_ERR_VALIDATION, "%s: parameter \"%s\" is missing", where, tpl.parts[0].text);
			return p;
		}
		{
			char	   *s = studio_template_format(&tpl, params, where);

			return av_new_str(AV_S, s, strlen(s));
		}
	}
	if (v->type == AV_M || v->type == AV_L)
	{
		Av		   *out = av_new(v->type);

		for (int i = 0; i < v->n; i++)
		{
			if (v->type == AV_M)
				av_map_put_nocheck(out, v->members[i].name, v->members[i].name_len,
								   fill_value(v->members[i].value, params, where));
			else
				av_append(out, fill_value(v->items[i], params, where));
		}
		return out;
	}
	return (Av *) v;
}

static Av *
key_value(const StudioTemplate *tpl, const StKeyDef *kd, const Av *params, const char *where)
{
	return ops_key_value_from_text(studio_template_format(tpl, params, where), kd->type, kd->name);
}

/* A pattern ready to run: the operation's request, filled. */
typedef struct PatternCall PatternCall;
struct PatternCall
{
	StTable    *t;
	StIndex    *ix;
	StudioPattern *p;
	StExprRequest req;
	StQuerySpec q;				/* Query */
	Av		   *keymap;			/* GetItem */
};

/* A call of p with params; with_filter false leaves out its filter and values. */
static void
prepare_call_filtered(StTable *t, StudioPattern *p, const Av *params, PatternCall *c, bool with_filter)
{
	char	   *where = psprintf("pattern \"%s\"", p->name);
	Jsonb	   *values = NULL;

	c->t = t;
	c->p = p;
	c->ix = studio_pattern_index(t, p);
	if (p->values && with_filter)
		values = av_item_to_jsonb(fill_value(p->values, params, where), true);
	/* without its filter, its names could be unused: DynamoDB refuses those */
	ops_expr_init(&c->req, with_filter ? p->names : NULL, values, true);

	memset(&c->q, 0, sizeof(c->q));
	c->keymap = NULL;
	if (p->op == STUDIO_GET)
	{
		c->keymap = av_new(AV_M);
		av_map_put_nocheck(c->keymap, t->pk.name, strlen(t->pk.name),
						   key_value(p->pk, &t->pk, params, where));
		if (t->sk.name)
			av_map_put_nocheck(c->keymap, t->sk.name, strlen(t->sk.name),
							   key_value(p->sk1, &t->sk, params, where));
	}
	else if (p->op == STUDIO_QUERY && p->mkeys)
	{
		/* a multi-attribute GSI key: the Query's own rules and order */
		ExprKeyConditionMulti m;

		c->q.table = t;
		c->q.index = c->ix;
		c->q.forward = p->forward;
		c->q.limit = p->limit;
		studio_multi_condition(c->ix, p->mkeys, params, &m, where);
		ops_query_set_multi_condition(&c->q, &m);
	}
	else if (p->op == STUDIO_QUERY)
	{
		c->q.table = t;
		c->q.index = c->ix;
		c->q.forward = p->forward;
		c->q.limit = p->limit;
		c->q.pk = key_value(p->pk, ops_query_pk(&c->q), params, where);
		c->q.sort_op = p->sk_op;
		if (p->sk1)
			c->q.sort1 = key_value(p->sk1, ops_query_sk(&c->q), params, where);
		if (p->sk2)
			c->q.sort2 = key_value(p->sk2, ops_query_sk(&c->q), params, where);
	}
	ops_expr_add_filter(&c->req, with_filter ? p->filter : NULL, p->op == STUDIO_QUERY ? &c->q : NULL);
	ops_expr_add_projection(&c->req, with_filter ? p->projection : NULL);
	ops_expr_finish(&c->req);
}

/* The call with its filter (and the filter's values), as st_run_pattern makes it. */
static void
prepare_call(StTable *t, StudioPattern *p, const Av *params, PatternCall *c)
{
	prepare_call_filtered(t, p, params, c, true);
}

/* ---------- checking a pattern's expressions ---------- */

/*
 * The request of pattern p built as a call builds it, without parameters:
 * a value template ("{status}") stays a string, which is all the parser
 * and the checks of names and values need.
 */
static void
static_request(StTable *t, StudioPattern *p, StExprRequest *req)
{
	StQuerySpec q;
	Jsonb	   *values = p->values ? av_item_to_jsonb(p->values, true) : NULL;

	memset(&q, 0, sizeof(q));
	q.table = t;
	q.index = studio_pattern_index(t, p);
	ops_expr_init(req, p->names, values, true);
	ops_expr_add_filter(req, p->filter, p->op == STUDIO_QUERY ? &q : NULL);
	ops_expr_add_projection(req, p->projection);
	ops_expr_finish(req);
}

/*
 * Check p's filter and projection as DynamoDB checks a request's (the
 * expression parser's syntax errors, #names and :values undefined or
 * unused, a key attribute in a Query's filter), and its projection against
 * a KEYS_ONLY or INCLUDE global secondary index, which cannot return what
 * it does not project (DynamoDB refuses such a Query: "Global secondary
 * index ... does not project").  The request's error is raised again with
 * "Invalid model: <where>: " before its message, so that a model is
 * refused when it is set (and when it is loaded against a changed table),
 * not at the first call.
 */
void
studio_rethrow_model_error(const char *where, const char *hint)
{
	ErrorData  *edata = CopyErrorData();
	const char *prefix = "ValidationException: ";

	FlushErrorState();
	if (edata->message && strncmp(edata->message, prefix, strlen(prefix)) == 0)
		edata->message = psprintf("%sInvalid model: %s: %s", prefix, where,
								  edata->message + strlen(prefix));
	if (hint)
		edata->hint = pstrdup(hint);
	ReThrowError(edata);
}

void
studio_pattern_check_expressions(StTable *t, StudioPattern *p, const char *where)
{
	MemoryContext cxt = CurrentMemoryContext;
	StExprRequest req;
	StIndex    *ix;

	if (p->filter == NULL && p->projection == NULL && p->names == NULL && p->values == NULL)
		return;
	PG_TRY();
	{
		static_request(t, p, &req);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		studio_rethrow_model_error(where, NULL);
	}
	PG_END_TRY();

	ix = studio_pattern_index(t, p);
	if (ix == NULL || ix->is_local || ix->projection == ST_PROJECT_ALL || req.projection == NULL)
		return;
	for (int i = 0; i < req.projection->npaths; i++)
	{
		int			len;
		const char *name = ops_expr_path_top_name(req.projection->paths[i], req.names, &len);

		if (name && !ops_index_holds(t, ix, name, len))
			st_error_hint(ST_ERR_VALIDATION, "Project the attribute into the index, or query the table.",
						  "Invalid model: %s: \"projection\" asks for %.*s, which global secondary index %s (%s) does not project",
						  where, len, name, ix->name,
						  ix->projection == ST_PROJECT_KEYS_ONLY ? "KEYS_ONLY" : "INCLUDE");
	}
}

/* The top-level attribute names of a filter's paths, #names resolved, added to out. */
static List *
filter_names(const ExprNode *n, const Av *names, List *out)
{
	if (n == NULL)
		return out;
	check_stack_depth();
	if (n->kind == EXPR_N_PATH && n->path && n->path->n > 0)
	{
		int			len;
		const char *name = ops_expr_path_top_name(n->path, names, &len);

		if (name)
			out = list_append_unique(out, makeString(pnstrdup(name, len)));
	}
	for (int i = 0; i < n->nargs; i++)
		out = filter_names(n->args[i], names, out);
	return out;
}

/*
 * The attribute names p's filter (projection false) or projection reads
 * that none of the entities it reads has, when every one of them declares
 * its attributes (an entity without "attributes" may hold any).  The
 * table's and the indexes' key attributes and the type attribute are
 * always known.
 */
List *
studio_pattern_unknown_attrs(StudioModel *m, StTable *t, StudioPattern *p, bool projection)
{
	StExprRequest req;
	List	   *used = NIL;
	List	   *unknown = NIL;
	List	   *readers = NIL;
	ListCell   *lc;

	if ((projection ? p->projection : p->filter) == NULL)
		return NIL;
	for (int i = 0; i < m->nentities; i++)
	{
		StudioEntity *e = &m->entities[i];
		bool		reads = false;

		if (p->nreturns > 0)
		{
			for (int j = 0; j < p->nreturns; j++)
				reads |= strcmp(p->returns[j], e->name) == 0;
		}
		else
			reads = studio_pattern_reads(t, p, e);
		if (!reads)
			continue;
		if (e->nattrs < 0)
			return NIL;
		readers = lappend(readers, e);
	}
	if (readers == NIL)
		return NIL;
	static_request(t, p, &req);
	if (projection)
	{
		for (int i = 0; i < req.projection->npaths; i++)
		{
			int			len;
			const char *name = ops_expr_path_top_name(req.projection->paths[i], req.names, &len);

			if (name)
				used = list_append_unique(used, makeString(pnstrdup(name, len)));
		}
	}
	else
		used = filter_names(req.filter->cond, req.names, NIL);

	foreach(lc, used)
	{
		char	   *a = strVal(lfirst(lc));
		bool		known = strcmp(a, t->pk.name) == 0 || (t->sk.name && strcmp(a, t->sk.name) == 0);
		ListCell   *ec;

		/* every key attribute of every index (all of a multi-attribute key) */
		for (int i = 0; !known && i < t->nindexes; i++)
			for (int k = 0; !known && k < t->indexes[i].npk + t->indexes[i].nsk; k++)
				known = strcmp(a, t->indexes[i].keys[k].name) == 0;
		foreach(ec, readers)
		{
			StudioEntity *e = lfirst(ec);

			if (known)
				break;
			known = e->type_attr && strcmp(a, e->type_attr) == 0;
			for (int j = 0; !known && j < e->nattrs; j++)
				known = strcmp(a, e->attr_names[j]) == 0;
			for (int j = 0; !known && j < e->nkeys; j++)
				known = strcmp(a, e->keys[j].attr) == 0;
		}
		if (!known)
			unknown = lappend(unknown, a);
	}
	return unknown;
}

/* ---------- st_run_pattern ---------- */

typedef struct RunOutput
{
	Tuplestorestate *store;
	TupleDesc	desc;
	bool		typed;
	StExprRequest *req;
	StTable    *t;
	StIndex    *ix;				/* a KEYS_ONLY or INCLUDE index read, or NULL */
} RunOutput;

/*
 * Each item read, as st_query's: filter, project, convert, keep.  A query of
 * a KEYS_ONLY or INCLUDE index returns what the index holds, as DynamoDB's
 * Query does (its default Select, ALL_PROJECTED_ATTRIBUTES).
 */
static bool
run_row(Jsonb *stored, void *arg)
{
	RunOutput  *out = (RunOutput *) arg;
	Datum		value;
	bool		isnull = false;

	if (out->req->filter || out->req->projection || out->ix)
	{
		Av		   *item = av_item_from_stored(stored);

		if (out->req->filter && !ops_expr_filter_passes(out->req, item))
			return true;
		if (out->req->projection)
			item = ops_expr_project_item(out->req, item);
		else if (out->ix)
			item = ops_index_entry(out->t, out->ix, item);
		value = JsonbPGetDatum(av_item_to_jsonb(item, out->typed));
	}
	else if (out->typed)
		value = JsonbPGetDatum(stored);
	else
		value = JsonbPGetDatum(av_stored_to_plain(stored));
	tuplestore_putvalues(out->store, out->desc, &value, &isnull);
	return true;
}

static char *
arg_text(FunctionCallInfo fcinfo, int n)
{
	if (PG_NARGS() <= n || PG_ARGISNULL(n))
		return NULL;
	return text_to_cstring(PG_GETARG_TEXT_PP(n));
}

/* st_run_pattern(name, params, "table", typed): the items the pattern reads (or writes) */
PG_FUNCTION_INFO_V1(st_run_pattern);
Datum
st_run_pattern(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *name = arg_text(fcinfo, 0);
	bool		typed = PG_NARGS() > 3 && !PG_ARGISNULL(3) && PG_GETARG_BOOL(3);
	StTable    *t = catalog_lookup(arg_text(fcinfo, 2), false);
	StudioModel *m;
	StudioPattern *p;
	Av		   *params;
	PatternCall c;
	RunOutput	out;

	if (name == NULL)
		st_validation_null("pattern");
	/* the model is read as st_get_model reads it: for those who may read the table */
	studio_check_select(t);
	m = studio_model_get(t);
	if (m == NULL)
		st_error_hint(ST_ERR_VALIDATION, "Store one with st_set_model(table_name, model).",
					  "Table %s has no model", t->name);
	p = studio_find_pattern(m, name);
	if (p == NULL)
		st_error(ST_ERR_VALIDATION, "Unknown access pattern \"%s\" in the model of table %s", name, t->name);
	params = PG_ARGISNULL(1) ? av_new(AV_M) : av_map_from_jsonb(PG_GETARG_JSONB_P(1), typed, "params");

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	out.store = rsinfo->setResult;
	out.desc = rsinfo->setDesc;
	out.typed = typed;
	out.t = t;
	out.ix = NULL;
	if (p->op == STUDIO_PUT)
	{
		Av		   *item = studio_form_item(t, studio_find_entity(m, p->entity), params);
		Datum		value;
		bool		isnull = false;

		(void) ops_put(t, item, NULL, ST_RV_NONE, NULL);
		value = JsonbPGetDatum(av_item_to_jsonb(item, typed));
		tuplestore_putvalues(out.store, out.desc, &value, &isnull);
		return (Datum) 0;
	}
	prepare_call(t, p, params, &c);
	out.req = &c.req;
	if (c.ix && c.ix->projection != ST_PROJECT_ALL)
		out.ix = c.ix;
	if (p->op == STUDIO_GET)
	{
		Jsonb	   *stored = ops_get(t, c.keymap);

		if (stored)
		{
			if (c.req.projection)
			{
				Datum		value = JsonbPGetDatum(av_item_to_jsonb(ops_expr_project_item(&c.req, av_item_from_stored(stored)), typed));
				bool		isnull = false;

				tuplestore_putvalues(out.store, out.desc, &value, &isnull);
			}
			else
				(void) run_row(stored, &out);
		}
	}
	else if (p->op == STUDIO_QUERY)
		ops_query(&c.q, run_row, &out);
	else
		ops_scan(t, c.ix, p->limit, run_row, &out);
	return (Datum) 0;
}

/* ---------- measuring ---------- */

/* The bytes a read of this stored item counts: the whole item, or its index entry. */
static int64
read_bytes(StTable *t, StIndex *ix, Jsonb *stored, Av **item)
{
	if (ix == NULL || ix->projection == ST_PROJECT_ALL)
		return av_stored_item_size(stored);
	*item = *item ? *item : av_item_from_stored(stored);
	return av_item_size(ops_index_entry(t, ix, *item));
}

/* The CapacityUnits of a ConsumedCapacity result. */
static double
capacity_units(StCapacity *cap)
{
	Av		   *r = ops_capacity_result(cap, false);
	Av		   *u = r ? av_map_get(r, "CapacityUnits", strlen("CapacityUnits")) : NULL;

	if (u == NULL || u->type != AV_N)
		return 0;
	return strtod(pnstrdup(u->str, u->len), NULL);
}

static double
read_units(StTable *t, StIndex *ix, int64 bytes, bool consistent)
{
	StCapacity *cap = ops_capacity_new(ST_CAPACITY_TOTAL);

	ops_capacity_read(cap, t, ix, bytes, consistent, false);
	return capacity_units(cap);
}

typedef struct MeasureCall
{
	StTable    *t;
	StIndex    *ix;
	StExprRequest *req;
	int64		read;
	int64		returned;
	int64		bytes;
	int64		max_items;		/* stop after this many (Scan's sample), or -1 */
} MeasureCall;

static bool
measure_row(Jsonb *stored, void *arg)
{
	MeasureCall *mc = (MeasureCall *) arg;
	Av		   *item = NULL;

	mc->read++;
	mc->bytes += read_bytes(mc->t, mc->ix, stored, &item);
	if (mc->req->filter)
	{
		item = item ? item : av_item_from_stored(stored);
		if (!ops_expr_filter_passes(mc->req, item))
			return mc->max_items < 0 || mc->read < mc->max_items;
	}
	mc->returned++;
	return mc->max_items < 0 || mc->read < mc->max_items;
}

/* Run p once with params and add what it read to out. */
static void
measure_call(StTable *t, StudioPattern *p, const Av *params, StudioMeasure *out)
{
	PatternCall c;
	MeasureCall mc;

	prepare_call(t, p, params, &c);
	memset(&mc, 0, sizeof(mc));
	mc.t = t;
	mc.ix = c.ix;
	mc.req = &c.req;
	mc.max_items = MEASURE_MAX_ITEMS;
	if (p->op == STUDIO_GET)
	{
		/* the item read as a Query of its key, which can go uncounted */
		c.q.table = t;
		c.q.pk = av_map_get(c.keymap, t->pk.name, strlen(t->pk.name));
		if (t->sk.name)
		{
			c.q.sort_op = ST_SORT_EQ;
			c.q.sort1 = av_map_get(c.keymap, t->sk.name, strlen(t->sk.name));
		}
		c.q.forward = true;
		c.q.limit = 1;
	}
	c.q.uncounted = true;		/* a measurement, not traffic */
	ops_query(&c.q, measure_row, &mc);
	if (mc.read >= MEASURE_MAX_ITEMS && out->note == NULL)
		out->note = psprintf("a call reads more than %d items: measured on the first %d",
							 MEASURE_MAX_ITEMS, MEASURE_MAX_ITEMS);
	out->calls++;
	out->items_read += mc.read;
	out->items_returned += mc.returned;
	out->read_units += read_units(t, c.ix, mc.bytes, p->consistent);
}

/* The placeholders of a template, added to names (no duplicates). */
static List *
add_params(List *names, const StudioTemplate *tpl)
{
	for (int i = 0; tpl && i < tpl->nparts; i++)
	{
		ListCell   *lc;
		bool		seen = false;

		if (!tpl->parts[i].is_param)
			continue;
		foreach(lc, names)
			seen = seen || strcmp(lfirst(lc), tpl->parts[i].text) == 0;
		if (!seen)
			names = lappend(names, tpl->parts[i].text);
	}
	return names;
}

static List *
value_params(List *names, const Av *v)
{
	if (v == NULL)
		return names;
	if (v->type == AV_S && memchr(v->str, '{', v->len) != NULL)
	{
		StudioTemplate tpl;

		studio_template_parse(v->str, v->len, &tpl, "values");
		return add_params(names, &tpl);
	}
	for (int i = 0; (v->type == AV_M || v->type == AV_L) && i < v->n; i++)
		names = value_params(names, v->type == AV_M ? v->members[i].value : v->items[i]);
	return names;
}

/* Read a template's placeholders back from a key value, into params. */
static bool
capture(const StudioTemplate *tpl, const Av *v, Av *params)
{
	char	   *caps[STUDIO_MAX_PARAMS];
	int			k = 0;

	if (tpl == NULL)
		return true;
	if (v == NULL || (v->type != AV_S && v->type != AV_N))
		return false;
	if (!studio_template_match(tpl, v->str, v->len, caps))
		return false;
	for (int i = 0; i < tpl->nparts; i++)
	{
		if (!tpl->parts[i].is_param)
			continue;
		if (av_map_get(params, tpl->parts[i].text, tpl->parts[i].len) == NULL)
			av_map_put_nocheck(params, tpl->parts[i].text, tpl->parts[i].len,
							   av_new_str(AV_S, caps[k], strlen(caps[k])));
		k++;
	}
	return true;
}

typedef struct FindParams
{
	StudioModel *m;
	StTable    *t;
	StIndex    *ix;
	StudioPattern *p;
	bool		any_entity;		/* does p read some entity of the model? */
	List	   *needed;			/* placeholder names */
	List	   *found;			/* Av maps of parameters */
	List	   *seen;			/* their key conditions, to find distinct ones */
	MemoryContext cxt;			/* where the above live (rows are read in a
								 * context reset after each) */
} FindParams;

static bool
find_row(Jsonb *stored, void *arg)
{
	FindParams *fp = (FindParams *) arg;
	Av		   *item = av_item_from_stored(stored);
	const StKeyDef *pkd = studio_pk_def(fp->t, fp->ix);
	const StKeyDef *skd = studio_sk_def(fp->t, fp->ix);
	Av		   *params = av_new(AV_M);
	Av		   *pkv = av_map_get(item, pkd->name, strlen(pkd->name));
	Av		   *skv = skd->name ? av_map_get(item, skd->name, strlen(skd->name)) : NULL;
	bool		missing = false;
	ListCell   *lc;
	char	   *key;

	/* an item of an entity the pattern reads: one a call would return */
	if (fp->any_entity)
	{
		StudioEntity *e = studio_entity_of(fp->m, fp->t, item);

		if (e == NULL || !studio_pattern_reads(fp->t, fp->p, e))
			return true;
	}
	if (fp->p->mkeys)
	{
		/* each = read back from its key attribute; the last condition's below */
		for (int k = 0; k < fp->ix->npk + fp->ix->nsk; k++)
		{
			const char *kn = fp->ix->keys[k].name;

			if (fp->p->mkeys[k].has && fp->p->mkeys[k].op == ST_SORT_EQ &&
				!capture(fp->p->mkeys[k].t1, av_map_get(item, kn, strlen(kn)), params))
				return true;
		}
	}
	else
	{
		if (!capture(fp->p->pk, pkv, params))
			return true;
		/* = and between's templates read back from the sort key; the rest from attributes */
		if (fp->p->sk_op == ST_SORT_EQ && !capture(fp->p->sk1, skv, params))
			return true;
	}
	foreach(lc, fp->needed)
	{
		char	   *name = lfirst(lc);
		Av		   *v;

		if (av_map_get(params, name, strlen(name)))
			continue;
		v = av_map_get(item, name, strlen(name));
		if (v == NULL || (v->type != AV_S && v->type != AV_N))
			missing = true;
		else
			av_map_put_nocheck(params, name, strlen(name), v);
	}
	if (missing && fp->p->mkeys)
	{
		/* the same from the attribute of the last condition, not an = */
		for (int k = 0; k < fp->ix->npk + fp->ix->nsk; k++)
		{
			const char *kn = fp->ix->keys[k].name;
			Av		   *kv = av_map_get(item, kn, strlen(kn));

			if (!fp->p->mkeys[k].has || fp->p->mkeys[k].op == ST_SORT_EQ)
				continue;
			capture(fp->p->mkeys[k].t1, kv, params);
			capture(fp->p->mkeys[k].t2, kv, params);
		}
		missing = false;
		foreach(lc, fp->needed)
			missing = missing || av_map_get(params, lfirst(lc), strlen(lfirst(lc))) == NULL;
	}
	else if (missing && fp->p->sk_op != ST_SORT_NONE)
	{
		/*
		 * A sort key condition's placeholders no attribute holds: read them
		 * back from the item's own sort key, a condition the item meets
		 * (but for < and >, which the call then tells).
		 */
		capture(fp->p->sk1, skv, params);
		capture(fp->p->sk2, skv, params);
		missing = false;
		foreach(lc, fp->needed)
			missing = missing || av_map_get(params, lfirst(lc), strlen(lfirst(lc))) == NULL;
	}
	if (missing)
		return true;
	if (fp->p->op == STUDIO_SCAN)
	{
		/* a Scan: one set of parameters is all it needs */
		MemoryContext old = MemoryContextSwitchTo(fp->cxt);

		fp->found = lappend(fp->found, av_copy(params));
		MemoryContextSwitchTo(old);
		return false;
	}
	/* distinct calls: distinct key conditions */
	if (fp->p->mkeys)
	{
		key = "";
		for (int k = 0; k < fp->ix->npk + fp->ix->nsk; k++)
		{
			if (fp->p->mkeys[k].t1)
				key = psprintf("%s\x01%s", key, studio_template_format(fp->p->mkeys[k].t1, params, "pattern"));
			if (fp->p->mkeys[k].t2)
				key = psprintf("%s\x01%s", key, studio_template_format(fp->p->mkeys[k].t2, params, "pattern"));
		}
	}
	else
		key = studio_template_format(fp->p->pk, params, "pattern");
	if (fp->p->sk1)
		key = psprintf("%s\x01%s", key, studio_template_format(fp->p->sk1, params, "pattern"));
	if (fp->p->sk2)
		key = psprintf("%s\x01%s", key, studio_template_format(fp->p->sk2, params, "pattern"));
	foreach(lc, fp->seen)
		if (strcmp(lfirst(lc), key) == 0)
			return true;
	{
		MemoryContext old = MemoryContextSwitchTo(fp->cxt);

		fp->seen = lappend(fp->seen, pstrdup(key));
		fp->found = lappend(fp->found, av_copy(params));
		MemoryContextSwitchTo(old);
	}
	return list_length(fp->found) < SAMPLE_CANDIDATES;
}

/*
 * Parameter sets for p found among the stored items (at most the first
 * SAMPLE_ITEMS of its key space, in key order): each read back from an
 * item of an entity p reads, so that a call with them reads that item.
 * *has_params false: p has no placeholders, and the one set is empty.
 */
static List *
find_params(StudioModel *m, StTable *t, StudioPattern *p, bool *has_params)
{
	FindParams	fp;

	memset(&fp, 0, sizeof(fp));
	fp.m = m;
	fp.t = t;
	fp.ix = studio_pattern_index(t, p);
	fp.p = p;
	fp.cxt = CurrentMemoryContext;
	fp.needed = add_params(NIL, p->pk);
	fp.needed = add_params(fp.needed, p->sk1);
	fp.needed = add_params(fp.needed, p->sk2);
	for (int k = 0; p->mkeys && k < fp.ix->npk + fp.ix->nsk; k++)
	{
		fp.needed = add_params(fp.needed, p->mkeys[k].t1);
		fp.needed = add_params(fp.needed, p->mkeys[k].t2);
	}
	fp.needed = value_params(fp.needed, p->values);
	*has_params = fp.needed != NIL;
	if (fp.needed == NIL)
		return list_make1(av_new(AV_M));
	for (int i = 0; i < m->nentities && !fp.any_entity; i++)
		fp.any_entity = studio_pattern_reads(t, p, &m->entities[i]);
	ops_scan_uncounted(t, fp.ix, SAMPLE_ITEMS, find_row, &fp);
	return fp.found;
}

typedef struct WriteSample
{
	StudioModel *m;
	StTable    *t;
	StudioEntity *e;
	int64		n;
	double		units;
} WriteSample;

static bool
write_row(Jsonb *stored, void *arg)
{
	WriteSample *ws = (WriteSample *) arg;
	Av		   *item = av_item_from_stored(stored);
	StCapacity *cap;

	if (studio_entity_of(ws->m, ws->t, item) != ws->e)
		return true;
	cap = ops_capacity_new(ST_CAPACITY_TOTAL);
	ops_capacity_write(cap, ws->t, NULL, item, false);
	ws->units += capacity_units(cap);
	ws->n++;
	return ws->n < SAMPLE_CALLS * 5;
}

void
studio_measure_pattern(StudioModel *m, StTable *t, StudioPattern *p, StudioMeasure *out)
{
	memset(out, 0, sizeof(*out));
	if (p->op == STUDIO_PUT)
	{
		WriteSample ws;

		memset(&ws, 0, sizeof(ws));
		ws.m = m;
		ws.t = t;
		ws.e = studio_find_entity(m, p->entity);
		ops_scan_uncounted(t, NULL, SAMPLE_ITEMS * 5, write_row, &ws);
		out->calls = 1;
		if (ws.n > 0)
			out->write_units = ws.units / ws.n;
		else
		{
			/* the least a write of a small item costs: the table, and each index it enters */
			out->write_units = 1;
			for (int i = 0; i < t->nindexes; i++)
				if (t->indexes[i].multi ? entity_in_multi_index(&t->indexes[i], ws.e)
					: studio_entity_key(ws.e, t->indexes[i].pk.name) != NULL)
					out->write_units += 1;
			out->note = psprintf("no stored item of entity %s: the least a write costs", ws.e->name);
		}
		return;
	}
	if (p->op == STUDIO_SCAN)
	{
		PatternCall c;
		MeasureCall mc;
		bool		has_params;
		List	   *sets = p->example ? list_make1(p->example) : find_params(m, t, p, &has_params);

		/* without parameters for its filter, what it reads is still known */
		prepare_call_filtered(t, p, sets ? linitial(sets) : NULL, &c, sets != NIL);
		memset(&mc, 0, sizeof(mc));
		mc.t = t;
		mc.ix = c.ix;
		mc.req = &c.req;
		mc.max_items = SCAN_SAMPLE;
		ops_scan_uncounted(t, c.ix, p->limit > 0 ? Min(p->limit, SCAN_SAMPLE) : SCAN_SAMPLE,
						   measure_row, &mc);
		out->calls = 1;
		out->items_read = mc.read;
		out->items_returned = mc.returned;
		out->read_units = read_units(t, c.ix, mc.bytes, p->consistent);
		out->params = sets == NIL ? NIL : list_make1(linitial(sets));
		if (mc.read >= SCAN_SAMPLE && p->limit != mc.read)
		{
			out->sampled = true;
			out->note = psprintf("measured on the first %d items only: a Scan reads the whole %s",
								 SCAN_SAMPLE, c.ix ? "index" : "table");
		}
		if (sets == NIL)
			out->note = pstrdup("no stored item holds its filter's parameters: give the pattern \"example\" parameters; its filter was not measured");
		return;
	}

	/*
	 * GetItem and Query: with its example, when that reads something; else
	 * with parameters from stored items, the calls that read something (a
	 * call that reads nothing says little of what the pattern costs); else
	 * with its example after all, or with nothing, and then says so.
	 */
	if (p->example)
	{
		measure_call(t, p, p->example, out);
		if (out->items_read > 0)
		{
			out->params = list_make1(p->example);
			return;
		}
	}
	{
		bool		has_params;
		List	   *sets = find_params(m, t, p, &has_params);
		StudioMeasure found;
		ListCell   *lc;

		memset(&found, 0, sizeof(found));
		foreach(lc, sets)
		{
			StudioMeasure one;

			memset(&one, 0, sizeof(one));
			measure_call(t, p, lfirst(lc), &one);
			if (one.items_read == 0)
				continue;
			found.calls += one.calls;
			found.items_read += one.items_read;
			found.items_returned += one.items_returned;
			found.read_units += one.read_units;
			found.note = found.note ? found.note : one.note;
			found.params = lappend(found.params, lfirst(lc));
			if (list_length(found.params) >= SAMPLE_CALLS)
				break;
		}
		if (found.params != NIL)
		{
			if (p->example && found.note == NULL)
				found.note = pstrdup("its \"example\" parameters read no stored item: measured with parameters from stored items instead");
			*out = found;
			return;
		}
		if (p->example)
		{
			/* out holds the example's call */
			out->params = list_make1(p->example);
			out->note = pstrdup("no stored item fits its key condition: measured with its \"example\" parameters, which read nothing");
			return;
		}
		if (!has_params)
		{
			measure_call(t, p, linitial(sets), out);
			out->params = sets;
			out->note = pstrdup("no stored item fits its key condition, which has no parameters: measured as a read of nothing");
			return;
		}
		out->note = pstrdup("no stored item fits its key condition: give the pattern \"example\" parameters; counted as a read of nothing");
		out->calls = 1;
		out->read_units = read_units(t, studio_pattern_index(t, p), 0, p->consistent);
	}
}

/* ---------- what a pattern reads and returns ---------- */

/*
 * Are entity e's items in index ix, whose key has several attributes?  When
 * it forms every key attribute or has it as an attribute (declared, or any
 * when it declares none).
 */
static bool
entity_in_multi_index(const StIndex *ix, StudioEntity *e)
{
	for (int k = 0; k < ix->npk + ix->nsk; k++)
	{
		bool		has = studio_entity_key(e, ix->keys[k].name) != NULL || e->nattrs < 0;

		for (int a = 0; !has && a < e->nattrs; a++)
			has = strcmp(e->attr_names[a], ix->keys[k].name) == 0;
		if (!has)
			return false;
	}
	return true;
}

/* Can a key value of template esk meet the condition op (t1, t2)? */
static bool
template_meets(StudioTemplate *esk, StSortOp op, StudioTemplate *t1, StudioTemplate *t2)
{
	if (op == ST_SORT_EQ)
		return studio_templates_overlap(t1, esk);
	if (op == ST_SORT_BEGINS_WITH)
		return studio_template_may_begin(esk, t1);
	if (op == ST_SORT_BETWEEN)
	{
		/* every value between two bounds begins with what the bounds share */
		const char *a,
				   *b,
				   *e;
		int			alen = studio_template_prefix(t1, &a);
		int			blen = studio_template_prefix(t2, &b);
		int			elen = studio_template_prefix(esk, &e);
		int			common = 0;

		while (common < alen && common < blen && a[common] == b[common])
			common++;
		return memcmp(a, e, Min(common, elen)) == 0;
	}
	return true;
}

bool
studio_pattern_reads(StTable *t, StudioPattern *p, StudioEntity *e)
{
	StIndex    *ix;
	StudioTemplate *epk;
	StudioTemplate *esk;

	if (p->op == STUDIO_PUT)
		return false;
	if (p->nreturns > 0)
	{
		for (int i = 0; i < p->nreturns; i++)
			if (strcmp(p->returns[i], e->name) == 0)
				return true;
		return false;
	}
	ix = studio_pattern_index(t, p);
	if (ix && ix->multi)
	{
		/*
		 * A multi-attribute key: the entity's items are in the index when it
		 * forms every key attribute or has it as an attribute (declared, or
		 * any when it declares none); a Query reads them when each key
		 * attribute the entity forms can meet the pattern's condition on it
		 * (a plain attribute can hold any value).
		 */
		if (!entity_in_multi_index(ix, e))
			return false;
		for (int k = 0; p->mkeys && k < ix->npk + ix->nsk; k++)
		{
			StudioTemplate *ek = studio_entity_key(e, ix->keys[k].name);

			if (p->mkeys[k].has && ek != NULL &&
				!template_meets(ek, p->mkeys[k].op, p->mkeys[k].t1, p->mkeys[k].t2))
				return false;
		}
		return true;
	}
	epk = studio_entity_key(e, studio_pk_def(t, ix)->name);
	if (epk == NULL)
		return false;			/* never in that index */
	if (p->op == STUDIO_SCAN)
		return true;
	if (!studio_templates_overlap(p->pk, epk))
		return false;
	if (p->sk_op == ST_SORT_NONE)
		return true;
	esk = studio_entity_key(e, studio_sk_def(t, ix)->name);
	if (esk == NULL)
		return false;
	return template_meets(esk, p->sk_op, p->sk1, p->sk2);
}

/* The top-level attribute names of a ProjectionExpression, #names resolved. */
static List *
projection_names(StudioPattern *p)
{
	List	   *out = NIL;
	Av		   *names = p->names ? av_names_from_jsonb(p->names) : NULL;
	char	   *s = pstrdup(p->projection);
	char	   *tok;
	char	   *save;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
	{
		int			len;

		while (*tok == ' ' || *tok == '\t' || *tok == '\n')
			tok++;
		len = strcspn(tok, ".[ \t\n");
		if (len == 0)
			continue;
		if (tok[0] == '#' && names)
		{
			Av		   *v = av_map_get(names, tok, len);

			if (v && v->type == AV_S)
			{
				out = lappend(out, pnstrdup(v->str, v->len));
				continue;
			}
		}
		out = lappend(out, pnstrdup(tok, len));
	}
	return out;
}

List *
studio_pattern_returns(StudioModel *m, StTable *t, StudioPattern *p, bool *all)
{
	List	   *out = NIL;

	*all = false;
	if (p->projection)
		return projection_names(p);
	for (int i = 0; i < m->nentities; i++)
	{
		StudioEntity *e = &m->entities[i];

		if (!studio_pattern_reads(t, p, e))
			continue;
		if (e->nattrs < 0)
			*all = true;
		for (int j = 0; j < e->nattrs; j++)
			out = list_append_unique(out, makeString(e->attr_names[j]));
		for (int j = 0; j < e->nkeys; j++)
			out = list_append_unique(out, makeString(e->keys[j].attr));
		if (e->type_attr)
			out = list_append_unique(out, makeString(e->type_attr));
	}
	{
		/* as plain strings, like projection_names */
		List	   *names = NIL;
		ListCell   *lc;

		foreach(lc, out)
			names = lappend(names, strVal(lfirst(lc)));
		return names;
	}
}
