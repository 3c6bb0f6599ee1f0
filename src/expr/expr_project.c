/*-------------------------------------------------------------------------
 *
 * expr_project.c
 *		ProjectionExpression: picking document paths out of an item.
 *
 * DynamoDB returns projected nested values inside their containers:
 * "a.b" gives {"a": {"b": ...}}, and "a[1], a[3]" gives {"a": [a[1], a[3]]}
 * - the selected list elements, in list order, packed together.  Paths
 * that are absent are left out, and so is a container nothing was found in.
 *
 * The paths are merged into a tree first, so that several paths under the
 * same container build one result container.
 *
 *-------------------------------------------------------------------------
 */
#include "expr_int.h"

typedef struct ProjNode ProjNode;

struct ProjNode
{
	ExprPathElem step;
	bool		leaf;			/* take the whole value here */
	int			n;
	int			cap;
	ProjNode  **kids;
};

static ProjNode *
child(ProjNode *node, const ExprPathElem *step)
{
	ProjNode   *kid;

	for (int i = 0; i < node->n; i++)
		if (expr_elem_equal(&node->kids[i]->step, step))
			return node->kids[i];
	if (node->n == node->cap)
	{
		node->cap = node->cap ? node->cap * 2 : 4;
		node->kids = node->kids ? repalloc(node->kids, sizeof(ProjNode *) * node->cap)
			: palloc(sizeof(ProjNode *) * node->cap);
	}
	kid = palloc0(sizeof(ProjNode));
	kid->step = *step;
	node->kids[node->n++] = kid;
	return kid;
}

static void
insert(ProjNode *root, const ExprResolvedPath *rp)
{
	ProjNode   *node = root;

	for (int i = 0; i < rp->n; i++)
		node = child(node, &rp->elems[i]);
	node->leaf = true;
}

static int
by_index(const void *x, const void *y)
{
	const ProjNode *a = *(const ProjNode *const *) x;
	const ProjNode *b = *(const ProjNode *const *) y;

	return (a->step.index > b->step.index) - (a->step.index < b->step.index);
}

static Av  *project_node(ProjNode *node, const Av *v);

/* The selected elements of list v, in list order. */
static Av *
project_list(ProjNode *node, const Av *v)
{
	Av		   *out = av_new(AV_L);

	qsort(node->kids, node->n, sizeof(ProjNode *), by_index);
	for (int i = 0; i < node->n; i++)
	{
		ProjNode   *kid = node->kids[i];
		Av		   *sub;

		if (kid->step.kind != EXPR_PE_INDEX || kid->step.index >= v->n)
			continue;
		if ((sub = project_node(kid, v->items[kid->step.index])) != NULL)
			av_append(out, sub);
	}
	return out->n > 0 ? out : NULL;
}

/* The selected members of map v. */
static Av *
project_map(ProjNode *node, const Av *v)
{
	Av		   *out = av_new(AV_M);

	for (int i = 0; i < node->n; i++)
	{
		ProjNode   *kid = node->kids[i];
		const Av   *m;
		Av		   *sub;

		if (kid->step.kind == EXPR_PE_INDEX)
			continue;
		m = av_map_get(v, kid->step.name, kid->step.len);
		if (m != NULL && (sub = project_node(kid, m)) != NULL)
			av_map_put_nocheck(out, kid->step.name, kid->step.len, sub);
	}
	return out->n > 0 ? out : NULL;
}

static Av *
project_node(ProjNode *node, const Av *v)
{
	if (node->leaf)
		return av_copy(v);
	if (v->type == AV_L)
		return project_list(node, v);
	if (v->type == AV_M)
		return project_map(node, v);
	return NULL;
}

Av *
expr_project_resolved(const ExprResolvedPath *paths, int npaths, const Av *item)
{
	ProjNode	root;
	Av		   *out;

	if (item == NULL || item->type != AV_M)
		return NULL;
	memset(&root, 0, sizeof(root));
	for (int i = 0; i < npaths; i++)
		if (paths[i].n > 0)
			insert(&root, &paths[i]);
	out = project_map(&root, item);
	return out ? out : av_new(AV_M);
}

Av *
expr_project(const StExpr *proj, const Av *item, const ExprParams *p)
{
	ExprResolvedPath *rp;
	int			n = 0;

	if (proj == NULL || item == NULL)
		return NULL;
	rp = palloc(sizeof(ExprResolvedPath) * Max(proj->npaths, 1));
	for (int i = 0; i < proj->npaths; i++)
		if (expr_resolve_path(proj->paths[i], p, &rp[n]))
			n++;
	return expr_project_resolved(rp, n, item);
}
