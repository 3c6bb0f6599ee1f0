/*-------------------------------------------------------------------------
 *
 * expr_bind.c
 *		Checking a parsed expression against one request's
 *		ExpressionAttributeNames and ExpressionAttributeValues.
 *
 * Parsing cannot see the maps (the AST is cached by text), so everything
 * DynamoDB validates before touching the item and that depends on them is
 * done here: placeholders must be defined, :values given to functions and
 * operators must have a usable type, and the paths an update writes (or a
 * projection reads) must not overlap once #names are substituted.
 *
 *-------------------------------------------------------------------------
 */
#include "expr_int.h"

#include <stdio.h>

typedef struct Binder
{
	ExprKind	kind;
	ExprParams *p;
	StErr	   *err;
} Binder;

/* Index of member name in map, or -1. */
static int
member_index(const Av *map, const char *name, int len)
{
	if (map == NULL || map->type != AV_M)
		return -1;
	for (int i = 0; i < map->n; i++)
		if (map->members[i].name_len == len &&
			memcmp(map->members[i].name, name, len) == 0)
			return i;
	return -1;
}

const Av *
expr_param_value(const ExprParams *p, const char *name, int len)
{
	return p ? av_map_get(p->values, name, len) : NULL;
}

static bool
bind_path(Binder *b, const ExprPath *path)
{
	for (int i = 0; i < path->n; i++)
	{
		const ExprPathElem *el = &path->elems[i];
		int			k;

		if (el->kind != EXPR_PE_PLACEHOLDER)
			continue;
		k = member_index(b->p->names, el->name, el->len);
		if (k < 0)
			return expr_fail(b->kind, b->err,
							 "An expression attribute name used in the document path is not defined; attribute name: %s",
							 el->name);
		if (b->p->names_used)
			b->p->names_used[k] = true;
	}
	return true;
}

static const Av *
bind_value(Binder *b, const ExprNode *n)
{
	int			k = member_index(b->p->values, n->name, n->name_len);

	if (k < 0)
	{
		expr_fail(b->kind, b->err,
				  "An expression attribute value used in expression is not defined; attribute value: %s",
				  n->name);
		return NULL;
	}
	if (b->p->values_used)
		b->p->values_used[k] = true;
	return b->p->values->members[k].value;
}

/* The :value of an operand node, or NULL when it is not a :value. */
static const Av *
value_of(Binder *b, const ExprNode *n)
{
	return n->kind == EXPR_N_VALUE ? expr_param_value(b->p, n->name, n->name_len) : NULL;
}

/*
 * The type of an operand as far as it is known without the item: a
 * :value's, and N for size(); -1 for a path (or anything else), whose type
 * only the item tells.
 */
static int
static_type(Binder *b, const ExprNode *n)
{
	const Av   *v;

	if (n->kind == EXPR_N_SIZE)
		return AV_N;
	v = value_of(b, n);
	return v ? (int) v->type : -1;
}

static bool
bad_operand_type(Binder *b, const ExprNode *fn, int type)
{
	return expr_fail(b->kind, b->err,
					 "Incorrect operand type for operator or function; operator or function: %s, operand type: %s",
					 expr_node_name(fn), av_type_name((AvType) type));
}

/* Is type one the operand can take (unknown types always can)? */
static bool
type_in(int type, const AvType *ok, int nok)
{
	if (type < 0)
		return true;
	for (int i = 0; i < nok; i++)
		if (type == (int) ok[i])
			return true;
	return false;
}

/*
 * Every operand of n from args[from] to args[to - 1] must be of one of the
 * types in ok: a :value (or size()) of another type is refused for the
 * request, before any item is read (DynamoDB: "Incorrect operand type for
 * operator or function").  The same type coming from the item only makes
 * the condition false.
 */
static bool
check_types(Binder *b, const ExprNode *n, int from, int to, const AvType *ok, int nok)
{
	for (int i = from; i < to; i++)
	{
		int			type = static_type(b, n->args[i]);

		if (!type_in(type, ok, nok))
			return bad_operand_type(b, n, type);
	}
	return true;
}

/* The types each function or operator takes. */
static const AvType orderable_types[] = {AV_S, AV_N, AV_B};
static const AvType prefix_types[] = {AV_S, AV_B};
static const AvType container_types[] = {AV_S, AV_B, AV_SS, AV_NS, AV_BS, AV_L};
static const AvType sized_types[] = {AV_S, AV_B, AV_SS, AV_NS, AV_BS, AV_L, AV_M};
static const AvType type_name_types[] = {AV_S};

/* Are two operands the same document path once #names are substituted? */
static bool
same_path(Binder *b, const ExprNode *x, const ExprNode *y)
{
	ExprResolvedPath rx,
				ry;

	if (x->kind != EXPR_N_PATH || y->kind != EXPR_N_PATH ||
		x->path->n != y->path->n ||
		!expr_resolve_path(x->path, b->p, &rx) || !expr_resolve_path(y->path, b->p, &ry))
		return false;
	for (int i = 0; i < rx.n; i++)
		if (!expr_elem_equal(&rx.elems[i], &ry.elems[i]))
			return false;
	return true;
}

