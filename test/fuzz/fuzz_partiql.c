/*-------------------------------------------------------------------------
 *
 * fuzz_partiql.c
 *		libFuzzer target over the PartiQL lexer, parser and planner.
 *
 * Every input is parsed as a statement; whatever parses is planned against
 * three key schemas (a table with a sort key, a hash-only table, an index),
 * its values are built from a fixed list of parameters, and the
 * expressions the plan writes out are parsed by the expression parser, so
 * that the whole path from statement text to the evaluator's input is
 * exercised.  Failing with an StErr is fine; crashing, leaking or reading
 * out of bounds is not.  All memory is released with
 * st_standalone_reset() after each input.
 *
 *-------------------------------------------------------------------------
 */
#include "expr/expr.h"
#include "partiql/partiql.h"

#include <stdint.h>

static void
parse_expression(ExprKind kind, const char *text)
{
	StErr		err;

	if (text)
		(void) expr_parse(kind, text, strlen(text), &err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *multi_names[] = {"h1", "h2", "r1", "r2"};
	static const PqlKeySchema schemas[] = {
		{"pk", AV_S, "sk", AV_S, false},
		{"id", AV_N, NULL, AV_S, false},
		{"gpk", AV_S, "gsk", AV_N, true},
		{"h1", AV_S, "r1", AV_N, true, 4, 2, multi_names},
	};
	StErr		err;
	PqlStmt    *s = partiql_parse((const char *) data, (int) size, &err);

	if (s != NULL)
	{
		Av		   *params = av_new(AV_L);

		for (int i = 0; i < s->nparams && i < 64; i++)
			av_append(params, i % 2 ? av_new_str(AV_N, "1", 1) : av_new_str(AV_S, "x", 1));
		if (s->value)
			(void) partiql_value(s->value, params, &err);
		for (int k = 0; k < (int) (sizeof(schemas) / sizeof(schemas[0])); k++)
		{
			PqlPlan		plan;

			if (!partiql_plan(s, &schemas[k], &plan, &err))
				continue;
			(void) partiql_plan_values(&plan, params, &err);
			for (int i = 0; i < plan.npk; i++)
				(void) partiql_value(plan.pk_values[i], params, &err);
			for (int i = 0; i < plan.nmulti; i++)
				(void) partiql_value(plan.multi_values[i], params, &err);
			parse_expression(EXPR_FILTER, plan.filter);
			parse_expression(EXPR_CONDITION, plan.condition);
			parse_expression(EXPR_UPDATE, plan.update);
			parse_expression(EXPR_PROJECTION, plan.projection);
		}
	}
	st_standalone_reset();
	return 0;
}
