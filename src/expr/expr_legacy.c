/*-------------------------------------------------------------------------
 *
 * expr_legacy.c
 *		DynamoDB's legacy parameters (Expected, QueryFilter, ScanFilter,
 *		KeyConditions, AttributeUpdates, AttributesToGet) translated into
 *		expression trees.
 *
 * Nothing here evaluates anything: each legacy parameter becomes the tree
 * its expression counterpart would parse to, so that binding, evaluation,
 * update application and projection stay one implementation.  What is
 * legacy-specific is the validation (arity and types per comparison
 * operator, the Exists / Value rules of Expected, update actions) and its
 * messages, and the mapping of each operator to a node:
 *
 *	EQ NE LE LT GE GT	a = :v, a <> :v, ...  (<> is true for a missing
 *						attribute, as NE is)
 *	NOT_NULL, NULL		attribute_exists(a), attribute_not_exists(a)
 *	CONTAINS			contains(a, :v)
 *	NOT_CONTAINS		NOT contains(a, :v)  (true for a missing attribute)
 *	BEGINS_WITH			begins_with(a, :v)
 *	IN					a IN (:v1, ...)
 *	BETWEEN				a BETWEEN :lo AND :hi
 *	{Value: v}			a = :v  (Exists true or absent)
 *	{Exists: false}		attribute_not_exists(a)
 *
 * Several conditions are AND-ed, or OR-ed with ConditionalOperator OR, in
 * the order of the map.
 *
 *-------------------------------------------------------------------------
 */
#include "expr_int.h"

#include <stdio.h>

#define MSG_INVALID "One or more parameter values were invalid: "
#define MSG_VALIDATION "1 validation error detected: "

/* DynamoDB lists the operators in this order in its enum message. */
#define OPERATOR_SET "[IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, LE, BEGINS_WITH, GE, CONTAINS]"

typedef enum LegacyOp
{
	OP_EQ,
	OP_NE,
	OP_LE,
	OP_LT,
	OP_GE,
	OP_GT,
	OP_NOT_NULL,
	OP_NULL,
	OP_CONTAINS,
	OP_NOT_CONTAINS,
	OP_BEGINS_WITH,
	OP_IN,
	OP_BETWEEN
} LegacyOp;

#define TYPE_BIT(t) (1u << (t))
#define SCALAR_TYPES (TYPE_BIT(AV_S) | TYPE_BIT(AV_N) | TYPE_BIT(AV_B))

typedef struct OpDef
{
	const char *name;
	int			min_values;
	int			max_values;		/* -1: no upper bound */
	unsigned	types;			/* value types allowed; 0: any */
	bool		indexable;		/* usable on a key in KeyConditions */
} OpDef;

/*
 * EQ and NE take any type ("supported for all datatypes, including lists
 * and maps"); ordering, CONTAINS and IN take scalars; BEGINS_WITH S or B.
 */
static const OpDef op_defs[] = {
	[OP_EQ] = {"EQ", 1, 1, 0, true},
	[OP_NE] = {"NE", 1, 1, 0, false},
	[OP_LE] = {"LE", 1, 1, SCALAR_TYPES, true},
	[OP_LT] = {"LT", 1, 1, SCALAR_TYPES, true},
	[OP_GE] = {"GE", 1, 1, SCALAR_TYPES, true},
	[OP_GT] = {"GT", 1, 1, SCALAR_TYPES, true},
	[OP_NOT_NULL] = {"NOT_NULL", 0, 0, 0, false},
	[OP_NULL] = {"NULL", 0, 0, 0, false},
	[OP_CONTAINS] = {"CONTAINS", 1, 1, SCALAR_TYPES, false},
	[OP_NOT_CONTAINS] = {"NOT_CONTAINS", 1, 1, SCALAR_TYPES, false},
	[OP_BEGINS_WITH] = {"BEGINS_WITH", 1, 1, TYPE_BIT(AV_S) | TYPE_BIT(AV_B), true},
	[OP_IN] = {"IN", 1, -1, SCALAR_TYPES, false},
	[OP_BETWEEN] = {"BETWEEN", 2, 2, SCALAR_TYPES, true},
};

/* One translation: where generated values go, and how to word errors. */
typedef struct Builder
{
	const char *param;			/* "expected", "queryFilter", ... as in messages */
	bool		expected;		/* Exists / Value forms allowed */
	Av		   *values;
	StErr	   *err;
} Builder;