/* "a = a", "contains(a, a)": DynamoDB wants distinct operands. */
static bool
check_distinct(Binder *b, const ExprNode *n)
{
	ExprResolvedPath rp;

	if (!same_path(b, n->args[0], n->args[1]))
		return true;
	expr_resolve_path(n->args[0]->path, b->p, &rp);
	return expr_fail(b->kind, b->err,
					 "The first operand must be distinct from the remaining operands for this operator or function; operator: %s, first operand: %s",
					 expr_node_name(n), expr_path_text(&rp));
}

/* attribute_type(path, :t): :t must be the S name of one of the ten types. */
static bool
check_attribute_type(Binder *b, const ExprNode *n)
{
	const Av   *t = value_of(b, n->args[1]);

	if (!check_distinct(b, n) ||
		!check_types(b, n, 1, 2, type_name_types, lengthof(type_name_types)))
		return false;
	if (t != NULL && av_type_from_name(t->str, t->len) < 0)
		return expr_fail(b->kind, b->err,
						 "Invalid attribute type name found; type: %.*s, valid types: { B,NULL,SS,BOOL,L,BS,N,NS,S,M }",
						 Min(t->len, 100), t->str);
	return true;
}

/*
 * a BETWEEN :lo AND :hi: every operand orderable, and with both bounds
 * known, of one type and lo <= hi.
 */
static bool
check_between(Binder *b, const ExprNode *n)
{
	const Av   *lo = value_of(b, n->args[1]);
	const Av   *hi = value_of(b, n->args[2]);
	const char *problem;

	if (!check_types(b, n, 0, 3, orderable_types, lengthof(orderable_types)))
		return false;
	if (lo == NULL || hi == NULL)
		return true;
	if (lo->type != hi->type)
		problem = "The BETWEEN operator requires same data type for lower and upper bounds";
	else if (av_compare_scalar(lo, hi) > 0)
		problem = "The BETWEEN operator requires upper bound to be greater than or equal to lower bound";
	else
		return true;
	return expr_fail(b->kind, b->err,
					 "%s; lower bound operand: AttributeValue: {%s:%.*s}, upper bound operand: AttributeValue: {%s:%.*s}",
					 problem,
					 av_type_name(lo->type), Min(lo->len, 100), lo->str,
					 av_type_name(hi->type), Min(hi->len, 100), hi->str);
}

/* Type checks of operands that do not need the item. */
static bool
check_operands(Binder *b, const ExprNode *n)
{
	switch (n->kind)
	{
		case EXPR_N_ATTR_TYPE:
			return check_attribute_type(b, n);
		case EXPR_N_BEGINS_WITH:
			return check_distinct(b, n) &&
				check_types(b, n, 0, 2, prefix_types, lengthof(prefix_types));
		case EXPR_N_CONTAINS:
			return check_distinct(b, n) &&
				check_types(b, n, 0, 1, container_types, lengthof(container_types));
		case EXPR_N_CMP:
			if (!check_distinct(b, n))
				return false;
			if (n->op == EXPR_EQ || n->op == EXPR_NE)
				return true;
			return check_types(b, n, 0, 2, orderable_types, lengthof(orderable_types));
		case EXPR_N_SIZE:
			return check_types(b, n, 0, 1, sized_types, lengthof(sized_types));
		case EXPR_N_BETWEEN:
			return check_between(b, n);
		case EXPR_N_PLUS:
		case EXPR_N_MINUS:
		case EXPR_N_LIST_APPEND:
			for (int i = 0; i < n->nargs; i++)
			{
				AvType		want = n->kind == EXPR_N_LIST_APPEND ? AV_L : AV_N;
				const Av   *v = value_of(b, n->args[i]);

				if (v != NULL && v->type != want)
					return bad_operand_type(b, n, v->type);
			}
			return true;
		default:
			return true;
	}
}

static bool
bind_node(Binder *b, const ExprNode *n)
{
	if (n->kind == EXPR_N_PATH)
		return bind_path(b, n->path);
	if (n->kind == EXPR_N_VALUE)
		return bind_value(b, n) != NULL;
	for (int i = 0; i < n->nargs; i++)
		if (!bind_node(b, n->args[i]))
			return false;
	return check_operands(b, n);
}

/* DynamoDB's names for types in ADD / DELETE messages. */
static const char *
long_type_name(AvType t)
{
	static const char *const names[AV_NTYPES] = {
		"STRING", "NUMBER", "BINARY", "BOOLEAN", "NULL", "MAP", "LIST",
		"STRING_SET", "NUMBER_SET", "BINARY_SET"
	};

	return names[t];
}

