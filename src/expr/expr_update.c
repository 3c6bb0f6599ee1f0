/*-------------------------------------------------------------------------
 *
 * expr_update.c
 *		Applying an UpdateExpression to an item.
 *
 * DynamoDB evaluates every operand of an update against the item as it was
 * before the update ("SET a = b, b = a" swaps), so this runs in three
 * passes: compute all new values from the untouched item; apply SET, ADD
 * and DELETE in text order; then apply REMOVE, list elements from the
 * highest index down so that "REMOVE a[1], a[2]" removes the elements that
 * were at 1 and 2.
 *
 * Writing through a parent that is absent, or of the wrong type, is "The
 * document path provided in the update expression is invalid for update";
 * SET of a list index past the end appends.
 *
 *-------------------------------------------------------------------------
 */
#include "expr_int.h"
#include "../item/number.h"

#define MSG_BAD_PATH "The document path provided in the update expression is invalid for update"
#define MSG_BAD_TYPE EXPR_MSG_UPDATE_BAD_TYPE
#define MSG_MISSING "The provided expression refers to an attribute that does not exist in the item"
#define MSG_NESTING "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"

typedef struct Pending
{
	const ExprUpdateItem *it;
	ExprResolvedPath path;
	Av		   *value;			/* SET: the new value; ADD/DELETE: the operand */
} Pending;

static Av  *eval_set_operand(const ExprNode *n, const Av *item, const ExprParams *p, StErr *err);

/* a + b or a - b on two N values. */
static Av *
arith(bool plus, const Av *a, const Av *b, StErr *err)
{
	StNum		x,
				y,
				r;
	char		buf[NUM_TEXT_MAX];
	int			len;

	if (a->type != AV_N || b->type != AV_N)
	{
		st_fail(err, ST_ERR_VALIDATION, MSG_BAD_TYPE);
		return NULL;
	}
	if (!st_num_parse(a->str, a->len, &x, err) || !st_num_parse(b->str, b->len, &y, err))
		return NULL;
	if (!(plus ? st_num_add(&x, &y, &r, err) : st_num_sub(&x, &y, &r, err)))
		return NULL;
	len = st_num_format(&r, buf);
	return av_new_str(AV_N, buf, len);
}

static Av *
list_append(const Av *a, const Av *b, StErr *err)
{
	Av		   *r;

	if (a->type != AV_L || b->type != AV_L)
	{
		st_fail(err, ST_ERR_VALIDATION, MSG_BAD_TYPE);
		return NULL;
	}
	r = av_new(AV_L);
	for (int i = 0; i < a->n; i++)
		av_append(r, av_copy(a->items[i]));
	for (int i = 0; i < b->n; i++)
		av_append(r, av_copy(b->items[i]));
	return r;
}

/* Both arguments of a two-operand node, or false. */
static bool
eval_pair(const ExprNode *n, const Av *item, const ExprParams *p, Av **a, Av **b, StErr *err)
{
	*a = eval_set_operand(n->args[0], item, p, err);
	if (*a == NULL)
		return false;
	*b = eval_set_operand(n->args[1], item, p, err);
	return *b != NULL;
}

/* The value of a SET operand: always a fresh tree, or NULL with *err. */
static Av *
eval_set_operand(const ExprNode *n, const Av *item, const ExprParams *p, StErr *err)
{
	const Av   *v;
	Av		   *a,
			   *b;

	switch (n->kind)
	{
		case EXPR_N_PATH:
		case EXPR_N_VALUE:
			v = expr_eval_operand(n, item, p);
			if (v == NULL)
				st_fail(err, ST_ERR_VALIDATION, MSG_MISSING);
			return v ? av_copy(v) : NULL;
		case EXPR_N_IF_NOT_EXISTS:
			v = expr_eval_operand(n->args[0], item, p);
			return v ? av_copy(v) : eval_set_operand(n->args[1], item, p, err);
		case EXPR_N_PLUS:
		case EXPR_N_MINUS:
			if (!eval_pair(n, item, p, &a, &b, err))
				return NULL;
			return arith(n->kind == EXPR_N_PLUS, a, b, err);
		case EXPR_N_LIST_APPEND:
			if (!eval_pair(n, item, p, &a, &b, err))
				return NULL;
			return list_append(a, b, err);
		default:
			st_fail(err, ST_ERR_VALIDATION, MSG_BAD_TYPE);
			return NULL;
	}
}

/*
 * The container that the last step of path lives in, walking from item;
 * NULL when a step is absent or of the wrong type.
 */
static Av *
parent_of(Av *item, const ExprResolvedPath *path)
{
	Av		   *v = item;

	for (int i = 0; i < path->n - 1 && v != NULL; i++)
	{
		const ExprPathElem *el = &path->elems[i];

		if (el->kind == EXPR_PE_INDEX)
			v = (v->type == AV_L && el->index < v->n) ? v->items[el->index] : NULL;
		else
			v = v->type == AV_M ? av_map_get(v, el->name, el->len) : NULL;
	}
	if (v == NULL)
		return NULL;
	if (path->elems[path->n - 1].kind == EXPR_PE_INDEX)
		return v->type == AV_L ? v : NULL;
	return v->type == AV_M ? v : NULL;
}

