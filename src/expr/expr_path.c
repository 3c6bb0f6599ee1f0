/*-------------------------------------------------------------------------
 *
 * expr_path.c
 *		Document paths: resolving #name placeholders, walking an item, and
 *		DynamoDB's rules for sets of paths (overlap and conflict).
 *
 * A resolved path has only NAME and INDEX steps.  The name of a #name
 * placeholder is taken whole: "#a" -> "x.y" is one attribute called "x.y",
 * never the path x.y, which is exactly why placeholders exist.
 *
 *-------------------------------------------------------------------------
 */
#include "expr_int.h"

bool
expr_resolve_path(const ExprPath *path, const ExprParams *p, ExprResolvedPath *out)
{
	out->n = path->n;
	out->elems = palloc(sizeof(ExprPathElem) * Max(path->n, 1));
	for (int i = 0; i < path->n; i++)
	{
		const ExprPathElem *src = &path->elems[i];
		ExprPathElem *dst = &out->elems[i];

		*dst = *src;
		if (src->kind == EXPR_PE_PLACEHOLDER)
		{
			const Av   *name = p ? av_map_get(p->names, src->name, src->len) : NULL;

			if (name == NULL || name->type != AV_S)
				return false;
			dst->kind = EXPR_PE_NAME;
			dst->name = name->str;
			dst->len = name->len;
		}
	}
	return true;
}

void
expr_copy_resolved(const ExprResolvedPath *src, ExprResolvedPath *dst)
{
	dst->n = src->n;
	dst->elems = palloc(sizeof(ExprPathElem) * Max(src->n, 1));
	for (int i = 0; i < src->n; i++)
	{
		dst->elems[i] = src->elems[i];
		if (src->elems[i].kind != EXPR_PE_INDEX)
			dst->elems[i].name = pnstrdup(src->elems[i].name, src->elems[i].len);
	}
}

/* One step down from v, or NULL when the step does not apply. */
static const Av *
step(const Av *v, const ExprPathElem *el)
{
	if (v == NULL)
		return NULL;
	if (el->kind == EXPR_PE_INDEX)
	{
		if (v->type != AV_L || el->index >= v->n)
			return NULL;
		return v->items[el->index];
	}
	return av_map_get(v, el->name, el->len);
}

const Av *
expr_path_lookup(const Av *item, const ExprResolvedPath *rp)
{
	const Av   *v = item;

	for (int i = 0; i < rp->n && v != NULL; i++)
		v = step(v, &rp->elems[i]);
	return v;
}

bool
expr_elem_equal(const ExprPathElem *a, const ExprPathElem *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == EXPR_PE_INDEX)
		return a->index == b->index;
	return a->len == b->len && memcmp(a->name, b->name, a->len) == 0;
}

char *
expr_path_text(const ExprResolvedPath *rp)
{
	size_t		cap = 3;
	char	   *buf;
	size_t		pos = 0;

	for (int i = 0; i < rp->n; i++)
		cap += (rp->elems[i].kind == EXPR_PE_INDEX ? 14 : rp->elems[i].len) + 2;
	buf = palloc(cap);
	buf[pos++] = '[';
	for (int i = 0; i < rp->n; i++)
	{
		const ExprPathElem *el = &rp->elems[i];

		if (i > 0)
		{
			buf[pos++] = ',';
			buf[pos++] = ' ';
		}
		if (el->kind == EXPR_PE_INDEX)
		{
			/* "[12]" - small enough for the room reserved above */
			char		num[12];
			int			k = 0;
			int			v = el->index;

			do
			{
				num[k++] = '0' + v % 10;
				v /= 10;
			} while (v > 0);
			buf[pos++] = '[';
			while (k > 0)
				buf[pos++] = num[--k];
			buf[pos++] = ']';
		}
		else
		{
			memcpy(buf + pos, el->name, el->len);
			pos += el->len;
		}
	}
	buf[pos++] = ']';
	buf[pos] = '\0';
	return buf;
}

/*
 * Compare two paths of one update or projection: 0 when independent, 1 when
 * one is a prefix of the other (overlap), 2 when they step into the same
 * container once by name and once by index (conflict).
 */
static int
path_clash(const ExprResolvedPath *a, const ExprResolvedPath *b)
{
	int			n = Min(a->n, b->n);

	for (int i = 0; i < n; i++)
	{
		if (expr_elem_equal(&a->elems[i], &b->elems[i]))
			continue;
		if ((a->elems[i].kind == EXPR_PE_INDEX) != (b->elems[i].kind == EXPR_PE_INDEX))
			return 2;
		return 0;
	}
	return 1;
}

bool
expr_check_path_set(ExprKind kind, const ExprResolvedPath *paths, int n, StErr *err)
{
	for (int i = 0; i < n; i++)
	{
		for (int j = i + 1; j < n; j++)
		{
			int			clash = path_clash(&paths[i], &paths[j]);

			if (clash == 0)
				continue;
			return expr_fail(kind, err,
							 "Two document paths %s with each other; must remove or rewrite one of these paths; path one: %s, path two: %s",
							 clash == 1 ? "overlap" : "conflict",
							 expr_path_text(&paths[i]), expr_path_text(&paths[j]));
		}
	}
	return true;
}