/* One entry of a legacy map: the attribute name and its specification. */
typedef struct Entry
{
	const char *attr;
	int			len;
	const Av   *spec;
} Entry;

static const Av *
member(const Av *map, const char *name)
{
	return map && map->type == AV_M ? av_map_get(map, name, strlen(name)) : NULL;
}

/* ---------- nodes ---------- */

/* A path of one NAME step: a legacy name is always a whole top-level attribute. */
static ExprPath *
name_path(const char *name, int len)
{
	ExprPath   *path = palloc0(sizeof(ExprPath));

	path->n = 1;
	path->elems = palloc0(sizeof(ExprPathElem));
	path->elems[0].kind = EXPR_PE_NAME;
	path->elems[0].name = pnstrdup(name, len);
	path->elems[0].len = len;
	return path;
}

static ExprNode *
path_node(const Entry *e)
{
	ExprNode   *n = expr_new_node(EXPR_N_PATH, 0);

	n->path = name_path(e->attr, e->len);
	return n;
}

/*
 * A :value node for v, added to the values map under a generated name.  The
 * '.' makes it a name no request can use, so it never meets one of the
 * request's own ExpressionAttributeValues.
 */
static ExprNode *
value_node(Builder *b, const Av *v)
{
	ExprNode   *n = expr_new_node(EXPR_N_VALUE, 0);
	char		name[32];
	int			len = snprintf(name, sizeof(name), ":legacy.%d", b->values->n);

	av_map_put_nocheck(b->values, name, len, av_copy(v));
	n->name = pnstrdup(name, len);
	n->name_len = len;
	return n;
}

static ExprNode *
node2(ExprNodeKind kind, ExprNode *a, ExprNode *c)
{
	ExprNode   *n = expr_new_node(kind, 2);

	n->args[0] = a;
	n->args[1] = c;
	return n;
}

static ExprNode *
node1(ExprNodeKind kind, ExprNode *a)
{
	ExprNode   *n = expr_new_node(kind, 1);

	n->args[0] = a;
	return n;
}

/* The condition node of one operator over an attribute and its values. */
static ExprNode *
op_node(Builder *b, const Entry *e, LegacyOp op, Av *const *vals, int nvals)
{
	static const ExprCmpOp cmp[] = {
		[OP_EQ] = EXPR_EQ, [OP_NE] = EXPR_NE, [OP_LE] = EXPR_LE,
		[OP_LT] = EXPR_LT, [OP_GE] = EXPR_GE, [OP_GT] = EXPR_GT
	};
	ExprNode   *n;

	switch (op)
	{
		case OP_NOT_NULL:
			return node1(EXPR_N_ATTR_EXISTS, path_node(e));
		case OP_NULL:
			return node1(EXPR_N_ATTR_NOT_EXISTS, path_node(e));
		case OP_CONTAINS:
			return node2(EXPR_N_CONTAINS, path_node(e), value_node(b, vals[0]));
		case OP_NOT_CONTAINS:
			return node1(EXPR_N_NOT, node2(EXPR_N_CONTAINS, path_node(e), value_node(b, vals[0])));
		case OP_BEGINS_WITH:
			return node2(EXPR_N_BEGINS_WITH, path_node(e), value_node(b, vals[0]));
		case OP_IN:
		case OP_BETWEEN:
			n = expr_new_node(op == OP_IN ? EXPR_N_IN : EXPR_N_BETWEEN, nvals + 1);
			n->args[0] = path_node(e);
			for (int i = 0; i < nvals; i++)
				n->args[i + 1] = value_node(b, vals[i]);
			return n;
		default:
			n = node2(EXPR_N_CMP, path_node(e), value_node(b, vals[0]));
			n->op = cmp[op];
			return n;
	}
}

/* ---------- validation ---------- */

/*
 * The ComparisonOperator of a specification: *op is -1 when it is absent
 * and not required (Expected's Value / Exists forms).
 */
