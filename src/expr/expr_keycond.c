/*-------------------------------------------------------------------------
 *
 * expr_keycond.c
 *		KeyConditionExpression: the restricted condition that selects a
 *		Query's partition and sort-key range.
 *
 * A key condition is "pk = :v" optionally AND-ed with one sort-key
 * condition: =, <, <=, >, >=, BETWEEN or begins_with, always on a top-level
 * attribute against :values.  The shape is checked when parsing (it depends
 * only on the text); which attribute is the partition key is only known
 * with the table's key schema, in expr_key_condition().
 *
 *-------------------------------------------------------------------------
 */
#include "expr_int.h"

#define MAX_TERMS 2
/* an expression has at most EXPR_MAX_OPERATORS operators, so as many + 1 terms */
#define MAX_ALL_TERMS (EXPR_MAX_OPERATORS + 1)

static bool
bad_operator(ExprParser *ps, const ExprNode *n)
{
	/* DynamoDB words this one without the usual "Invalid ...:" prefix */
	return st_fail(ps->err, ST_ERR_VALIDATION,
				   "Invalid operator used in KeyConditionExpression: %s", expr_node_name(n));
}

/*
 * A term's operands: exactly one top-level attribute, the others :values.
 * DynamoDB checks them left to right, in its own words (none with the
 * "Invalid KeyConditionExpression:" prefix):
 *	 "KeyConditionExpressions cannot contain nested operations" (size()),
 *	 "Invalid condition in KeyConditionExpression: Multiple attribute names
 *	 used in one condition", "KeyConditionExpressions cannot have conditions
 *	 on nested attributes", "Invalid condition in KeyConditionExpression: No
 *	 key attribute specified".
 */
static bool
check_term_operands(ExprParser *ps, const ExprNode *n)
{
	const ExprNode *attr = NULL;

	for (int i = 0; i < n->nargs; i++)
	{
		const ExprNode *a = n->args[i];

		if (a->kind == EXPR_N_PATH)
		{
			if (attr != NULL)
				return st_fail(ps->err, ST_ERR_VALIDATION,
							   "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition");
			if (a->path->n > 1)
				return st_fail(ps->err, ST_ERR_VALIDATION,
							   "KeyConditionExpressions cannot have conditions on nested attributes");
			attr = a;
		}
		else if (a->kind != EXPR_N_VALUE)
			return st_fail(ps->err, ST_ERR_VALIDATION,
						   "KeyConditionExpressions cannot contain nested operations");
	}
	if (attr == NULL)
		return st_fail(ps->err, ST_ERR_VALIDATION,
					   "Invalid condition in KeyConditionExpression: No key attribute specified");
	return true;
}

/*
 * "pk = pk": the same attribute twice is the binder's error ("The first
 * operand must be distinct from the remaining operands ..."), which
 * DynamoDB reports before the key condition's own checks.
 */
static bool
same_attribute(const ExprNode *a, const ExprNode *b)
{
	const ExprPathElem *x,
			   *y;

	if (a->kind != EXPR_N_PATH || b->kind != EXPR_N_PATH || a->path->n != 1 || b->path->n != 1)
		return false;
	x = &a->path->elems[0];
	y = &b->path->elems[0];
	return x->kind == y->kind && x->len == y->len && memcmp(x->name, y->name, x->len) == 0;
}

/*
 * ":v < sk" is "sk > :v": DynamoDB accepts the value on the left of a
 * comparison.  The term is turned around while parsing (the tree is still
 * the parser's own), so that everything after sees the key on the left.
 */
static void
key_on_left(ExprNode *n)
{
	static const ExprCmpOp mirror[] = {EXPR_EQ, EXPR_NE, EXPR_GT, EXPR_GE, EXPR_LT, EXPR_LE};
	ExprNode   *left = n->args[0];

	if (left->kind != EXPR_N_VALUE || n->args[1]->kind != EXPR_N_PATH)
		return;
	n->args[0] = n->args[1];
	n->args[1] = left;
	n->op = mirror[n->op];
}

static bool
check_term(ExprParser *ps, const ExprNode *n)
{
	switch (n->kind)
	{
		case EXPR_N_CMP:
			if (n->op == EXPR_NE)
				return bad_operator(ps, n);
			if (same_attribute(n->args[0], n->args[1]))
				return true;
			if (!check_term_operands(ps, n))
				return false;
			key_on_left((ExprNode *) n);
			return true;
		case EXPR_N_BETWEEN:
		case EXPR_N_BEGINS_WITH:
			if (n->args[0]->kind != EXPR_N_PATH)
				return st_fail(ps->err, ST_ERR_VALIDATION,
							   "Invalid condition in KeyConditionExpression: %s operator must have the key attribute as its first operand",
							   expr_node_name(n));
			/* the binder checks begins_with's operands are distinct, not BETWEEN's */
			if (n->kind == EXPR_N_BEGINS_WITH && same_attribute(n->args[0], n->args[1]))
				return true;
			return check_term_operands(ps, n);
		default:
			return bad_operator(ps, n);
	}
}

