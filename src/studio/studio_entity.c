/*-------------------------------------------------------------------------
 *
 * studio_entity.c
 *		st_put_entity and st_entity_of: entities of a table's model.
 *
 * st_put_entity forms an item's key attributes from its entity's
 * templates, adds the type attribute, checks the declared types and the
 * required attributes, and writes through the same PutItem code as st_put.
 * st_entity_of recognises an item by its type attribute, or else by the
 * entity whose primary key templates match the item's key.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "item/av_jsonb.h"
#include "studio.h"

static char *
arg_text(FunctionCallInfo fcinfo, int n)
{
	if (PG_NARGS() <= n || PG_ARGISNULL(n))
		return NULL;
	return text_to_cstring(PG_GETARG_TEXT_PP(n));
}

static StudioModel *
model_of(StTable *t)
{
	StudioModel *m = studio_model_get(t);

	if (m == NULL)
		st_error_hint(ST_ERR_VALIDATION, "Store one with st_set_model(table_name, model).",
					  "Table %s has no model", t->name);
	return m;
}

static StudioEntity *
entity_named(StudioModel *m, const char *name)
{
	StudioEntity *e = studio_find_entity(m, name);

	if (e == NULL)
	{
		StringInfoData list;

		initStringInfo(&list);
		for (int i = 0; i < m->nentities; i++)
			appendStringInfo(&list, "%s%s", i ? ", " : "", m->entities[i].name);
		st_error(ST_ERR_VALIDATION, "Unknown entity \"%s\" in the model of table %s (entities: %s)",
				 name, m->table, list.data);
	}
	return e;
}

/* The value of attribute name (a key, as text) for matching templates, or NULL. */
static char *
key_text(const Av *item, const char *name, int *len)
{
	Av		   *v;

	if (name == NULL)
		return NULL;
	v = av_map_get(item, name, strlen(name));
	if (v == NULL || (v->type != AV_S && v->type != AV_N && v->type != AV_B))
		return NULL;
	*len = v->len;
	return v->str;
}

/* Does the item's type attribute name entity e? */
static bool
is_of_type(const StudioEntity *e, const Av *item)
{
	Av		   *v;

	if (e->type_attr == NULL)
		return false;
	v = av_map_get(item, e->type_attr, strlen(e->type_attr));
	return v && v->type == AV_S && v->len == strlen(e->type_value) &&
		memcmp(v->str, e->type_value, v->len) == 0;
}

StudioEntity *
studio_entity_of(StudioModel *m, StTable *t, const Av *item)
{
	const char *pk;
	const char *sk = NULL;
	int			pklen = 0;
	int			sklen = 0;

	StudioEntity *by_type = NULL;
	int			ntyped = 0;

	/* by the type attribute; entities sharing a type value are told apart by their keys */
	for (int i = 0; i < m->nentities; i++)
	{
		StudioEntity *e = &m->entities[i];

		if (is_of_type(e, item))
		{
			by_type = by_type ? by_type : e;
			ntyped++;
		}
	}
	if (ntyped == 1)
		return by_type;
	pk = key_text(item, t->pk.name, &pklen);
	if (pk == NULL)
		return by_type;
	if (t->sk.name && (sk = key_text(item, t->sk.name, &sklen)) == NULL)
		return by_type;
	for (int i = 0; i < m->nentities; i++)
	{
		StudioEntity *e = &m->entities[i];

		/* an item that says it is of another type is not this entity */
		if (e->type_attr && av_map_get(item, e->type_attr, strlen(e->type_attr)) != NULL &&
			!is_of_type(e, item))
			continue;
		if (!studio_template_match(studio_entity_key(e, t->pk.name), pk, pklen, NULL))
			continue;
		if (sk && !studio_template_match(studio_entity_key(e, t->sk.name), sk, sklen, NULL))
			continue;
		return e;
	}
	return by_type;
}

/* The key definition of a key attribute of the table or of one of its indexes. */
static const StKeyDef *
key_def(StTable *t, const char *attr)
{
	const StKeyDef *kd = studio_key_attribute(t, attr);

	if (kd)
		return kd;
	st_error(ST_ERR_VALIDATION, "Invalid model: %s is no longer a key attribute of table %s",
			 attr, t->name);
}

/* Does any placeholder of tpl have a value in attrs? */
static bool
any_param(const StudioTemplate *tpl, const Av *attrs)
{
	for (int i = 0; tpl && i < tpl->nparts; i++)
		if (tpl->parts[i].is_param && av_map_get(attrs, tpl->parts[i].text, tpl->parts[i].len))
			return true;
	return false;
}

/*
 * Sparse indexes: an index's key templates are left out, and the item stays
 * out of the index, when none of their placeholders has a value (an
 * employee without a department).  The table's keys are always formed, and
 * an index key with some of its values but not all is an error (missing
 * template attribute), as is a template with no placeholders at all.
 */