/* Store value at path (the parent must exist); past the end of a list appends. */
static bool
store(Av *item, const ExprResolvedPath *path, Av *value, StErr *err)
{
	Av		   *parent = parent_of(item, path);
	const ExprPathElem *last = &path->elems[path->n - 1];

	if (parent == NULL)
		return st_fail(err, ST_ERR_VALIDATION, MSG_BAD_PATH);
	if (last->kind != EXPR_PE_INDEX)
		av_map_set(parent, last->name, last->len, value);
	else if (last->index < parent->n)
		parent->items[last->index] = value;
	else
		av_append(parent, value);
	return true;
}

/* Remove the value at path; absent values are not an error. */
static bool
remove_at(Av *item, const ExprResolvedPath *path, StErr *err)
{
	Av		   *parent = parent_of(item, path);
	const ExprPathElem *last = &path->elems[path->n - 1];

	if (parent == NULL)
		return st_fail(err, ST_ERR_VALIDATION, MSG_BAD_PATH);
	if (last->kind == EXPR_PE_INDEX)
		av_list_remove(parent, last->index);
	else
		av_map_remove(parent, last->name, last->len);
	return true;
}

/* ADD: numbers add (absent counts as 0), sets of one type unite. */
static bool
apply_add(Av *item, Pending *pd, StErr *err)
{
	const Av   *cur = expr_path_lookup(item, &pd->path);
	Av		   *sum;

	if (cur == NULL)
		return store(item, &pd->path, av_copy(pd->value), err);
	if (cur->type == AV_N && pd->value->type == AV_N)
	{
		if ((sum = arith(true, cur, pd->value, err)) == NULL)
			return false;
		return store(item, &pd->path, sum, err);
	}
	if (!av_type_is_set(cur->type) || cur->type != pd->value->type)
		return st_fail(err, ST_ERR_VALIDATION, MSG_BAD_TYPE);
	sum = av_copy(cur);
	for (int i = 0; i < pd->value->n; i++)
		if (!av_set_contains(sum, pd->value->items[i]))
			av_append(sum, av_copy(pd->value->items[i]));
	return store(item, &pd->path, sum, err);
}

/* DELETE: remove set members; a set left empty disappears. */
static bool
apply_delete(Av *item, Pending *pd, StErr *err)
{
	const Av   *cur = expr_path_lookup(item, &pd->path);
	Av		   *rest;

	if (cur == NULL)
		return parent_of(item, &pd->path) != NULL ||
			st_fail(err, ST_ERR_VALIDATION, MSG_BAD_PATH);
	if (cur->type != pd->value->type || !av_type_is_set(cur->type))
		return st_fail(err, ST_ERR_VALIDATION, MSG_BAD_TYPE);
	rest = av_new(cur->type);
	for (int i = 0; i < cur->n; i++)
		if (!av_set_contains(pd->value, cur->items[i]))
			av_append(rest, av_copy(cur->items[i]));
	if (rest->n == 0)
		return remove_at(item, &pd->path, err);
	return store(item, &pd->path, rest, err);
}

/* REMOVE order: within one list, higher indexes first. */
static int
remove_order(const void *x, const void *y)
{
	const Pending *a = *(const Pending *const *) x;
	const Pending *b = *(const Pending *const *) y;
	int			n = Min(a->path.n, b->path.n);

	for (int i = 0; i < n; i++)
	{
		const ExprPathElem *ea = &a->path.elems[i];
		const ExprPathElem *eb = &b->path.elems[i];

		if (expr_elem_equal(ea, eb))
			continue;
		if (ea->kind == EXPR_PE_INDEX && eb->kind == EXPR_PE_INDEX)
			return eb->index - ea->index;
		break;
	}
	return (a > b) - (a < b);	/* otherwise keep text order */
}

/* Pass 1: resolve paths and compute values against the untouched item. */
static bool
prepare(const StExpr *upd, const Av *item, const ExprParams *p, Pending *pds, StErr *err)
{
	for (int i = 0; i < upd->nitems; i++)
	{
		const ExprUpdateItem *it = &upd->items[i];

		pds[i].it = it;
		pds[i].value = NULL;
		if (!expr_resolve_path(it->path, p, &pds[i].path))
			return expr_fail(upd->kind, err,
							 "An expression attribute name used in the document path is not defined");
		if (it->action == EXPR_UPD_SET &&
			(pds[i].value = eval_set_operand(it->value, item, p, err)) == NULL)
			return false;
		if ((it->action == EXPR_UPD_ADD || it->action == EXPR_UPD_DELETE) &&
			(pds[i].value = (Av *) expr_eval_operand(it->value, item, p)) == NULL)
			return expr_fail(upd->kind, err,
							 "An expression attribute value used in expression is not defined; attribute value: %s",
							 it->value->name);
	}
	return true;
}