static bool
read_op(Builder *b, const Entry *e, bool required, int *op)
{
	const Av   *v = member(e->spec, "ComparisonOperator");

	*op = -1;
	if (v == NULL)
	{
		if (!required)
			return true;
		return st_fail_null(b->err, "%s.%.*s.member.comparisonOperator",
							b->param, e->len, e->attr);
	}
	if (v->type != AV_S)
		return st_fail(b->err, ST_ERR_SERIALIZATION,
					   "Unexpected value type for ComparisonOperator: expected a string");
	for (int i = 0; i < (int) lengthof(op_defs); i++)
	{
		if ((int) strlen(op_defs[i].name) == v->len &&
			memcmp(op_defs[i].name, v->str, v->len) == 0)
		{
			*op = i;
			return true;
		}
	}
	return st_fail(b->err, ST_ERR_VALIDATION,
				   MSG_VALIDATION "Value '%.*s' at '%s.%.*s.member.comparisonOperator' failed to satisfy constraint: Member must satisfy enum value set: " OPERATOR_SET,
				   Min(v->len, 100), v->str, b->param, e->len, e->attr);
}

/* The values an operator is given: their count, their common type, the operator's types, BETWEEN's order. */
static bool
check_values(Builder *b, LegacyOp op, Av *const *vals, int nvals)
{
	const OpDef *def = &op_defs[op];

	if (nvals < def->min_values || (def->max_values >= 0 && nvals > def->max_values))
		return st_fail(b->err, ST_ERR_VALIDATION,
					   MSG_INVALID "Invalid number of argument(s) for the %s ComparisonOperator", def->name);
	for (int i = 1; i < nvals; i++)
		if (vals[i]->type != vals[0]->type)
			return st_fail(b->err, ST_ERR_VALIDATION,
						   MSG_INVALID "AttributeValues inside AttributeValueList must be of same type");
	if (nvals > 0 && def->types != 0 && (def->types & TYPE_BIT(vals[0]->type)) == 0)
		return st_fail(b->err, ST_ERR_VALIDATION,
					   MSG_INVALID "ComparisonOperator %s is not valid for %s AttributeValue type",
					   def->name, av_type_name(vals[0]->type));
	if (op == OP_BETWEEN && av_compare_scalar(vals[0], vals[1]) > 0)
		return st_fail(b->err, ST_ERR_VALIDATION,
					   "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound");
	return true;
}

/* The AttributeValueList of a specification (items, count), or none. */
static bool
value_list(Builder *b, const Entry *e, Av *const **vals, int *nvals)
{
	const Av   *list = member(e->spec, "AttributeValueList");

	*vals = NULL;
	*nvals = 0;
	if (list == NULL)
		return true;
	if (list->type != AV_L)
		return st_fail(b->err, ST_ERR_SERIALIZATION,
					   "Unexpected value type for AttributeValueList: expected a list");
	*vals = list->items;
	*nvals = list->n;
	return true;
}

/* ---------- conditions ---------- */

/* A QueryFilter / ScanFilter / KeyConditions entry: ComparisonOperator + AttributeValueList. */
static bool
read_condition(Builder *b, const Entry *e, int *op, Av *const **vals, int *nvals)
{
	return read_op(b, e, true, op) && value_list(b, e, vals, nvals) &&
		check_values(b, (LegacyOp) *op, *vals, *nvals);
}

static ExprNode *
filter_node(Builder *b, const Entry *e)
{
	int			op;
	Av		   *const *vals;
	int			nvals;

	if (!read_condition(b, e, &op, &vals, &nvals))
		return NULL;
	return op_node(b, e, (LegacyOp) op, vals, nvals);
}

/* "One or more parameter values were invalid: <what> for Attribute: <name>" */
static ExprNode *
invalid_entry(Builder *b, const char *what, const Entry *e)
{
	st_fail(b->err, ST_ERR_VALIDATION, MSG_INVALID "%s for Attribute: %.*s", what, e->len, e->attr);
	return NULL;
}

/* Expected with a ComparisonOperator: AttributeValueList, or Value as its one value. */
static ExprNode *
expected_compare(Builder *b, const Entry *e, LegacyOp op, const Av *value)
{
	Av		   *const *vals;
	int			nvals;

	if (member(e->spec, "Exists") != NULL)
		return invalid_entry(b, "Exists and ComparisonOperator cannot be used together", e);
	if (!value_list(b, e, &vals, &nvals))
		return NULL;
	if (op != OP_NULL && op != OP_NOT_NULL && value == NULL &&
		member(e->spec, "AttributeValueList") == NULL)
	{
		st_fail(b->err, ST_ERR_VALIDATION,
				MSG_INVALID "Value or AttributeValueList must be used with ComparisonOperator: %s for Attribute: %.*s",
				op_defs[op].name, e->len, e->attr);
		return NULL;
	}
	if (value != NULL)
	{
		vals = (Av *const *) &value;
		nvals = 1;
	}
	if (!check_values(b, op, vals, nvals))
		return NULL;
	return op_node(b, e, op, vals, nvals);
}