/* Collect the AND-ed terms of n (at most cap are kept; *nterms counts them all). */
static void
collect_terms(const ExprNode *n, const ExprNode **terms, int cap, int *nterms)
{
	if (n->kind == EXPR_N_AND)
	{
		collect_terms(n->args[0], terms, cap, nterms);
		collect_terms(n->args[1], terms, cap, nterms);
		return;
	}
	if (*nterms < cap)
		terms[*nterms] = n;
	(*nterms)++;
}

/* Is there an OR or NOT anywhere in the tree?  Reported before anything else. */
static const ExprNode *
find_or_not(const ExprNode *n)
{
	if (n->kind == EXPR_N_OR || n->kind == EXPR_N_NOT)
		return n;
	if (n->kind != EXPR_N_AND)
		return NULL;
	for (int i = 0; i < n->nargs; i++)
	{
		const ExprNode *found = find_or_not(n->args[i]);

		if (found)
			return found;
	}
	return NULL;
}

/*
 * The shape of each term, from the text alone.  How many terms there may
 * be (one per key attribute, at most two) is checked with the names
 * resolved, in expr_key_condition(): DynamoDB reports a key named twice
 * before too many terms.
 */
bool
expr_check_key_condition(ExprParser *ps, const ExprNode *cond)
{
	const ExprNode *terms[MAX_ALL_TERMS];
	const ExprNode *bad = find_or_not(cond);
	int			nterms = 0;

	if (bad != NULL)
		return bad_operator(ps, bad);
	collect_terms(cond, terms, MAX_ALL_TERMS, &nterms);
	for (int i = 0; i < Min(nterms, MAX_ALL_TERMS); i++)
		if (!check_term(ps, terms[i]))
			return false;
	return true;
}

static ExprKeyOp
key_op(const ExprNode *n)
{
	static const ExprKeyOp cmp_ops[] = {
		EXPR_KEY_EQ, EXPR_KEY_EQ, EXPR_KEY_LT, EXPR_KEY_LE, EXPR_KEY_GT, EXPR_KEY_GE
	};

	if (n->kind == EXPR_N_BETWEEN)
		return EXPR_KEY_BETWEEN;
	if (n->kind == EXPR_N_BEGINS_WITH)
		return EXPR_KEY_BEGINS_WITH;
	return cmp_ops[n->op];
}

int
expr_key_terms(const StExpr *kc, ExprKeyTerm *terms)
{
	const ExprNode *nodes[MAX_TERMS];
	int			n = 0;

	if (kc == NULL || kc->kind != EXPR_KEY_CONDITION || kc->cond == NULL)
		return 0;
	collect_terms(kc->cond, nodes, MAX_TERMS, &n);
	n = Min(n, MAX_TERMS);
	for (int i = 0; i < n; i++)
	{
		terms[i].op = key_op(nodes[i]);
		terms[i].path = nodes[i]->args[0]->path;
		terms[i].value1 = nodes[i]->args[1]->name;
		terms[i].value2 = nodes[i]->nargs > 2 ? nodes[i]->args[2]->name : NULL;
	}
	return n;
}

static const Av *
term_value(const ExprParams *p, const char *name)
{
	return name ? expr_param_value(p, name, strlen(name)) : NULL;
}

/* Assign one term to the partition or sort key of out. */
static bool
assign_term(const ExprKeyTerm *t, const ExprResolvedPath *rp, const char *pk, int pk_len,
			const char *sk, int sk_len, const ExprParams *p,
			ExprKeyCondition *out, StErr *err)
{
	const ExprPathElem *name = &rp->elems[0];
	bool		is_pk = name->len == pk_len && memcmp(name->name, pk, pk_len) == 0;
	bool		is_sk = sk != NULL && name->len == sk_len && memcmp(name->name, sk, sk_len) == 0;

	if (is_pk)
	{
		if (t->op != EXPR_KEY_EQ)
			return st_fail(err, ST_ERR_VALIDATION, "Query key condition not supported");
		out->pk_value = term_value(p, t->value1);
		return true;
	}
	if (!is_sk)
	{
		if (sk != NULL)
			return st_fail(err, ST_ERR_VALIDATION,
						   "Query condition missed key schema element: %.*s", sk_len, sk);
		return st_fail(err, ST_ERR_VALIDATION, "Query key condition not supported");
	}
	out->has_sk = true;
	out->sk_op = t->op;
	out->sk_value1 = term_value(p, t->value1);
	out->sk_value2 = term_value(p, t->value2);
	return true;
}

/*
 * One condition per key attribute (names resolved), then at most two:
 * "KeyConditionExpressions must only contain one condition per key", then
 * "Conditions can be of length 1 or 2 only", both without the usual
 * prefix, in this order (as DynamoDB answers).
 */
