/*-------------------------------------------------------------------------
 *
 * partiql_plan.c
 *		How a parsed statement runs: GetItem, Query or Scan for a SELECT,
 *		the key and the condition of a write; and the rest of the
 *		statement written out in DynamoDB's expression language.
 *
 * DynamoDB plans a SELECT by its WHERE clause (PartiQL select statements
 * for DynamoDB): when the WHERE's top-level AND fixes the partition key,
 * with = or IN, the statement is a Query of those partitions in key order
 * (one sort-key condition - =, <, <=, >, >=, BETWEEN, begins_with - narrows
 * the range); when it also fixes the sort key with = (and the statement
 * reads the table, whose keys are unique), a GetItem; anything else is a
 * Scan.  Every other conjunct is the filter.  A write (UPDATE, DELETE) and a
 * transaction's EXISTS must fix the whole key with =; their other
 * conjuncts are the write's condition.  UPDATE and EXISTS also need the
 * item to exist (attribute_exists on the partition key): DynamoDB's UPDATE
 * modifies one existing item (developer guide, "PartiQL update statements
 * for DynamoDB": the condition "must resolve to a single primary key
 * value"), and EXISTS is "the same function as ConditionCheck" ("Using the
 * EXISTS function with PartiQL for DynamoDB").
 *
 * The filter, condition, update and projection become expression text with
 * one #name per attribute name and one :value per value in the statement
 * (a literal, a ? parameter, a map, list or set built of those): the text
 * depends only on the statement, so the expression cache of src/ops parses
 * it once however many times the statement runs, and the values map is
 * filled per call from the Parameters.
 *
 * Pure C: no backend needed.
 *
 *-------------------------------------------------------------------------
 */
#include "partiql.h"

#include <stdio.h>

typedef struct Buf
{
	char	   *data;
	int			len;
	int			cap;
} Buf;

typedef struct PlanCtx
{
	PqlPlan    *plan;
	int			values_cap;
	StErr	   *err;
	bool		failed;
	bool		in_update;		/* writing SET's values: update functions allowed */
} PlanCtx;

static void
buf_init(Buf *b)
{
	b->cap = 64;
	b->len = 0;
	b->data = palloc(b->cap);
	b->data[0] = '\0';
}

static void
buf_add(Buf *b, const char *s, int len)
{
	if (b->len + len + 1 > b->cap)
	{
		while (b->len + len + 1 > b->cap)
			b->cap *= 2;
		b->data = repalloc(b->data, b->cap);
	}
	memcpy(b->data + b->len, s, len);
	b->len += len;
	b->data[b->len] = '\0';
}