/* Passes 2 and 3. */
static bool
apply_all(Av *item, Pending *pds, int n, StErr *err)
{
	Pending   **removes = palloc(sizeof(Pending *) * Max(n, 1));
	int			nremoves = 0;
	bool		ok = true;

	for (int i = 0; i < n && ok; i++)
	{
		switch (pds[i].it->action)
		{
			case EXPR_UPD_SET:
				ok = store(item, &pds[i].path, pds[i].value, err);
				break;
			case EXPR_UPD_ADD:
				ok = apply_add(item, &pds[i], err);
				break;
			case EXPR_UPD_DELETE:
				ok = apply_delete(item, &pds[i], err);
				break;
			case EXPR_UPD_REMOVE:
				removes[nremoves++] = &pds[i];
				break;
		}
	}
	if (ok && nremoves > 1)
		qsort(removes, nremoves, sizeof(Pending *), remove_order);
	for (int i = 0; i < nremoves && ok; i++)
		ok = remove_at(item, &removes[i]->path, err);
	return ok;
}

/*
 * Does v, sitting at nesting level `level`, hold a value deeper than
 * DynamoDB's 32 levels (av.h: a top-level attribute is level 1, each M or L
 * adds one)?  The walk stops one level past the limit.
 */
static bool
too_deep(const Av *v, int level)
{
	if (level > AV_MAX_DEPTH)
		return true;
	if (v->type == AV_M)
	{
		for (int i = 0; i < v->n; i++)
			if (too_deep(v->members[i].value, level + 1))
				return true;
	}
	else if (v->type == AV_L)
	{
		for (int i = 0; i < v->n; i++)
			if (too_deep(v->items[i], level + 1))
				return true;
	}
	return false;
}

/*
 * A value stored deep in a path, or an item attribute copied under another
 * one, can nest deeper than any request could: check the attributes the
 * update wrote, as DynamoDB does.
 */
static bool
check_nesting(const Av *item, const Pending *pds, int n, StErr *err)
{
	for (int i = 0; i < n; i++)
	{
		const ExprPathElem *top = &pds[i].path.elems[0];
		const Av   *v;

		if (pds[i].it->action == EXPR_UPD_REMOVE || pds[i].it->action == EXPR_UPD_DELETE)
			continue;
		v = av_map_get(item, top->name, top->len);
		if (v != NULL && too_deep(v, 1))
			return st_fail(err, ST_ERR_VALIDATION, MSG_NESTING);
	}
	return true;
}

/* Fill info with copies of the target paths and their distinct top-level names. */
static void
fill_info(ExprUpdateInfo *info, const Pending *pds, int n)
{
	info->npaths = n;
	info->paths = palloc(sizeof(ExprResolvedPath) * Max(n, 1));
	info->nnames = 0;
	info->names = palloc(sizeof(char *) * Max(n, 1));
	info->name_lens = palloc(sizeof(int) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		const ExprPathElem *top = &pds[i].path.elems[0];
		bool		seen = false;

		expr_copy_resolved(&pds[i].path, &info->paths[i]);
		for (int k = 0; k < info->nnames && !seen; k++)
			seen = info->name_lens[k] == top->len &&
				memcmp(info->names[k], top->name, top->len) == 0;
		if (seen)
			continue;
		info->names[info->nnames] = pnstrdup(top->name, top->len);
		info->name_lens[info->nnames++] = top->len;
	}
}

bool
expr_apply_update(const StExpr *upd, Av *item, const ExprParams *p,
				  ExprUpdateInfo *info, StErr *err)
{
	Pending    *pds;

	if (upd == NULL || upd->kind != EXPR_UPDATE || item == NULL || item->type != AV_M)
		return st_fail(err, ST_ERR_VALIDATION, "Invalid UpdateExpression: not an update of an item");
	pds = palloc(sizeof(Pending) * Max(upd->nitems, 1));
	if (!prepare(upd, item, p, pds, err) || !apply_all(item, pds, upd->nitems, err) ||
		!check_nesting(item, pds, upd->nitems, err))
		return false;
	if (info != NULL)
		fill_info(info, pds, upd->nitems);
	return true;
}

bool
expr_update_touches_attr(const StExpr *upd, const ExprParams *p, const char *name, int len)
{
	for (int i = 0; upd != NULL && i < upd->nitems; i++)
	{
		ExprResolvedPath rp;

		if (!expr_resolve_path(upd->items[i].path, p, &rp))
			continue;
		if (rp.elems[0].len == len && memcmp(rp.elems[0].name, name, len) == 0)
			return true;
	}
	return false;
}

bool
expr_update_creates(const StExpr *upd)
{
	for (int i = 0; i < upd->nitems; i++)
		if (upd->items[i].action == EXPR_UPD_SET || upd->items[i].action == EXPR_UPD_ADD)
			return true;
	return false;
}