/* An Expected entry in any of its forms. */
static ExprNode *
expected_node(Builder *b, const Entry *e)
{
	const Av   *value = member(e->spec, "Value");
	const Av   *exists = member(e->spec, "Exists");
	bool		must_exist;
	int			op;

	if (value != NULL && member(e->spec, "AttributeValueList") != NULL)
		return invalid_entry(b, "Value and AttributeValueList cannot be used together", e);
	if (!read_op(b, e, false, &op))
		return NULL;
	if (op >= 0)
		return expected_compare(b, e, (LegacyOp) op, value);
	if (member(e->spec, "AttributeValueList") != NULL)
		return invalid_entry(b, "AttributeValueList can only be used with a ComparisonOperator", e);
	if (exists != NULL && exists->type != AV_BOOL)
	{
		st_fail(b->err, ST_ERR_SERIALIZATION, "Unexpected value type for Exists: expected a boolean");
		return NULL;
	}
	must_exist = exists == NULL || exists->boolval;
	if (must_exist && value == NULL)
	{
		st_fail(b->err, ST_ERR_VALIDATION,
				MSG_INVALID "Value must be provided when Exists is %s for Attribute: %.*s",
				exists ? "true" : "null", e->len, e->attr);
		return NULL;
	}
	if (!must_exist && value != NULL)
		return invalid_entry(b, "Value cannot be used when Exists is false", e);
	if (!must_exist)
		return op_node(b, e, OP_NULL, NULL, 0);
	return op_node(b, e, OP_EQ, (Av *const *) &value, 1);
}

static Entry
entry_at(const Av *map, int i)
{
	Entry		e;

	e.attr = map->members[i].name;
	e.len = map->members[i].name_len;
	e.spec = map->members[i].value;
	return e;
}

/* Every specification of a legacy map must be an object. */
static bool
check_entries(const Av *map, const char *what, StErr *err)
{
	if (map == NULL || map->type != AV_M || map->n == 0)
		return st_fail(err, ST_ERR_VALIDATION, "%s must not be empty", what);
	for (int i = 0; i < map->n; i++)
		if (map->members[i].value->type != AV_M)
			return st_fail(err, ST_ERR_SERIALIZATION,
						   "Unexpected value type for %s: expected an object", what);
	return true;
}

StExpr *
expr_legacy_condition(ExprLegacyParam param, const Av *conditions, bool or,
					  Av *values, StErr *err)
{
	static const char *const params[] = {"expected", "queryFilter", "scanFilter"};
	static const char *const names[] = {"Expected", "QueryFilter", "ScanFilter"};
	Builder		b = {params[param], param == EXPR_LEGACY_EXPECTED, values, err};
	ExprNode   *root = NULL;
	StExpr	   *e;

	if (!check_entries(conditions, names[param], err))
		return NULL;
	for (int i = 0; i < conditions->n; i++)
	{
		Entry		en = entry_at(conditions, i);
		ExprNode   *n = b.expected ? expected_node(&b, &en) : filter_node(&b, &en);

		if (n == NULL)
			return NULL;
		root = root ? node2(or ? EXPR_N_OR : EXPR_N_AND, root, n) : n;
	}
	e = palloc0(sizeof(StExpr));
	e->kind = param == EXPR_LEGACY_EXPECTED ? EXPR_CONDITION : EXPR_FILTER;
	e->cond = root;
	return e;
}

/* ---------- KeyConditions ---------- */

static int
find_entry(const Av *map, const char *name, int len)
{
	for (int i = 0; i < map->n; i++)
		if (map->members[i].name_len == len && memcmp(map->members[i].name, name, len) == 0)
			return i;
	return -1;
}

/*
 * The term of one key attribute (*term NULL when an optional sort key has
 * none), checked as DynamoDB checks them: in key-schema order.
 */
