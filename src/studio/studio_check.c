/*-------------------------------------------------------------------------
 *
 * studio_check.c
 *		st_check_model and st_model_cost: what each access pattern reads
 *		and what it costs, measured on the stored items.
 *
 * st_check_model reports one row per pattern (its operation, the index
 * that serves it, the entities it reads, the items it reads and returns
 * per call, the parameters of each call measured) with its findings: a
 * Scan, a filter that reads more than it returns, an index projection that
 * misses attributes the pattern returns, a pattern no entity fits, a
 * measurement that read nothing; then one row per entity no pattern reads,
 * per index no pattern uses, and for stored items no entity of the model
 * fits.
 *
 * st_model_cost turns the read and write units per call (ConsumedCapacity's
 * rules, src/ops/capacity.c) and the expected calls per second into a
 * monthly cost, on demand and provisioned, from a row of stdesign.prices.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "item/av_jsonb.h"
#include "studio.h"

#define HOURS_PER_MONTH 730.0	/* AWS prices a month as 730 hours */

static const char *const op_names[] = {"GetItem", "Query", "Scan", "PutItem"};

static char *
arg_text(FunctionCallInfo fcinfo, int n)
{
	if (PG_NARGS() <= n || PG_ARGISNULL(n))
		return NULL;
	return text_to_cstring(PG_GETARG_TEXT_PP(n));
}

static StudioModel *
checked_model(FunctionCallInfo fcinfo, StTable **tp)
{
	char	   *name = arg_text(fcinfo, 0);
	StTable    *t;
	StudioModel *m;

	if (name == NULL)
		st_validation_null("table_name");
	t = catalog_lookup(name, false);
	studio_check_select(t);
	m = studio_model_get(t);
	if (m == NULL)
		st_error_hint(ST_ERR_VALIDATION, "Store one with st_set_model(table_name, model).",
					  "Table %s has no model", t->name);
	*tp = t;
	return m;
}

static Datum
text_array(List *strings)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(1, list_length(strings)));
	int			n = 0;
	ListCell   *lc;

	foreach(lc, strings)
		elems[n++] = CStringGetTextDatum(lfirst(lc));
	return PointerGetDatum(construct_array(elems, n, TEXTOID, -1, false, TYPALIGN_INT));
}

/* An average per call, to the hundredth. */
static double
per_call(double total, int64 calls)
{
	return round(total / Max(1, calls) * 100) / 100;
}

static int
name_cmp(const ListCell *a, const ListCell *b)
{
	return strcmp(lfirst(a), lfirst(b));
}

/* The attributes a pattern returns that index ix does not hold. */
static List *
missing_from_index(StudioModel *m, StTable *t, StIndex *ix, StudioPattern *p, bool *all)
{
	List	   *names = studio_pattern_returns(m, t, p, all);
	List	   *missing = NIL;
	ListCell   *lc;

	foreach(lc, names)
	{
		char	   *a = lfirst(lc);
		bool		held = strcmp(a, t->pk.name) == 0 || (t->sk.name && strcmp(a, t->sk.name) == 0);

		/* every key attribute of the index (all of a multi-attribute key) */
		for (int i = 0; !held && i < ix->npk + ix->nsk; i++)
			held = strcmp(a, ix->keys[i].name) == 0;

		for (int i = 0; !held && ix->projection == ST_PROJECT_INCLUDE && i < ix->n_non_key; i++)
			held = strcmp(a, ix->non_key_attributes[i]) == 0;
		if (!held)
			missing = lappend(missing, a);
	}
	return missing;
}

typedef struct Unmatched
{
	StudioModel *m;
	StTable    *t;
	int64		seen;
	int64		unmatched;
	char	   *example;
	MemoryContext cxt;			/* for example (rows are read in a context reset after each) */
} Unmatched;

static bool
unmatched_row(Jsonb *stored, void *arg)
{
	Unmatched  *u = (Unmatched *) arg;
	Av		   *item = av_item_from_stored(stored);

	u->seen++;
	if (studio_entity_of(u->m, u->t, item) == NULL)
	{
		u->unmatched++;
		if (u->example == NULL)
		{
			Av		   *pk = av_map_get(item, u->t->pk.name, strlen(u->t->pk.name));
			Av		   *sk = u->t->sk.name ? av_map_get(item, u->t->sk.name, strlen(u->t->sk.name)) : NULL;

			u->example = MemoryContextStrdup(u->cxt, psprintf("%s %.*s%s%.*s", u->t->pk.name, pk ? pk->len : 0, pk ? pk->str : "",
								  sk ? " / " : "", sk ? sk->len : 0, sk ? sk->str : ""));
		}
	}
	return u->seen < 1000;
}