/* ADD takes a number or a set, DELETE a set. */
static bool
check_add_delete(Binder *b, const ExprUpdateItem *it)
{
	const Av   *v = value_of(b, it->value);
	bool		add = it->action == EXPR_UPD_ADD;

	if (v == NULL || av_type_is_set(v->type) || (add && v->type == AV_N))
		return true;
	return expr_fail(b->kind, b->err,
					 "Incorrect operand type for operator or function; operator: %s, operand type: %s, typeSet: %s",
					 add ? "ADD" : "DELETE", long_type_name(v->type),
					 add ? "ALLOWED_FOR_ADD_OPERAND" : "ALLOWED_FOR_DELETE_OPERAND");
}

/* Bind a list of paths and check them as a set (update targets, projection). */
static bool
bind_path_set(Binder *b, ExprPath *const *paths, int n)
{
	ExprResolvedPath *rp = palloc(sizeof(ExprResolvedPath) * Max(n, 1));

	for (int i = 0; i < n; i++)
	{
		if (!bind_path(b, paths[i]))
			return false;
		expr_resolve_path(paths[i], b->p, &rp[i]);
	}
	return expr_check_path_set(b->kind, rp, n, b->err);
}

static bool
bind_update(Binder *b, const StExpr *e)
{
	ExprPath  **targets = palloc(sizeof(ExprPath *) * Max(e->nitems, 1));

	for (int i = 0; i < e->nitems; i++)
	{
		const ExprUpdateItem *it = &e->items[i];

		targets[i] = it->path;
		if (it->value != NULL && !bind_node(b, it->value))
			return false;
		if ((it->action == EXPR_UPD_ADD || it->action == EXPR_UPD_DELETE) &&
			!check_add_delete(b, it))
			return false;
	}
	return bind_path_set(b, targets, e->nitems);
}

bool
expr_bind(const StExpr *e, ExprParams *p, StErr *err)
{
	Binder		b;

	b.kind = e->kind;
	b.p = p;
	b.err = err;
	switch (e->kind)
	{
		case EXPR_UPDATE:
			return bind_update(&b, e);
		case EXPR_PROJECTION:
			return bind_path_set(&b, e->paths, e->npaths);
		default:
			return bind_node(&b, e->cond);
	}
}

/* "#[A-Za-z0-9_]+" (prefix '#') or ":[A-Za-z0-9_]+" (prefix ':'). */
static bool
valid_key(const char *key, int len, char prefix)
{
	if (len < 2 || key[0] != prefix)
		return false;
	for (int i = 1; i < len; i++)
	{
		char		c = key[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_'))
			return false;
	}
	return true;
}

static bool
check_map(const Av *map, const char *what, char prefix, StErr *err)
{
	if (map == NULL)
		return true;
	if (map->type != AV_M || map->n == 0)
		return st_fail(err, ST_ERR_VALIDATION, "%s must not be empty", what);
	for (int i = 0; i < map->n; i++)
	{
		const AvMember *m = &map->members[i];

		if (!valid_key(m->name, m->name_len, prefix))
			return st_fail(err, ST_ERR_VALIDATION,
						   "%s contains invalid key: Syntax error; key: \"%.*s\"",
						   what, Min(m->name_len, 255), m->name);
		if (prefix == '#' && (m->value->type != AV_S || m->value->len == 0))
			return st_fail(err, ST_ERR_VALIDATION,
						   "%s contains invalid value: Empty attribute name; key: \"%s\"",
						   what, m->name);
	}
	return true;
}

bool
expr_check_params(const ExprParams *p, StErr *err)
{
	return check_map(p->names, "ExpressionAttributeNames", '#', err) &&
		check_map(p->values, "ExpressionAttributeValues", ':', err);
}

/* "{:a, :b}" of the unused members of map (palloc'd). */
static char *
unused_keys(const Av *map, const bool *used)
{
	size_t		cap = 3;
	char	   *buf;
	size_t		pos = 0;

	for (int i = 0; i < map->n; i++)
		cap += map->members[i].name_len + 2;
	buf = palloc(cap);
	buf[pos++] = '{';
	for (int i = 0; i < map->n; i++)
	{
		if (used[i])
			continue;
		if (pos > 1)
		{
			buf[pos++] = ',';
			buf[pos++] = ' ';
		}
		memcpy(buf + pos, map->members[i].name, map->members[i].name_len);
		pos += map->members[i].name_len;
	}
	buf[pos++] = '}';
	buf[pos] = '\0';
	return buf;
}

static bool
all_used(const Av *map, const bool *used)
{
	if (map == NULL || used == NULL || map->type != AV_M)
		return true;
	for (int i = 0; i < map->n; i++)
		if (!used[i])
			return false;
	return true;
}

bool
expr_check_unused(const ExprParams *p, StErr *err)
{
	if (!all_used(p->names, p->names_used))
		return st_fail(err, ST_ERR_VALIDATION,
					   "Value provided in ExpressionAttributeNames unused in expressions: keys: %s",
					   unused_keys(p->names, p->names_used));
	if (!all_used(p->values, p->values_used))
		return st_fail(err, ST_ERR_VALIDATION,
					   "Value provided in ExpressionAttributeValues unused in expressions: keys: %s",
					   unused_keys(p->values, p->values_used));
	return true;
}
