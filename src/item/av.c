/*-------------------------------------------------------------------------
 *
 * av.c
 *		The AttributeValue tree: construction, lookup, copy, equality.
 *
 * Pure C; see av.h for the representation.
 *
 *-------------------------------------------------------------------------
 */
#include "av.h"
#include "number.h"

#include <stdlib.h>

static const char *const type_names[AV_NTYPES] = {
	"S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"
};

const char *
av_type_name(AvType type)
{
	if ((int) type < 0 || (int) type >= AV_NTYPES)
		return "?";
	return type_names[type];
}

int
av_type_from_name(const char *name, int len)
{
	for (int i = 0; i < AV_NTYPES; i++)
	{
		if ((int) strlen(type_names[i]) == len && memcmp(type_names[i], name, len) == 0)
			return i;
	}
	return -1;
}

AvType
av_set_member_type(AvType set_type)
{
	switch (set_type)
	{
		case AV_SS:
			return AV_S;
		case AV_NS:
			return AV_N;
		default:
			return AV_B;
	}
}

AvType
av_set_type_of(AvType member_type)
{
	switch (member_type)
	{
		case AV_S:
			return AV_SS;
		case AV_N:
			return AV_NS;
		default:
			return AV_BS;
	}
}

Av *
av_new(AvType type)
{
	Av		   *v = palloc0(sizeof(Av));

	v->type = type;
	return v;
}

Av *
av_new_str(AvType type, const char *str, int len)
{
	Av		   *v = av_new(type);

	v->str = palloc(len + 1);
	if (len > 0)
		memcpy(v->str, str, len);
	v->str[len] = '\0';
	v->len = len;
	return v;
}

Av *
av_new_bool(bool value)
{
	Av		   *v = av_new(AV_BOOL);

	v->boolval = value;
	return v;
}

Av *
av_new_null(void)
{
	Av		   *v = av_new(AV_NULL);

	v->boolval = true;
	return v;
}

void
av_append(Av *list, Av *item)
{
	if (list->n >= list->cap)
	{
		int			newcap = list->cap ? list->cap * 2 : 4;

		if (list->items)
			list->items = repalloc(list->items, sizeof(Av *) * newcap);
		else
			list->items = palloc(sizeof(Av *) * newcap);
		list->cap = newcap;
	}
	list->items[list->n++] = item;
}

void
av_map_put_nocheck(Av *map, const char *name, int name_len, Av *value)
{
	AvMember   *m;

	if (map->n >= map->cap)
	{
		int			newcap = map->cap ? map->cap * 2 : 8;

		if (map->members)
			map->members = repalloc(map->members, sizeof(AvMember) * newcap);
		else
			map->members = palloc(sizeof(AvMember) * newcap);
		map->cap = newcap;
	}
	m = &map->members[map->n++];
	m->name = palloc(name_len + 1);
	if (name_len > 0)
		memcpy(m->name, name, name_len);
	m->name[name_len] = '\0';
	m->name_len = name_len;
	m->value = value;
}

static int
map_find(const Av *map, const char *name, int name_len)
{
	for (int i = 0; i < map->n; i++)
	{
		const AvMember *m = &map->members[i];

		if (m->name_len == name_len && memcmp(m->name, name, name_len) == 0)
			return i;
	}
	return -1;
}

Av *
av_map_get(const Av *map, const char *name, int name_len)
{
	int			i;

	if (map == NULL || map->type != AV_M)
		return NULL;
	i = map_find(map, name, name_len);
	return i < 0 ? NULL : map->members[i].value;
}

void
av_map_set(Av *map, const char *name, int name_len, Av *value)
{
	int			i = map_find(map, name, name_len);

	if (i >= 0)
		map->members[i].value = value;
	else
		av_map_put_nocheck(map, name, name_len, value);
}

bool
av_map_remove(Av *map, const char *name, int name_len)
{
	int			i = map_find(map, name, name_len);

	if (i < 0)
		return false;
	memmove(&map->members[i], &map->members[i + 1],
			sizeof(AvMember) * (map->n - i - 1));
	map->n--;
	return true;
}