/* The parameter sets a pattern was measured with, as a jsonb array of objects. */
static Datum
measured_with(List *params)
{
	Av		   *list = av_new(AV_L);
	ListCell   *lc;

	foreach(lc, params)
		av_append(list, lfirst(lc));
	return JsonbPGetDatum(av_value_to_jsonb(list, false));
}

/*
 * st_check_model(table_name) -> (kind, name, operation, index_name, entities,
 * read_per_call, returned_per_call, ok, findings, measured_with)
 */
PG_FUNCTION_INFO_V1(st_check_model);
Datum
st_check_model(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StTable    *t;
	StudioModel *m = checked_model(fcinfo, &t);
	bool	   *entity_read = palloc0(sizeof(bool) * m->nentities);
	bool	   *index_used = palloc0(sizeof(bool) * Max(1, t->nindexes));
	Datum		values[10];
	bool		nulls[10];

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < m->npatterns; i++)
	{
		StudioPattern *p = &m->patterns[i];
		StIndex    *ix = studio_pattern_index(t, p);
		StudioMeasure ms;
		List	   *findings = NIL;
		List	   *entities = NIL;

		if (p->op == STUDIO_PUT)
			entities = list_make1(p->entity);
		for (int j = 0; j < m->nentities; j++)
			if (studio_pattern_reads(t, p, &m->entities[j]))
			{
				entity_read[j] = true;
				entities = lappend(entities, m->entities[j].name);
			}
		for (int j = 0; ix && j < t->nindexes; j++)
			if (&t->indexes[j] == ix)
				index_used[j] = true;

		studio_measure_pattern(m, t, p, &ms);
		if (p->op == STUDIO_SCAN)
			findings = lappend(findings, psprintf("needs a Scan: reads every item of the %s (%lld read to return %lld); give it a key or an index",
												  ix ? "index" : "table", (long long) ms.items_read,
												  (long long) ms.items_returned));
		else if (p->filter && ms.items_read > ms.items_returned)
			findings = lappend(findings, psprintf("filter reads more than it returns: %.1f items read per call, %.1f returned; put the condition in the key",
												  (double) ms.items_read / Max(1, ms.calls),
												  (double) ms.items_returned / Max(1, ms.calls)));
		if (ix && ix->projection != ST_PROJECT_ALL && p->op != STUDIO_PUT)
		{
			bool		all;
			List	   *missing = missing_from_index(m, t, ix, p, &all);

			if (all)
				findings = lappend(findings, psprintf("index %s projects %s, and the pattern returns whole items (entities without declared attributes)",
													  ix->name, ix->projection == ST_PROJECT_KEYS_ONLY ? "KEYS_ONLY" : "INCLUDE"));
			else if (missing != NIL)
			{
				StringInfoData s;
				ListCell   *lc;

				list_sort(missing, name_cmp);
				initStringInfo(&s);
				foreach(lc, missing)
					appendStringInfo(&s, "%s%s", s.len ? ", " : "", (char *) lfirst(lc));
				findings = lappend(findings, psprintf("index %s does not project %s, which the pattern returns",
													  ix->name, s.data));
			}
		}
		for (int k = 0; k < 2; k++)
		{
			List	   *unknown = studio_pattern_unknown_attrs(m, t, p, k == 1);

			if (unknown != NIL)
			{
				StringInfoData s;
				ListCell   *lc;

				list_sort(unknown, name_cmp);
				initStringInfo(&s);
				foreach(lc, unknown)
					appendStringInfo(&s, "%s%s", s.len ? ", " : "", (char *) lfirst(lc));
				findings = lappend(findings, psprintf("%s names %s, which no entity it reads declares",
													  k == 0 ? "filter" : "projection", s.data));
			}
		}
		if (p->op != STUDIO_PUT && entities == NIL)
			findings = lappend(findings, pstrdup("reads no entity of the model: no entity's key templates fit its key condition"));
		if (ms.note)
			findings = lappend(findings, ms.note);

		memset(nulls, 0, sizeof(nulls));
		values[0] = CStringGetTextDatum("pattern");
		values[1] = CStringGetTextDatum(p->name);
		values[2] = CStringGetTextDatum(op_names[p->op]);
		if (ix)
			values[3] = CStringGetTextDatum(ix->name);
		else
			nulls[3] = true;
		values[4] = text_array(entities);
		values[5] = Float8GetDatum(p->op == STUDIO_PUT ? 0 : per_call(ms.items_read, ms.calls));
		values[6] = Float8GetDatum(p->op == STUDIO_PUT ? 0 : per_call(ms.items_returned, ms.calls));
		values[7] = BoolGetDatum(findings == NIL);
		values[8] = text_array(findings);
		if (ms.params != NIL && p->op != STUDIO_PUT)
			values[9] = measured_with(ms.params);
		else
			nulls[9] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	for (int j = 0; j < m->nentities; j++)
	{
		memset(nulls, 0, sizeof(nulls));
		values[0] = CStringGetTextDatum("entity");
		values[1] = CStringGetTextDatum(m->entities[j].name);
		nulls[2] = nulls[3] = nulls[5] = nulls[6] = nulls[9] = true;
		values[4] = text_array(list_make1(m->entities[j].name));
		values[7] = BoolGetDatum(entity_read[j]);
		values[8] = text_array(entity_read[j] ? NIL : list_make1(pstrdup("no pattern reads it")));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	for (int j = 0; j < t->nindexes; j++)
	{
		memset(nulls, 0, sizeof(nulls));
		values[0] = CStringGetTextDatum("index");
		values[1] = CStringGetTextDatum(t->indexes[j].name);
		nulls[2] = nulls[4] = nulls[5] = nulls[6] = nulls[9] = true;
		values[3] = CStringGetTextDatum(t->indexes[j].name);
		values[7] = BoolGetDatum(index_used[j]);
		values[8] = text_array(index_used[j] ? NIL : list_make1(pstrdup("no pattern uses it: every write still pays for it")));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	{
		Unmatched	u;

		memset(&u, 0, sizeof(u));
		u.m = m;
		u.t = t;
		u.cxt = CurrentMemoryContext;
		ops_scan_uncounted(t, NULL, 1000, unmatched_row, &u);
		memset(nulls, 0, sizeof(nulls));
		values[0] = CStringGetTextDatum("items");
		values[1] = CStringGetTextDatum(t->name);
		nulls[2] = nulls[3] = nulls[4] = nulls[9] = true;
		values[5] = Float8GetDatum((double) u.seen);
		values[6] = Float8GetDatum((double) (u.seen - u.unmatched));
		values[7] = BoolGetDatum(u.unmatched == 0);
		values[8] = text_array(u.unmatched == 0 ? NIL :
							   list_make1(psprintf("%lld of the %lld items looked at are of no entity of the model (the first: %s)",
												   (long long) u.unmatched, (long long) u.seen, u.example)));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* ---------- cost ---------- */

typedef struct Prices
{
	double		od_read;		/* per million read request units */
	double		od_write;		/* per million write request units */
	double		rcu_hour;
	double		wcu_hour;
} Prices;

static void
load_prices(const char *name, Prices *pr)
{
	Oid			types[1] = {TEXTOID};
	Datum		args[1];

	args[0] = CStringGetTextDatum(name);
	SPI_connect();
	if (SPI_execute_with_args("SELECT on_demand_read_per_million::pg_catalog.float8,"
							  " on_demand_write_per_million::pg_catalog.float8,"
							  " provisioned_rcu_hour::pg_catalog.float8, provisioned_wcu_hour::pg_catalog.float8"
							  " FROM stdesign.prices WHERE name OPERATOR(pg_catalog.=) $1",
							  1, types, args, NULL, true, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.prices");
	if (SPI_processed != 1)
		st_error(ST_ERR_VALIDATION, "No prices named \"%s\" in stdesign.prices", name);
	for (int i = 0; i < 4; i++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, i + 1, &isnull);
		double		v = isnull ? 0 : DatumGetFloat8(d);

		switch (i)
		{
			case 0:
				pr->od_read = v;
				break;
			case 1:
				pr->od_write = v;
				break;
			case 2:
				pr->rcu_hour = v;
				break;
			default:
				pr->wcu_hour = v;
		}
	}
	SPI_finish();
}

static Datum
money(double v)
{
	/* to the hundredth of a cent */
	return DirectFunctionCall2(numeric_round, DirectFunctionCall1(float8_numeric, Float8GetDatum(v)),
							   Int32GetDatum(4));
}

/*
 * st_model_cost(table_name, rates, prices) -> (pattern, operation, index_name,
 * calls_per_second, read_units, write_units, on_demand_monthly,
 * provisioned_monthly, note); the last row, pattern NULL, the total.
 */
PG_FUNCTION_INFO_V1(st_model_cost);
Datum
st_model_cost(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	StTable    *t;
	StudioModel *m = checked_model(fcinfo, &t);
	Av		   *rates = PG_ARGISNULL(1) ? NULL : av_map_from_jsonb(PG_GETARG_JSONB_P(1), false, "rates");
	char	   *prices = arg_text(fcinfo, 2);
	Prices		pr = {0};
	double		total_reads = 0;	/* units per second */
	double		total_writes = 0;
	double		total_od = 0;
	Datum		values[9];
	bool		nulls[9];

	if (prices == NULL)
		st_validation_null("prices");
	for (int i = 0; rates && i < rates->n; i++)
	{
		char	   *name = pnstrdup(rates->members[i].name, rates->members[i].name_len);
		Av		   *v = rates->members[i].value;

		if (studio_find_pattern(m, name) == NULL)
			st_error(ST_ERR_VALIDATION, "rates: unknown access pattern \"%s\"", name);
		if (v->type != AV_N || v->str[0] == '-')
			st_error(ST_ERR_VALIDATION, "rates: the rate of \"%s\" must be a number of calls per second, at least 0", name);
	}
	load_prices(prices, &pr);
	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < m->npatterns; i++)
	{
		StudioPattern *p = &m->patterns[i];
		StIndex    *ix = studio_pattern_index(t, p);
		Av		   *r = rates ? av_map_get(rates, p->name, strlen(p->name)) : NULL;
		double		rate = r ? strtod(pnstrdup(r->str, r->len), NULL) : p->rate;
		StudioMeasure ms;
		double		ru,
					wu,
					od,
					prov;
		char	   *note = NULL;

		studio_measure_pattern(m, t, p, &ms);
		ru = per_call(ms.read_units, ms.calls);
		wu = per_call(ms.write_units, ms.calls);
		if (rate < 0)
		{
			rate = 0;
			note = "no rate: give the pattern a \"rate\" (calls per second) or pass rates";
		}
		else
			note = ms.note;
		od = rate * HOURS_PER_MONTH * 3600 * (ru * pr.od_read + wu * pr.od_write) / 1e6;
		prov = rate * HOURS_PER_MONTH * (ru * pr.rcu_hour + wu * pr.wcu_hour);
		total_reads += rate * ru;
		total_writes += rate * wu;
		total_od += od;

		memset(nulls, 0, sizeof(nulls));
		values[0] = CStringGetTextDatum(p->name);
		values[1] = CStringGetTextDatum(op_names[p->op]);
		if (ix)
			values[2] = CStringGetTextDatum(ix->name);
		else
			nulls[2] = true;
		values[3] = Float8GetDatum(rate);
		values[4] = Float8GetDatum(ru);
		values[5] = Float8GetDatum(wu);
		values[6] = money(od);
		values[7] = money(prov);
		if (note)
			values[8] = CStringGetTextDatum(note);
		else
			nulls[8] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	/* provisioned capacity is whole units for the table: round the sums up */
	memset(nulls, 0, sizeof(nulls));
	nulls[0] = nulls[1] = nulls[2] = true;
	values[3] = Float8GetDatum(0);
	for (int i = 0; i < m->npatterns; i++)
	{
		Av		   *r = rates ? av_map_get(rates, m->patterns[i].name, strlen(m->patterns[i].name)) : NULL;
		double		rate = r ? strtod(pnstrdup(r->str, r->len), NULL) : m->patterns[i].rate;

		values[3] = Float8GetDatum(DatumGetFloat8(values[3]) + Max(rate, 0));
	}
	values[4] = Float8GetDatum(ceil(total_reads));
	values[5] = Float8GetDatum(ceil(total_writes));
	values[6] = money(total_od);
	values[7] = money(HOURS_PER_MONTH * (ceil(total_reads) * pr.rcu_hour + ceil(total_writes) * pr.wcu_hour));
	values[8] = CStringGetTextDatum(psprintf("total: %.0f RCU and %.0f WCU provisioned; prices \"%s\"",
											 ceil(total_reads), ceil(total_writes), prices));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}