static bool
key_term(Builder *b, const Av *conds, const int *ops, const char *key, int len,
		 bool is_hash, bool has_range, ExprNode **term)
{
	int			i = find_entry(conds, key, len);
	Entry		e;
	Av		   *const *vals;
	int			nvals;

	*term = NULL;
	if (is_hash && !has_range && conds->n > 1)
		return st_fail(b->err, ST_ERR_VALIDATION, "Query key condition not supported");
	if (i < 0)
	{
		if (is_hash || conds->n > 1)
			return st_fail(b->err, ST_ERR_VALIDATION,
						   "Query condition missed key schema element: %.*s", len, key);
		return true;
	}
	if (!op_defs[ops[i]].indexable)
		return st_fail(b->err, ST_ERR_VALIDATION,
					   "Attempted conditional constraint is not an indexable operation");
	if (is_hash && ops[i] != OP_EQ)
		return st_fail(b->err, ST_ERR_VALIDATION, "Query key condition not supported");
	e = entry_at(conds, i);
	value_list(b, &e, &vals, &nvals);
	*term = op_node(b, &e, (LegacyOp) ops[i], vals, nvals);
	return true;
}

/*
 * The operator of each entry of KeyConditions, every entry checked before
 * their number, as DynamoDB does; NULL (and *err) when one is refused.
 */
static int *
key_condition_ops(Builder *b, const Av *conditions, StErr *err)
{
	int		   *ops;

	if (conditions == NULL || conditions->type != AV_M)
	{
		st_fail(err, ST_ERR_SERIALIZATION, "KeyConditions must be an object");
		return NULL;
	}
	if (conditions->n > 0 && !check_entries(conditions, "KeyConditions", err))
		return NULL;
	ops = palloc(sizeof(int) * Max(conditions->n, 1));
	for (int i = 0; i < conditions->n; i++)
	{
		Entry		en = entry_at(conditions, i);
		Av		   *const *vals;
		int			nvals;

		if (!read_condition(b, &en, &ops[i], &vals, &nvals))
			return NULL;
	}
	return ops;
}

StExpr *
expr_legacy_key_conditions(const Av *conditions, const char *pk, int pk_len,
						   const char *sk, int sk_len, Av *values, StErr *err)
{
	Builder		b = {"keyConditions", false, values, err};
	int		   *ops;
	ExprNode   *pk_term;
	ExprNode   *sk_term = NULL;
	StExpr	   *e;

	if ((ops = key_condition_ops(&b, conditions, err)) == NULL)
		return NULL;
	if (conditions->n < 1 || conditions->n > 2)
	{
		st_fail(err, ST_ERR_VALIDATION, "Conditions can be of length 1 or 2 only");
		return NULL;
	}
	if (!key_term(&b, conditions, ops, pk, pk_len, true, sk != NULL, &pk_term) ||
		(sk != NULL && !key_term(&b, conditions, ops, sk, sk_len, false, true, &sk_term)))
		return NULL;
	e = palloc0(sizeof(StExpr));
	e->kind = EXPR_KEY_CONDITION;
	e->cond = sk_term ? node2(EXPR_N_AND, pk_term, sk_term) : pk_term;
	return e;
}

/*
 * KeyConditions on a multi-attribute GSI's key (names: its HASH then RANGE
 * attributes): one term per entry, ANDed, the key attributes' in key-schema
 * order and any other after them, for expr_key_condition_multi to check as
 * it checks a KeyConditionExpression (every HASH attribute with EQ, the
 * RANGE attributes from the first, none skipped).  DynamoDB's Query
 * reference keeps KeyConditions for every index; its rules on such a key
 * are the expression's.
 */
