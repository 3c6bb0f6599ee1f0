/*-------------------------------------------------------------------------
 *
 * fuzz_expr.c
 *		libFuzzer target over the expression parser and evaluators.
 *
 * Every input is parsed as each kind of expression; whatever parses is
 * bound to a fixed set of names and values and then evaluated against a
 * small fixed item (condition, update, projection, key condition), so that
 * the whole path from text to result is exercised.  Failing with an StErr
 * is fine; crashing, leaking or reading out of bounds is not.  All memory
 * is released with st_standalone_reset() after each input.
 *
 *-------------------------------------------------------------------------
 */
#include "expr/expr.h"

#include <stdint.h>

static Av *
str(AvType type, const char *s)
{
	return av_new_str(type, s, strlen(s));
}

static void
put(Av *map, const char *name, Av *value)
{
	av_map_put_nocheck(map, name, strlen(name), value);
}

static Av *
fixed_item(void)
{
	Av		   *item = av_new(AV_M);
	Av		   *list = av_new(AV_L);
	Av		   *doc = av_new(AV_M);
	Av		   *set = av_new(AV_SS);

	av_append(list, str(AV_S, "x"));
	av_append(list, str(AV_N, "1"));
	put(doc, "k", str(AV_S, "v"));
	put(doc, "l", av_copy(list));
	av_append(set, str(AV_S, "a"));
	av_append(set, str(AV_S, "b"));
	put(item, "pk", str(AV_S, "p"));
	put(item, "sk", str(AV_S, "s"));
	put(item, "a", str(AV_S, "hello"));
	put(item, "n", str(AV_N, "10"));
	put(item, "b", str(AV_B, "\x01\x02"));
	put(item, "l", list);
	put(item, "m", doc);
	put(item, "s", set);
	put(item, "t", av_new_bool(true));
	put(item, "z", av_new_null());
	return item;
}

static void
fixed_params(ExprParams *p)
{
	Av		   *names = av_new(AV_M);
	Av		   *values = av_new(AV_M);
	Av		   *list = av_new(AV_L);
	Av		   *set = av_new(AV_SS);
	Av		   *nset = av_new(AV_NS);

	put(names, "#a", str(AV_S, "a"));
	put(names, "#m", str(AV_S, "m"));
	put(names, "#pk", str(AV_S, "pk"));
	put(names, "#dot", str(AV_S, "m.k"));
	av_append(list, str(AV_N, "2"));
	av_append(set, str(AV_S, "b"));
	av_append(nset, str(AV_N, "3"));
	put(values, ":v", str(AV_S, "hello"));
	put(values, ":n", str(AV_N, "5"));
	put(values, ":big", str(AV_N, "99999999999999999999999999999999999999"));
	put(values, ":t", str(AV_S, "S"));
	put(values, ":b", str(AV_B, "\x01"));
	put(values, ":l", list);
	put(values, ":s", set);
	put(values, ":ns", nset);
	put(values, ":m", av_new(AV_M));
	put(values, ":z", av_new_null());
	p->names = names;
	p->values = values;
	p->names_used = palloc0(sizeof(bool) * names->n);
	p->values_used = palloc0(sizeof(bool) * values->n);
}

static void
exercise(ExprKind kind, const char *text, int len)
{
	StErr		err;
	ExprParams	p;
	StExpr	   *e = expr_parse(kind, text, len, &err);
	Av		   *item;
	bool		result;

	if (e == NULL)
		return;
	fixed_params(&p);
	if (!expr_check_params(&p, &err) || !expr_bind(e, &p, &err))
		return;
	(void) expr_check_unused(&p, &err);
	item = fixed_item();
	switch (kind)
	{
		case EXPR_CONDITION:
		case EXPR_FILTER:
			(void) expr_eval_condition(e, item, &p, &result, &err);
			(void) expr_eval_condition(e, NULL, &p, &result, &err);
			break;
		case EXPR_UPDATE:
			{
				ExprUpdateInfo info;
				Av		   *old = av_copy(item);

				if (expr_apply_update(e, item, &p, &info, &err))
				{
					(void) expr_project_resolved(info.paths, info.npaths, old);
					(void) expr_project_resolved(info.paths, info.npaths, item);
				}
				(void) expr_apply_update(e, av_new(AV_M), &p, NULL, &err);
				(void) expr_update_touches_attr(e, &p, "pk", 2);
				break;
			}
		case EXPR_PROJECTION:
			(void) expr_project(e, item, &p);
			break;
		case EXPR_KEY_CONDITION:
			{
				ExprKeyCondition kc;
				ExprKeyTerm terms[2];

				(void) expr_key_terms(e, terms);
				(void) expr_key_condition(e, &p, "pk", 2, "sk", 2, &kc, &err);
				(void) expr_key_condition(e, &p, "pk", 2, NULL, 0, &kc, &err);
				break;
			}
	}
}

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const ExprKind kinds[] = {
		EXPR_CONDITION, EXPR_UPDATE, EXPR_PROJECTION, EXPR_KEY_CONDITION, EXPR_FILTER
	};
	int			len = size > 8192 ? 8192 : (int) size;

	for (int i = 0; i < (int) lengthof(kinds); i++)
	{
		exercise(kinds[i], (const char *) data, len);
		st_standalone_reset();
	}
	return 0;
}