static bool
check_term_count(const StExpr *kc, const ExprParams *p, StErr *err)
{
	const ExprNode *nodes[MAX_ALL_TERMS];
	ExprResolvedPath *names;
	int			n = 0;

	if (kc == NULL || kc->kind != EXPR_KEY_CONDITION || kc->cond == NULL)
		return true;
	collect_terms(kc->cond, nodes, MAX_ALL_TERMS, &n);
	n = Min(n, MAX_ALL_TERMS);
	names = palloc(sizeof(ExprResolvedPath) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		/* the parser and the binder leave one attribute, then :values (never trust it blindly) */
		for (int a = 0; a < nodes[i]->nargs; a++)
			if (nodes[i]->args[a]->kind != (a == 0 ? EXPR_N_PATH : EXPR_N_VALUE))
				return st_fail(err, ST_ERR_VALIDATION,
							   "Invalid condition in KeyConditionExpression: No key attribute specified");
		if (!expr_resolve_path(nodes[i]->args[0]->path, p, &names[i]))
			return expr_fail(EXPR_KEY_CONDITION, err,
							 "An expression attribute name used in the document path is not defined");
		for (int j = 0; j < i; j++)
		{
			if (expr_elem_equal(&names[j].elems[0], &names[i].elems[0]))
				return st_fail(err, ST_ERR_VALIDATION,
							   "KeyConditionExpressions must only contain one condition per key");
		}
	}
	if (n > MAX_TERMS)
		return st_fail(err, ST_ERR_VALIDATION, "Conditions can be of length 1 or 2 only");
	return true;
}

bool
expr_key_condition(const StExpr *kc, const ExprParams *p,
				   const char *pk, int pk_len, const char *sk, int sk_len,
				   ExprKeyCondition *out, StErr *err)
{
	ExprKeyTerm terms[MAX_TERMS];
	int			n;

	memset(out, 0, sizeof(*out));
	if (!check_term_count(kc, p, err))
		return false;
	n = expr_key_terms(kc, terms);
	for (int i = 0; i < n; i++)
	{
		ExprResolvedPath rp;

		if (!expr_resolve_path(terms[i].path, p, &rp))
			return expr_fail(EXPR_KEY_CONDITION, err,
							 "An expression attribute name used in the document path is not defined");
		if (!assign_term(&terms[i], &rp, pk, pk_len, sk, sk_len, p, out, err))
			return false;
	}
	if (out->pk_value == NULL)
		return st_fail(err, ST_ERR_VALIDATION,
					   "Query condition missed key schema element: %.*s", pk_len, pk);
	return true;
}

/*
 * A multi-attribute key's condition: one term per key attribute used, at
 * most one per attribute ("KeyConditionExpressions must only contain one
 * condition per key", as for any key), each on one of the key's attributes.
 */
bool
expr_key_condition_multi(const StExpr *kc, const ExprParams *p,
						 int nkeys, const char *const *names,
						 ExprKeyConditionMulti *out, StErr *err)
{
	const ExprNode *nodes[MAX_ALL_TERMS];
	int			n = 0;

	memset(out, 0, sizeof(*out));
	if (nkeys > EXPR_MAX_KEY_ATTRIBUTES)
		return st_fail(err, ST_ERR_VALIDATION, "Query key condition not supported");
	if (kc == NULL || kc->kind != EXPR_KEY_CONDITION || kc->cond == NULL)
		return true;
	collect_terms(kc->cond, nodes, MAX_ALL_TERMS, &n);
	if (n > MAX_ALL_TERMS)
		return st_fail(err, ST_ERR_VALIDATION, "Query key condition not supported");
	for (int i = 0; i < n; i++)
	{
		const ExprNode *t = nodes[i];
		ExprResolvedPath rp;
		int			k;

		/* the parser and the binder leave one attribute, then :values (never trust it blindly) */
		for (int a = 0; a < t->nargs; a++)
			if (t->args[a]->kind != (a == 0 ? EXPR_N_PATH : EXPR_N_VALUE))
				return st_fail(err, ST_ERR_VALIDATION,
							   "Invalid condition in KeyConditionExpression: No key attribute specified");
		if (!expr_resolve_path(t->args[0]->path, p, &rp))
			return expr_fail(EXPR_KEY_CONDITION, err,
							 "An expression attribute name used in the document path is not defined");
		for (k = 0; k < nkeys; k++)
			if ((size_t) rp.elems[0].len == strlen(names[k]) &&
				memcmp(rp.elems[0].name, names[k], rp.elems[0].len) == 0)
				break;
		if (k == nkeys)
		{
			out->other_attribute = true;
			continue;
		}
		if (out->has[k])
			return st_fail(err, ST_ERR_VALIDATION,
						   "KeyConditionExpressions must only contain one condition per key");
		out->has[k] = true;
		out->op[k] = key_op(t);
		out->value1[k] = term_value(p, t->nargs > 1 ? t->args[1]->name : NULL);
		out->value2[k] = term_value(p, t->nargs > 2 ? t->args[2]->name : NULL);
	}
	return true;
}