StExpr *
expr_legacy_key_conditions_multi(const Av *conditions, int nkeys, const char *const *names,
								 Av *values, StErr *err)
{
	Builder		b = {"keyConditions", false, values, err};
	int		   *ops;
	bool	   *used;
	ExprNode   *tree = NULL;
	StExpr	   *e;

	if ((ops = key_condition_ops(&b, conditions, err)) == NULL)
		return NULL;
	used = palloc0(sizeof(bool) * Max(conditions->n, 1));
	if (conditions->n < 1)
	{
		st_fail(err, ST_ERR_VALIDATION, "Conditions can be of length 1 or 2 only");
		return NULL;
	}
	for (int pass = 0; pass < 2; pass++)
	{
		for (int k = 0; k < (pass == 0 ? nkeys : conditions->n); k++)
		{
			int			i = pass == 0 ? find_entry(conditions, names[k], strlen(names[k])) : k;
			Entry		en;
			Av		   *const *vals;
			int			nvals;
			ExprNode   *term;

			if (i < 0 || used[i])
				continue;
			used[i] = true;
			if (!op_defs[ops[i]].indexable)
			{
				st_fail(err, ST_ERR_VALIDATION, "Attempted conditional constraint is not an indexable operation");
				return NULL;
			}
			en = entry_at(conditions, i);
			value_list(&b, &en, &vals, &nvals);
			term = op_node(&b, &en, (LegacyOp) ops[i], vals, nvals);
			tree = tree ? node2(EXPR_N_AND, tree, term) : term;
		}
	}
	e = palloc0(sizeof(StExpr));
	e->kind = EXPR_KEY_CONDITION;
	e->cond = tree;
	return e;
}

/* ---------- AttributeUpdates ---------- */

typedef enum LegacyAction
{
	ACTION_PUT,
	ACTION_ADD,
	ACTION_DELETE
} LegacyAction;

/* The Action of an update (PUT when absent). */
static bool
read_action(const Entry *e, LegacyAction *action, StErr *err)
{
	static const char *const names[] = {"PUT", "ADD", "DELETE"};
	const Av   *v = member(e->spec, "Action");

	*action = ACTION_PUT;
	if (v == NULL)
		return true;
	if (v->type != AV_S)
		return st_fail(err, ST_ERR_SERIALIZATION, "Unexpected value type for Action: expected a string");
	for (int i = 0; i < (int) lengthof(names); i++)
	{
		if ((int) strlen(names[i]) == v->len && memcmp(names[i], v->str, v->len) == 0)
		{
			*action = (LegacyAction) i;
			return true;
		}
	}
	return st_fail(err, ST_ERR_VALIDATION,
				   MSG_VALIDATION "Value '%.*s' at 'attributeUpdates.%.*s.member.action' failed to satisfy constraint: Member must satisfy enum value set: [ADD, DELETE, PUT]",
				   Min(v->len, 100), v->str, e->len, e->attr);
}

/*
 * ADD of a list appends to it (creating it when absent):
 * SET a = list_append(if_not_exists(a, :empty), :v).
 */
static ExprNode *
list_add_node(Builder *b, const Entry *e, const Av *value)
{
	ExprNode   *current = node2(EXPR_N_IF_NOT_EXISTS, path_node(e), value_node(b, av_new(AV_L)));

	return node2(EXPR_N_LIST_APPEND, current, value_node(b, value));
}

/* One update: which action of the tree, and its value node. */
static bool
update_item(Builder *b, const Entry *e, ExprUpdateItem *it)
{
	const Av   *value = member(e->spec, "Value");
	LegacyAction action;

	if (!read_action(e, &action, b->err))
		return false;
	it->path = name_path(e->attr, e->len);
	it->value = NULL;
	if (value == NULL && action != ACTION_DELETE)
		return st_fail(b->err, ST_ERR_VALIDATION,
					   MSG_INVALID "Only DELETE action is allowed when no attribute value is specified");
	switch (action)
	{
		case ACTION_PUT:
			it->action = EXPR_UPD_SET;
			it->value = value_node(b, value);
			return true;
		case ACTION_DELETE:
			it->action = value ? EXPR_UPD_DELETE : EXPR_UPD_REMOVE;
			if (value && !av_type_is_set(value->type))
				return st_fail(b->err, ST_ERR_VALIDATION,
							   MSG_INVALID "DELETE action with value is not supported for the type %s",
							   av_type_name(value->type));
			if (value)
				it->value = value_node(b, value);
			return true;
		case ACTION_ADD:
			if (value->type == AV_L)
			{
				it->action = EXPR_UPD_SET;
				it->value = list_add_node(b, e, value);
				return true;
			}
			if (value->type != AV_N && !av_type_is_set(value->type))
				return st_fail(b->err, ST_ERR_VALIDATION,
							   MSG_INVALID "ADD action is not supported for the type %s",
							   av_type_name(value->type));
			it->action = EXPR_UPD_ADD;
			it->value = value_node(b, value);
			return true;
	}
	return false;
}