static void
buf_str(Buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static void
buf_int(Buf *b, const char *prefix, int v)
{
	char		tmp[32];

	snprintf(tmp, sizeof(tmp), "%s%d", prefix, v);
	buf_str(b, tmp);
}

static bool
plan_fail(PlanCtx *c, const char *fmt, const char *arg)
{
	if (!c->failed)
	{
		c->failed = true;
		st_fail(c->err, ST_ERR_VALIDATION, fmt, arg);
	}
	return false;
}

/* ---------- placeholders ---------- */

/* The #name of an attribute name: one per distinct name. */
static int
name_slot(PlanCtx *c, const char *name, int len)
{
	Av		   *names = c->plan->names;
	char		key[32];

	if (names == NULL)
		names = c->plan->names = av_new(AV_M);
	for (int i = 0; i < names->n; i++)
		if (names->members[i].value->len == len &&
			memcmp(names->members[i].value->str, name, len) == 0)
			return i;
	snprintf(key, sizeof(key), "#n%d", names->n);
	av_map_put_nocheck(names, key, strlen(key), av_new_str(AV_S, name, len));
	return names->n - 1;
}

/* The :value of a value node. */
static int
value_slot(PlanCtx *c, PqlNode *n)
{
	PqlPlan    *plan = c->plan;

	if (plan->nvalues == c->values_cap)
	{
		c->values_cap = c->values_cap ? c->values_cap * 2 : 8;
		plan->values = plan->values ? repalloc(plan->values, sizeof(PqlNode *) * c->values_cap)
			: palloc(sizeof(PqlNode *) * c->values_cap);
	}
	plan->values[plan->nvalues] = n;
	return plan->nvalues++;
}

bool
partiql_is_value(const PqlNode *n)
{
	switch (n->kind)
	{
		case PQL_N_LIT:
		case PQL_N_PARAM:
			return true;
		case PQL_N_MAP:
		case PQL_N_LIST:
		case PQL_N_SET:
			for (int i = 0; i < n->nargs; i++)
				if (!partiql_is_value(n->args[i]))
					return false;
			return true;
		default:
			return false;
	}
}

/* ---------- expression text ---------- */

static void
emit_path(PlanCtx *c, Buf *b, const PqlPath *path)
{
	for (int i = 0; i < path->n; i++)
	{
		const PqlPathElem *e = &path->elems[i];

		if (e->name == NULL)
		{
			buf_int(b, "[", e->index);
			buf_str(b, "]");
			continue;
		}
		if (i > 0)
			buf_str(b, ".");
		buf_int(b, "#n", name_slot(c, e->name, e->len));
	}
}

static bool emit_operand(PlanCtx *c, Buf *b, PqlNode *n);

static bool
emit_args(PlanCtx *c, Buf *b, const char *fname, PqlNode *n)
{
	buf_str(b, fname);
	buf_str(b, "(");
	for (int i = 0; i < n->nargs; i++)
	{
		if (i > 0)
			buf_str(b, ", ");
		if (!emit_operand(c, b, n->args[i]))
			return false;
	}
	buf_str(b, ")");
	return true;
}

static bool
emit_operand(PlanCtx *c, Buf *b, PqlNode *n)
{
	if (partiql_is_value(n))
	{
		buf_int(b, ":v", value_slot(c, n));
		return true;
	}
	switch (n->kind)
	{
		case PQL_N_PATH:
			emit_path(c, b, n->path);
			return true;
		case PQL_N_PLUS:
		case PQL_N_MINUS:
			if (!emit_operand(c, b, n->args[0]))
				return false;
			buf_str(b, n->kind == PQL_N_PLUS ? " + " : " - ");
			return emit_operand(c, b, n->args[1]);
		case PQL_N_FUNC:
			switch ((PqlFunc) n->op)
			{
				case PQL_F_SIZE:
					return emit_args(c, b, "size", n);
				case PQL_F_LIST_APPEND:
					if (!c->in_update)
						return plan_fail(c, "Unsupported function in a condition: %s", "list_append");
					return emit_args(c, b, "list_append", n);
				case PQL_F_IF_NOT_EXISTS:
					if (!c->in_update)
						return plan_fail(c, "Unsupported function in a condition: %s", "if_not_exists");
					return emit_args(c, b, "if_not_exists", n);
				default:
					return plan_fail(c, "Unsupported function in this position: %s",
									 n->op == PQL_F_SET_ADD ? "set_add" :
									 n->op == PQL_F_SET_DELETE ? "set_delete" : "a condition");
			}
		default:
			return plan_fail(c, "%s", "Statement wasn't well formed, can't be processed: a collection may only hold values");
	}
}

static int
precedence(const PqlNode *n)
{
	switch (n->kind)
	{
		case PQL_N_OR:
			return 1;
		case PQL_N_AND:
			return 2;
		case PQL_N_NOT:
			return 3;
		default:
			return 4;
	}
}

static const char *const cmp_text[] = {" = ", " <> ", " < ", " <= ", " > ", " >= "};

static bool emit_cond(PlanCtx *c, Buf *b, PqlNode *n, int minprec);

static bool
emit_cond_inner(PlanCtx *c, Buf *b, PqlNode *n)
{
	switch (n->kind)
	{
		case PQL_N_CMP:
			return emit_operand(c, b, n->args[0]) &&
				(buf_str(b, cmp_text[n->op]), emit_operand(c, b, n->args[1]));
		case PQL_N_BETWEEN:
			return emit_operand(c, b, n->args[0]) &&
				(buf_str(b, " BETWEEN "), emit_operand(c, b, n->args[1])) &&
				(buf_str(b, " AND "), emit_operand(c, b, n->args[2]));
		case PQL_N_IN:
			if (!emit_operand(c, b, n->args[0]))
				return false;
			buf_str(b, " IN (");
			for (int i = 1; i < n->nargs; i++)
			{
				if (i > 1)
					buf_str(b, ", ");
				if (!emit_operand(c, b, n->args[i]))
					return false;
			}
			buf_str(b, ")");
			return true;
		case PQL_N_AND:
		case PQL_N_OR:
			return emit_cond(c, b, n->args[0], precedence(n)) &&
				(buf_str(b, n->kind == PQL_N_AND ? " AND " : " OR "),
				 emit_cond(c, b, n->args[1], precedence(n)));
		case PQL_N_NOT:
			buf_str(b, "NOT ");
			return emit_cond(c, b, n->args[0], 3);
		case PQL_N_IS:
			if (!n->op)
			{
				/* IS MISSING: absent; IS NOT MISSING: present */
				buf_str(b, n->negated ? "attribute_exists(" : "attribute_not_exists(");
				emit_path(c, b, n->args[0]->path);
				buf_str(b, ")");
				return true;
			}
			else
			{
				/* IS NULL: of type NULL (a missing attribute is not NULL in DynamoDB) */
				PqlNode    *type = palloc0(sizeof(PqlNode));

				type->kind = PQL_N_LIT;
				type->value = av_new_str(AV_S, "NULL", 4);
				if (n->negated)
					buf_str(b, "NOT ");
				buf_str(b, "attribute_type(");
				emit_path(c, b, n->args[0]->path);
				buf_int(b, ", :v", value_slot(c, type));
				buf_str(b, ")");
				return true;
			}
		case PQL_N_FUNC:
			switch ((PqlFunc) n->op)
			{
				case PQL_F_BEGINS_WITH:
					return emit_args(c, b, "begins_with", n);
				case PQL_F_CONTAINS:
					return emit_args(c, b, "contains", n);
				case PQL_F_ATTRIBUTE_EXISTS:
					return emit_args(c, b, "attribute_exists", n);
				case PQL_F_ATTRIBUTE_NOT_EXISTS:
					return emit_args(c, b, "attribute_not_exists", n);
				case PQL_F_ATTRIBUTE_TYPE:
					return emit_args(c, b, "attribute_type", n);
				default:
					break;
			}
			/* FALLTHROUGH */
		default:
			return plan_fail(c, "%s", "Statement wasn't well formed, can't be processed: the WHERE clause must be a condition");
	}
}

static bool
emit_cond(PlanCtx *c, Buf *b, PqlNode *n, int minprec)
{
	bool		paren = precedence(n) < minprec;
	bool		ok;

	if (paren)
		buf_str(b, "(");
	ok = emit_cond_inner(c, b, n);
	if (paren)
		buf_str(b, ")");
	return ok;
}

/* The conjuncts not taken by the key, joined by AND; NULL when none is left. */
static bool
emit_rest(PlanCtx *c, PqlNode **conj, int n, const bool *taken, const char *prefix, char **out)
{
	Buf			b;
	bool		any = false;
	int			left = 0;

	for (int i = 0; i < n; i++)
		left += !taken[i];
	buf_init(&b);
	if (prefix)
	{
		buf_str(&b, prefix);
		any = true;
	}
	for (int i = 0; i < n; i++)
	{
		if (taken[i])
			continue;
		if (any)
			buf_str(&b, " AND ");
		/* a lone conjunct needs no parentheses, even an OR */
		if (!emit_cond(c, &b, conj[i], left == 1 && !prefix ? 1 : 2))
			return false;
		any = true;
	}
	*out = any ? b.data : NULL;
	return true;
}

/* ---------- key analysis ---------- */

/* The top-level AND's conjuncts, in text order. */
static void
flatten(PqlNode *n, PqlNode ***conj, int *nconj, int *cap)
{
	if (n->kind == PQL_N_AND)
	{
		flatten(n->args[0], conj, nconj, cap);
		flatten(n->args[1], conj, nconj, cap);
		return;
	}
	if (*nconj == *cap)
	{
		*cap = *cap ? *cap * 2 : 8;
		*conj = *conj ? repalloc(*conj, sizeof(PqlNode *) * *cap) : palloc(sizeof(PqlNode *) * *cap);
	}
	(*conj)[(*nconj)++] = n;
}

/* Is path the single name `name`? */
static bool
path_is_attr(const PqlPath *path, const char *name)
{
	return name && path->n == 1 && path->elems[0].name &&
		path->elems[0].len == (int) strlen(name) &&
		memcmp(path->elems[0].name, name, path->elems[0].len) == 0;
}

/* Is n the path of the single name `name`? */
static bool
is_attr(const PqlNode *n, const char *name)
{
	return n->kind == PQL_N_PATH && path_is_attr(n->path, name);
}

/* attr = value (either way round): the value node, else NULL */
static PqlNode *
key_equality(const PqlNode *n, const char *name)
{
	if (n->kind != PQL_N_CMP || n->op != PQL_EQ)
		return NULL;
	if (is_attr(n->args[0], name) && partiql_is_value(n->args[1]))
		return n->args[1];
	if (is_attr(n->args[1], name) && partiql_is_value(n->args[0]))
		return n->args[0];
	return NULL;
}

/* A partition-key condition: = value, or IN [values]. */
static bool
pk_condition(PqlPlan *plan, PqlNode *n, const char *pk)
{
	PqlNode    *v = key_equality(n, pk);

	if (v)
	{
		plan->npk = 1;
		plan->pk_values = palloc(sizeof(PqlNode *));
		plan->pk_values[0] = v;
		return true;
	}
	if (n->kind != PQL_N_IN || !is_attr(n->args[0], pk))
		return false;
	for (int i = 1; i < n->nargs; i++)
		if (!partiql_is_value(n->args[i]) || n->args[i]->kind == PQL_N_SET)
			return false;
	plan->npk = n->nargs - 1;
	plan->pk_values = n->args + 1;
	return true;
}

/* A sort-key condition a Query's key range can take. */
static bool
sk_condition(PqlPlan *plan, PqlNode *n, const char *sk)
{
	static const PqlSortOp ops[] = {PQL_SK_EQ, PQL_SK_NONE, PQL_SK_LT, PQL_SK_LE, PQL_SK_GT, PQL_SK_GE};
	static const PqlSortOp flipped[] = {PQL_SK_EQ, PQL_SK_NONE, PQL_SK_GT, PQL_SK_GE, PQL_SK_LT, PQL_SK_LE};

	if (n->kind == PQL_N_CMP && n->op != PQL_NE)
	{
		if (is_attr(n->args[0], sk) && partiql_is_value(n->args[1]))
		{
			plan->sk_op = ops[n->op];
			plan->sk1 = n->args[1];
			return true;
		}
		if (is_attr(n->args[1], sk) && partiql_is_value(n->args[0]))
		{
			plan->sk_op = flipped[n->op];
			plan->sk1 = n->args[0];
			return true;
		}
		return false;
	}
	if (n->kind == PQL_N_BETWEEN && is_attr(n->args[0], sk) &&
		partiql_is_value(n->args[1]) && partiql_is_value(n->args[2]))
	{
		plan->sk_op = PQL_SK_BETWEEN;
		plan->sk1 = n->args[1];
		plan->sk2 = n->args[2];
		return true;
	}
	if (n->kind == PQL_N_FUNC && n->op == PQL_F_BEGINS_WITH && is_attr(n->args[0], sk) &&
		partiql_is_value(n->args[1]))
	{
		plan->sk_op = PQL_SK_BEGINS_WITH;
		plan->sk1 = n->args[1];
		return true;
	}
	return false;
}

/*
 * A SELECT on a GSI with a multi-attribute key is a Query when its WHERE
 * gives every partition-key attribute with = (DynamoDB Developer Guide,
 * "Multi-attribute keys pattern": a query must specify all partition-key
 * attributes with equality); the sort-key attributes narrow it left to
 * right, with = up to the last one used, which may have a range or
 * begins_with instead.  A conjunct the key range does not take stays in
 * the filter; a WHERE without every partition-key attribute is a Scan.
 */
static void
plan_multi_key(PqlPlan *plan, const PqlKeySchema *keys, PqlNode **conj, int nconj, bool *taken)
{
	int			at[PQL_MAX_KEYS];

	plan->access = PQL_ACCESS_SCAN;
	for (int k = 0; k < keys->npk; k++)
	{
		at[k] = -1;
		for (int i = 0; i < nconj && at[k] < 0; i++)
			if (key_equality(conj[i], keys->key_names[k]))
				at[k] = i;
		if (at[k] < 0)
			return;
	}
	for (int k = 0; k < keys->npk; k++)
	{
		taken[at[k]] = true;
		plan->multi_values[k] = key_equality(conj[at[k]], keys->key_names[k]);
	}
	plan->nmulti = keys->npk;
	for (int k = keys->npk; k < keys->nkeys; k++)
	{
		int			eq = -1;
		bool		range = false;

		for (int i = 0; i < nconj && eq < 0; i++)
			if (!taken[i] && key_equality(conj[i], keys->key_names[k]))
				eq = i;
		if (eq >= 0)
		{
			taken[eq] = true;
			plan->multi_values[plan->nmulti++] = key_equality(conj[eq], keys->key_names[k]);
			continue;
		}
		for (int i = 0; i < nconj && !range; i++)
			if (!taken[i] && sk_condition(plan, conj[i], keys->key_names[k]))
				taken[i] = range = true;
		break;
	}
	plan->multi = true;
	plan->access = PQL_ACCESS_QUERY;
}

/* Is path one of the key attributes (ORDER BY must name one)? */
static bool
path_is_key(const PqlPath *path, const PqlKeySchema *keys)
{
	for (int k = 0; k < keys->nkeys; k++)
		if (path_is_attr(path, keys->key_names[k]))
			return true;
	return path_is_attr(path, keys->pk) || path_is_attr(path, keys->sk);
}

static bool
plan_select(PlanCtx *c, const PqlStmt *s, const PqlKeySchema *keys, PqlNode **conj, int nconj,
			bool *taken)
{
	PqlPlan    *plan = c->plan;
	int			pk_at = -1;

	if (keys->nkeys > 0)
		plan_multi_key(plan, keys, conj, nconj, taken);
	for (int i = 0; i < nconj && pk_at < 0 && keys->nkeys == 0; i++)
		if (pk_condition(plan, conj[i], keys->pk))
			pk_at = i;
	if (pk_at >= 0)
	{
		taken[pk_at] = true;
		for (int i = 0; i < nconj && keys->sk; i++)
			if (!taken[i] && sk_condition(plan, conj[i], keys->sk))
			{
				taken[i] = true;
				break;
			}
		if (!keys->is_index && plan->npk == 1 &&
			(keys->sk == NULL || plan->sk_op == PQL_SK_EQ))
			plan->access = PQL_ACCESS_GET;
		else
			plan->access = PQL_ACCESS_QUERY;
	}
	else if (keys->nkeys == 0)
		plan->access = PQL_ACCESS_SCAN;

	if (s->order_by)
	{
		const PqlPath *ob = s->order_by;
		const PqlPathElem *e = &ob->elems[0];
		char		name[300];

		snprintf(name, sizeof(name), "%.*s", Min(e->len, 255), e->name);
		if (!path_is_key(ob, keys))
			return plan_fail(c, "Variable reference %s in ORDER BY clause must be part of the primary key", name);
		if (plan->access == PQL_ACCESS_SCAN)
			return plan_fail(c, "%s", "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.");
		plan->forward = !s->order_desc;
	}
	if (!emit_rest(c, conj, nconj, taken, NULL, &plan->filter))
		return false;
	if (s->nproj > 0)
	{
		Buf			b;

		buf_init(&b);
		for (int i = 0; i < s->nproj; i++)
		{
			if (i > 0)
				buf_str(&b, ", ");
			emit_path(c, &b, s->proj[i]);
		}
		plan->projection = b.data;
	}
	return true;
}

/* The whole key of a write, with =; its conjuncts are marked taken. */
static bool
plan_write_key(PlanCtx *c, const PqlKeySchema *keys, PqlNode **conj, int nconj, bool *taken)
{
	PqlPlan    *plan = c->plan;
	int			pk_at = -1;
	int			sk_at = -1;

	for (int i = 0; i < nconj; i++)
	{
		PqlNode    *v;

		if (pk_at < 0 && (v = key_equality(conj[i], keys->pk)) != NULL)
		{
			pk_at = i;
			plan->npk = 1;
			plan->pk_values = palloc(sizeof(PqlNode *));
			plan->pk_values[0] = v;
		}
		else if (keys->sk && sk_at < 0 && (v = key_equality(conj[i], keys->sk)) != NULL)
		{
			sk_at = i;
			plan->sk_op = PQL_SK_EQ;
			plan->sk1 = v;
		}
	}
	if (pk_at < 0 || (keys->sk && sk_at < 0))
		return plan_fail(c, "%s", "Where clause does not contain a mandatory equality on all key attributes");
	taken[pk_at] = true;
	if (sk_at >= 0)
		taken[sk_at] = true;
	plan->access = PQL_ACCESS_GET;
	return true;
}

static bool
emit_updates(PlanCtx *c, const PqlStmt *s)
{
	static const char *const section[] = {"SET ", "REMOVE ", "ADD ", "DELETE "};
	Buf			parts[4];
	Buf			all;

	for (int k = 0; k < 4; k++)
		buf_init(&parts[k]);
	c->in_update = true;
	for (int i = 0; i < s->nupdates; i++)
	{
		const PqlUpdateItem *u = &s->updates[i];
		PqlNode    *v = u->value;
		int			k = u->action == PQL_UPD_REMOVE ? 1 : 0;

		if (v && v->kind == PQL_N_FUNC && (v->op == PQL_F_SET_ADD || v->op == PQL_F_SET_DELETE))
		{
			/* SET s = set_add(s, <<...>>): ADD s :v (DELETE for set_delete) */
			const PqlPath *a = v->args[0]->kind == PQL_N_PATH ? v->args[0]->path : NULL;
			bool		same = a && a->n == u->path->n;

			for (int e = 0; same && e < a->n; e++)
				same = a->elems[e].index == u->path->elems[e].index &&
					a->elems[e].len == u->path->elems[e].len &&
					(a->elems[e].name == NULL) == (u->path->elems[e].name == NULL) &&
					(a->elems[e].name == NULL ||
					 memcmp(a->elems[e].name, u->path->elems[e].name, a->elems[e].len) == 0);
			if (!same || !partiql_is_value(v->args[1]))
				return plan_fail(c, "%s", "set_add and set_delete take the attribute they assign and a set value");
			k = v->op == PQL_F_SET_ADD ? 2 : 3;
			if (parts[k].len > 0)
				buf_str(&parts[k], ", ");
			emit_path(c, &parts[k], u->path);
			buf_int(&parts[k], " :v", value_slot(c, v->args[1]));
			continue;
		}
		if (parts[k].len > 0)
			buf_str(&parts[k], ", ");
		emit_path(c, &parts[k], u->path);
		if (v)
		{
			buf_str(&parts[k], " = ");
			if (!emit_operand(c, &parts[k], v))
				return false;
		}
	}
	c->in_update = false;
	buf_init(&all);
	for (int k = 0; k < 4; k++)
		if (parts[k].len > 0)
		{
			if (all.len > 0)
				buf_str(&all, " ");
			buf_str(&all, section[k]);
			buf_add(&all, parts[k].data, parts[k].len);
		}
	c->plan->update = all.data;
	return true;
}

bool
partiql_plan(const PqlStmt *s, const PqlKeySchema *keys, PqlPlan *plan, StErr *err)
{
	PlanCtx		c;
	PqlNode   **conj = NULL;
	int			nconj = 0;
	int			cap = 0;
	bool	   *taken;
	Buf			prefix;

	memset(plan, 0, sizeof(*plan));
	memset(&c, 0, sizeof(c));
	c.plan = plan;
	c.err = err;
	plan->forward = true;
	if (s->where)
		flatten(s->where, &conj, &nconj, &cap);
	taken = palloc0(sizeof(bool) * Max(1, nconj));

	switch (s->kind)
	{
		case PQL_SELECT:
			return plan_select(&c, s, keys, conj, nconj, taken);
		case PQL_INSERT:
			/* in a transaction: the item must not exist */
			buf_init(&prefix);
			buf_int(&prefix, "attribute_not_exists(#n", name_slot(&c, keys->pk, strlen(keys->pk)));
			buf_str(&prefix, ")");
			plan->condition = prefix.data;
			plan->access = PQL_ACCESS_GET;
			return true;
		case PQL_DELETE:
			if (s->returning != PQL_RET_NONE && s->returning != PQL_RET_ALL_OLD)
			{
				static const char *const names[] = {"", "ALL OLD", "MODIFIED OLD", "ALL NEW", "MODIFIED NEW"};

				return plan_fail(&c, "Invalid returning clause: RETURNING %s *. Only RETURNING ALL OLD * is allowed in DELETE statements.",
								 names[s->returning]);
			}
			if (!plan_write_key(&c, keys, conj, nconj, taken))
				return false;
			return emit_rest(&c, conj, nconj, taken, NULL, &plan->condition);
		case PQL_UPDATE:
		case PQL_EXISTS:
			if (!plan_write_key(&c, keys, conj, nconj, taken))
				return false;
			/* the item must exist (DynamoDB: ConditionalCheckFailedException otherwise) */
			buf_init(&prefix);
			buf_int(&prefix, "attribute_exists(#n", name_slot(&c, keys->pk, strlen(keys->pk)));
			buf_str(&prefix, ")");
			if (!emit_rest(&c, conj, nconj, taken, prefix.data, &plan->condition))
				return false;
			return s->kind == PQL_EXISTS || emit_updates(&c, s);
	}
	return false;
}

/* ---------- values ---------- */

static Av  *
value_at(const PqlNode *n, const Av *params, int depth, StErr *err)
{
	Av		   *v;

	if (depth > AV_MAX_DEPTH)
	{
		st_fail(err, ST_ERR_VALIDATION, "Nesting Levels have exceeded supported limits");
		return NULL;
	}
	switch (n->kind)
	{
		case PQL_N_LIT:
			return av_copy(n->value);
		case PQL_N_PARAM:
			if (params == NULL || n->param >= params->n)
			{
				st_fail(err, ST_ERR_VALIDATION, "Number of parameters in request and statement don't match.");
				return NULL;
			}
			return av_copy(params->items[n->param]);
		case PQL_N_MAP:
			v = av_new(AV_M);
			for (int i = 0; i < n->nargs; i++)
			{
				Av		   *m = value_at(n->args[i], params, depth + 1, err);

				if (m == NULL)
					return NULL;
				av_map_put_nocheck(v, n->keys[i], n->key_lens[i], m);
			}
			return v;
		case PQL_N_LIST:
			v = av_new(AV_L);
			for (int i = 0; i < n->nargs; i++)
			{
				Av		   *m = value_at(n->args[i], params, depth + 1, err);

				if (m == NULL)
					return NULL;
				av_append(v, m);
			}
			return v;
		case PQL_N_SET:
			if (n->nargs == 0)
			{
				st_fail(err, ST_ERR_VALIDATION, "One or more parameter values were invalid: An set may not be empty");
				return NULL;
			}
			v = NULL;
			for (int i = 0; i < n->nargs; i++)
			{
				Av		   *m = value_at(n->args[i], params, depth + 1, err);

				if (m == NULL)
					return NULL;
				if (!av_type_is_scalar(m->type) || (v && av_set_member_type(v->type) != m->type))
				{
					st_fail(err, ST_ERR_VALIDATION,
							"One or more parameter values were invalid: a set holds strings, numbers or binaries, all of one type");
					return NULL;
				}
				if (v == NULL)
					v = av_new(av_set_type_of(m->type));
				if (av_set_contains(v, m))
				{
					st_fail(err, ST_ERR_VALIDATION,
							"One or more parameter values were invalid: Input collection contains duplicates");
					return NULL;
				}
				av_append(v, m);
			}
			return v;
		default:
			st_fail(err, ST_ERR_VALIDATION, "Statement wasn't well formed, can't be processed: not a value");
			return NULL;
	}
}

Av *
partiql_value(const PqlNode *n, const Av *params, StErr *err)
{
	return value_at(n, params, 1, err);
}

Av *
partiql_plan_values(const PqlPlan *plan, const Av *params, StErr *err)
{
	Av		   *values;

	if (plan->nvalues == 0)
		return NULL;
	values = av_new(AV_M);
	for (int i = 0; i < plan->nvalues; i++)
	{
		char		key[32];
		Av		   *v = partiql_value(plan->values[i], params, err);

		if (v == NULL)
			return NULL;
		snprintf(key, sizeof(key), ":v%d", i);
		av_map_put_nocheck(values, key, strlen(key), v);
	}
	return values;
}