void
av_list_remove(Av *list, int index)
{
	if (index < 0 || index >= list->n)
		return;
	memmove(&list->items[index], &list->items[index + 1],
			sizeof(Av *) * (list->n - index - 1));
	list->n--;
}

Av *
av_copy(const Av *value)
{
	Av		   *c;

	switch (value->type)
	{
		case AV_S:
		case AV_N:
		case AV_B:
			return av_new_str(value->type, value->str, value->len);
		case AV_BOOL:
			return av_new_bool(value->boolval);
		case AV_NULL:
			return av_new_null();
		case AV_M:
			c = av_new(AV_M);
			for (int i = 0; i < value->n; i++)
				av_map_put_nocheck(c, value->members[i].name,
								   value->members[i].name_len,
								   av_copy(value->members[i].value));
			return c;
		default:
			c = av_new(value->type);
			for (int i = 0; i < value->n; i++)
				av_append(c, av_copy(value->items[i]));
			return c;
	}
}

static int
bytes_cmp(const char *a, int alen, const char *b, int blen)
{
	int			c = memcmp(a, b, Min(alen, blen));

	if (c != 0)
		return c;
	return (alen > blen) - (alen < blen);
}

int
av_compare_scalar(const Av *a, const Av *b)
{
	if (a->type == AV_N)
	{
		StNum		na,
					nb;
		StErr		err;

		/* stored numbers are canonical; a parse failure cannot happen here */
		if (!st_num_parse(a->str, a->len, &na, &err) ||
			!st_num_parse(b->str, b->len, &nb, &err))
			return bytes_cmp(a->str, a->len, b->str, b->len);
		return st_num_cmp(&na, &nb);
	}
	/* S and B: unsigned byte order (memcmp compares unsigned chars) */
	return bytes_cmp(a->str, a->len, b->str, b->len);
}

bool
av_set_contains(const Av *set, const Av *value)
{
	if (!av_type_is_set(set->type) || value->type != av_set_member_type(set->type))
		return false;
	for (int i = 0; i < set->n; i++)
	{
		if (av_compare_scalar(set->items[i], value) == 0)
			return true;
	}
	return false;
}

static int
member_ptr_cmp(const void *x, const void *y)
{
	return av_compare_scalar(*(const Av *const *) x, *(const Av *const *) y);
}

/*
 * Two sets of equal size and type hold the same members.  Sorting both
 * makes this n log n: a set may have tens of thousands of members, and a
 * condition comparing two of them must not cost n squared.
 */
static bool
set_members_equal(const Av *a, const Av *b)
{
	const Av  **sa;
	const Av  **sb;
	bool		equal = true;

	if (a->n < 2)
		return a->n == 0 || av_compare_scalar(a->items[0], b->items[0]) == 0;
	sa = palloc(sizeof(Av *) * a->n);
	sb = palloc(sizeof(Av *) * b->n);
	memcpy(sa, a->items, sizeof(Av *) * a->n);
	memcpy(sb, b->items, sizeof(Av *) * b->n);
	qsort(sa, a->n, sizeof(Av *), member_ptr_cmp);
	qsort(sb, b->n, sizeof(Av *), member_ptr_cmp);
	for (int i = 0; i < a->n && equal; i++)
		equal = av_compare_scalar(sa[i], sb[i]) == 0;
	pfree(sa);
	pfree(sb);
	return equal;
}

bool
av_equal(const Av *a, const Av *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type)
	{
		case AV_S:
		case AV_N:
		case AV_B:
			return av_compare_scalar(a, b) == 0;
		case AV_BOOL:
			return a->boolval == b->boolval;
		case AV_NULL:
			return true;
		case AV_L:
			if (a->n != b->n)
				return false;
			for (int i = 0; i < a->n; i++)
				if (!av_equal(a->items[i], b->items[i]))
					return false;
			return true;
		case AV_M:
			if (a->n != b->n)
				return false;
			for (int i = 0; i < a->n; i++)
			{
				Av		   *bv = av_map_get(b, a->members[i].name, a->members[i].name_len);

				if (bv == NULL || !av_equal(a->members[i].value, bv))
					return false;
			}
			return true;
		default:
			/* sets: same size, members distinct, so containment both ways suffices one way */
			if (a->n != b->n)
				return false;
			return set_members_equal(a, b);
	}
}