StExpr *
expr_legacy_update(const Av *updates, Av *values, StErr *err)
{
	Builder		b = {"attributeUpdates", false, values, err};
	StExpr	   *e;

	if (!check_entries(updates, "AttributeUpdates", err))
		return NULL;
	e = palloc0(sizeof(StExpr));
	e->kind = EXPR_UPDATE;
	e->items = palloc0(sizeof(ExprUpdateItem) * updates->n);
	for (int i = 0; i < updates->n; i++)
	{
		Entry		en = entry_at(updates, i);

		if (!update_item(&b, &en, &e->items[i]))
			return NULL;
		e->nitems++;
	}
	return e;
}

bool
expr_legacy_apply_update(const StExpr *upd, Av *item, const ExprParams *p,
						 ExprUpdateInfo *info, StErr *err)
{
	if (expr_apply_update(upd, item, p, info, err))
		return true;
	/* AttributeUpdates words a type mismatch its own way */
	if (strcmp(err->message, EXPR_MSG_UPDATE_BAD_TYPE) == 0)
		snprintf(err->message, sizeof(err->message), "Type mismatch for attribute to update");
	return false;
}

/* ---------- AttributesToGet ---------- */

/* "[a, b, c]" for the length message (cut short by the message buffer). */
static char *
names_text(const Av *names)
{
	size_t		cap = 3;
	size_t		pos = 0;
	char	   *buf;

	for (int i = 0; i < names->n; i++)
		cap += names->items[i]->len + 2;
	buf = palloc(cap);
	buf[pos++] = '[';
	for (int i = 0; i < names->n; i++)
	{
		if (i > 0)
		{
			buf[pos++] = ',';
			buf[pos++] = ' ';
		}
		memcpy(buf + pos, names->items[i]->str, names->items[i]->len);
		pos += names->items[i]->len;
	}
	buf[pos++] = ']';
	buf[pos] = '\0';
	return buf;
}

static bool
check_names(const Av *names, StErr *err)
{
	if (names == NULL || names->type != AV_L)
		return st_fail(err, ST_ERR_SERIALIZATION, "Unexpected value type for AttributesToGet: expected a list");
	for (int i = 0; i < names->n; i++)
		if (names->items[i]->type != AV_S)
			return st_fail(err, ST_ERR_SERIALIZATION,
						   "Unexpected value type for AttributesToGet: expected a list of strings");
	if (names->n < 1 || names->n > 255)
		return st_fail(err, ST_ERR_VALIDATION,
					   MSG_VALIDATION "Value '%s' at 'attributesToGet' failed to satisfy constraint: Member must have length %s",
					   names_text(names),
					   names->n < 1 ? "greater than or equal to 1" : "less than or equal to 255");
	for (int i = 0; i < names->n; i++)
		for (int j = 0; j < i; j++)
			if (av_equal(names->items[i], names->items[j]))
				return st_fail(err, ST_ERR_VALIDATION,
							   MSG_INVALID "Duplicate value in attribute name: %.*s",
							   Min(names->items[i]->len, 255), names->items[i]->str);
	return true;
}

StExpr *
expr_legacy_projection(const Av *names, StErr *err)
{
	StExpr	   *e;

	if (!check_names(names, err))
		return NULL;
	e = palloc0(sizeof(StExpr));
	e->kind = EXPR_PROJECTION;
	e->npaths = names->n;
	e->paths = palloc(sizeof(ExprPath *) * names->n);
	for (int i = 0; i < names->n; i++)
		e->paths[i] = name_path(names->items[i]->str, names->items[i]->len);
	return e;
}

/* ---------- mixing ---------- */

static void
append_list(char *buf, size_t size, const char *const *names, int n)
{
	size_t		pos = strlen(buf);

	for (int i = 0; i < n && pos < size; i++)
		pos += snprintf(buf + pos, size - pos, "%s%s", i ? ", " : "", names[i]);
}

bool
expr_legacy_mix_error(const char *const *legacy, int nlegacy,
					  const char *const *expressions, int nexpressions, StErr *err)
{
	char		non_expr[ST_ERR_MSG_MAX / 2] = "";
	char		expr[ST_ERR_MSG_MAX / 2] = "";

	append_list(non_expr, sizeof(non_expr), legacy, nlegacy);
	append_list(expr, sizeof(expr), expressions, nexpressions);
	return st_fail(err, ST_ERR_VALIDATION,
				   "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {%s} Expression parameters: {%s}",
				   non_expr, expr);
}