static bool
index_left_out(StTable *t, StudioEntity *e, const char *attr, const Av *attrs)
{
	if (strcmp(attr, t->pk.name) == 0 || (t->sk.name && strcmp(attr, t->sk.name) == 0))
		return false;
	for (int i = 0; i < t->nindexes; i++)
	{
		StIndex    *ix = &t->indexes[i];
		StudioTemplate *pk;
		StudioTemplate *sk;

		if (ix->multi)
		{
			/* a multi-attribute key: the templates of all of its attributes together */
			bool		mine = false;
			bool		some = false;

			for (int k = 0; k < ix->npk + ix->nsk; k++)
				mine |= strcmp(ix->keys[k].name, attr) == 0;
			if (!mine)
				continue;
			for (int k = 0; k < ix->npk + ix->nsk; k++)
			{
				StudioTemplate *tpl = studio_entity_key(e, ix->keys[k].name);

				if (tpl && tpl->nparams == 0)
					return false;
				some |= any_param(tpl, attrs);
			}
			return !some;
		}
		if (strcmp(ix->pk.name, attr) != 0 && (ix->sk.name == NULL || strcmp(ix->sk.name, attr) != 0))
			continue;
		pk = studio_entity_key(e, ix->pk.name);
		sk = ix->sk.name ? studio_entity_key(e, ix->sk.name) : NULL;
		if ((pk && pk->nparams == 0) || (sk && sk->nparams == 0))
			return false;
		return !any_param(pk, attrs) && !any_param(sk, attrs);
	}
	return false;
}

/* The item entity e forms from attrs: checked, keys and type added. */
Av *
studio_form_item(StTable *t, StudioEntity *e, Av *attrs)
{
	char	   *where = psprintf("entity \"%s\"", e->name);

	for (int i = 0; i < attrs->n; i++)
	{
		AvMember   *a = &attrs->members[i];
		char	   *name = pnstrdup(a->name, a->name_len);

		if (studio_entity_key(e, name))
			st_error(ST_ERR_VALIDATION,
					 "%s: attribute %s is formed by the template \"%s\": leave it out",
					 where, name, studio_entity_key(e, name)->source);
		for (int j = 0; j < e->nattrs; j++)
		{
			if (strcmp(e->attr_names[j], name) != 0 || e->attr_types[j] < 0)
				continue;
			if (a->value->type != (AvType) e->attr_types[j])
				st_error(ST_ERR_VALIDATION, "%s: attribute \"%s\" must be of type %s, not %s",
						 where, name, av_type_name(e->attr_types[j]), av_type_name(a->value->type));
		}
	}
	for (int i = 0; i < e->nrequired; i++)
	{
		Av		   *v = av_map_get(attrs, e->required[i], strlen(e->required[i]));

		if (v == NULL || v->type == AV_NULL)
			st_error(ST_ERR_VALIDATION, "%s: required attribute \"%s\" is missing", where, e->required[i]);
	}
	if (e->type_attr)
	{
		Av		   *v = av_map_get(attrs, e->type_attr, strlen(e->type_attr));

		if (v && !(v->type == AV_S && v->len == strlen(e->type_value) &&
				   memcmp(v->str, e->type_value, v->len) == 0))
			st_error(ST_ERR_VALIDATION, "%s: its type attribute %s must be \"%s\" (or left out)",
					 where, e->type_attr, e->type_value);
	}
	/* the keys: every template filled from attrs (placeholders never name a key) */
	{
		Av		   *keys = av_new(AV_M);

		for (int i = 0; i < e->nkeys; i++)
		{
			const StKeyDef *kd = key_def(t, e->keys[i].attr);
			char	   *text;

			if (index_left_out(t, e, e->keys[i].attr, attrs))
				continue;
			text = studio_template_format(&e->keys[i].tpl, attrs, where);

			av_map_put_nocheck(keys, e->keys[i].attr, strlen(e->keys[i].attr),
							   ops_key_value_from_text(text, kd->type, kd->name));
		}
		for (int i = 0; i < keys->n; i++)
			av_map_set(attrs, keys->members[i].name, keys->members[i].name_len, keys->members[i].value);
	}
	if (e->type_attr)
		av_map_set(attrs, e->type_attr, strlen(e->type_attr),
				   av_new_str(AV_S, e->type_value, strlen(e->type_value)));
	return attrs;
}

/* st_put_entity(entity, attrs, "table", typed): the item written, in the caller's form */
PG_FUNCTION_INFO_V1(st_put_entity);
Datum
st_put_entity(PG_FUNCTION_ARGS)
{
	char	   *entity = arg_text(fcinfo, 0);
	bool		typed = PG_NARGS() > 3 && !PG_ARGISNULL(3) && PG_GETARG_BOOL(3);
	StTable    *t = catalog_lookup(arg_text(fcinfo, 2), false);
	StudioModel *m;
	StudioEntity *e;
	Av		   *item;

	if (entity == NULL)
		st_validation_null("entity");
	if (PG_ARGISNULL(1))
		st_validation_null("attrs");
	m = model_of(t);
	e = entity_named(m, entity);
	item = studio_form_item(t, e, av_map_from_jsonb(PG_GETARG_JSONB_P(1), typed, "attrs"));
	(void) ops_put(t, item, NULL, ST_RV_NONE, NULL);
	PG_RETURN_JSONB_P(av_item_to_jsonb(item, typed));
}

/* st_entity_of(item, "table", typed): the entity an item is, or NULL */
PG_FUNCTION_INFO_V1(st_entity_of);
Datum
st_entity_of(PG_FUNCTION_ARGS)
{
	bool		typed = PG_NARGS() > 2 && !PG_ARGISNULL(2) && PG_GETARG_BOOL(2);
	StTable    *t = catalog_lookup(arg_text(fcinfo, 1), false);
	StudioModel *m;
	StudioEntity *e;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	studio_check_select(t);
	m = model_of(t);
	e = studio_entity_of(m, t, av_map_from_jsonb(PG_GETARG_JSONB_P(0), typed, "item"));
	if (e == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(e->name));
}
