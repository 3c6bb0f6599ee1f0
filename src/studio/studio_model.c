/*-------------------------------------------------------------------------
 *
 * studio_model.c
 *		The model document of a table: st_set_model, st_get_model, and its
 *		parsed form, validated against the table and cached per backend.
 *
 * A model (docs/studio.md) names entities, each with key templates
 * for the table's and the indexes' key attributes, its type attribute and
 * its attributes' types, and named access patterns.  It is stored in
 * stdesign.models, which is granted to nobody: it is read and written here
 * as its owner (as the ClientRequestToken table is), so that who may read a
 * model follows the table (SELECT on its relation) and who may change it
 * too (the relation's owner: a model is part of the table's design, like
 * its indexes).
 *
 * Parsing checks everything a model can get wrong and raises
 * ValidationException "Invalid model: ..." naming the entity or pattern.
 * The parsed model is cached per table and dropped on an invalidation of
 * stdesign.models (st_set_model sends one), of stdesign.tables, or of the
 * table's relation (an index added or dropped).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "expr/expr.h"
#include "item/av_jsonb.h"
#include "studio.h"
#include "common/st_inval.h"

/* ---------- reading the document ---------- */

static Av *
member(const Av *obj, const char *name)
{
	return av_map_get(obj, name, strlen(name));
}

static void
bad(const char *where, const char *fmt, const char *arg)
{
	char	   *msg = psprintf(fmt, arg);

	st_error(ST_ERR_VALIDATION, "Invalid model: %s: %s", where, msg);
}

/* Every member of obj is one of the names allowed. */
static void
known_fields(const Av *obj, const char *where, const char *const *allowed, int n)
{
	for (int i = 0; i < obj->n; i++)
	{
		bool		ok = false;

		for (int j = 0; j < n && !ok; j++)
			ok = strlen(allowed[j]) == obj->members[i].name_len &&
				memcmp(allowed[j], obj->members[i].name, obj->members[i].name_len) == 0;
		if (!ok)
		{
			StringInfoData list;

			initStringInfo(&list);
			for (int j = 0; j < n; j++)
				appendStringInfo(&list, "%s%s", j ? ", " : "", allowed[j]);
			st_error(ST_ERR_VALIDATION, "Invalid model: %s: unknown field \"%.*s\" (known: %s)",
					 where, obj->members[i].name_len, obj->members[i].name, list.data);
		}
	}
}

static Av *
object_member(const Av *obj, const char *name, const char *where, bool required)
{
	Av		   *v = member(obj, name);

	if (v == NULL || (v->type == AV_NULL && !required))
	{
		if (required)
			bad(where, "\"%s\" is missing", name);
		return NULL;
	}
	if (v->type != AV_M)
		bad(where, "\"%s\" must be a JSON object", name);
	return v;
}

static char *
string_of(const Av *v, const char *where, const char *what)
{
	if (v->type != AV_S)
		bad(where, "%s must be a string", what);
	if (v->len == 0)
		bad(where, "%s must not be empty", what);
	if (v->len > STUDIO_NAME_MAX && strcmp(what, "\"filter\"") != 0 &&
		strcmp(what, "\"projection\"") != 0 && strcmp(what, "\"description\"") != 0)
		bad(where, "%s is longer than 255 bytes", what);
	return pnstrdup(v->str, v->len);
}

/* A string member; NULL when absent or JSON null (and not required). */
static char *
string_member(const Av *obj, const char *name, const char *where, bool required)
{
	Av		   *v = member(obj, name);

	if (v == NULL || v->type == AV_NULL)
	{
		if (required)
			bad(where, "\"%s\" is missing", name);
		return NULL;
	}
	return string_of(v, where, psprintf("\"%s\"", name));
}

static bool
bool_member(const Av *obj, const char *name, const char *where, bool dflt)
{
	Av		   *v = member(obj, name);

	if (v == NULL || v->type == AV_NULL)
		return dflt;
	if (v->type != AV_BOOL)
		bad(where, "\"%s\" must be true or false", name);
	return v->boolval;
}

static double
number_member(const Av *obj, const char *name, const char *where, double dflt)
{
	Av		   *v = member(obj, name);
	char	   *s;
	char	   *end;
	double		d;

	if (v == NULL || v->type == AV_NULL)
		return dflt;
	if (v->type != AV_N)
		bad(where, "\"%s\" must be a number", name);
	s = pnstrdup(v->str, v->len);
	d = strtod(s, &end);
	if (*end != '\0' || d < 0 || d > 1e12)
		bad(where, "\"%s\" must be a number from 0 to 1e12", name);
	return d;
}

/* ---------- keys of the table and its indexes ---------- */

const StKeyDef *
studio_pk_def(StTable *t, StIndex *ix)
{
	return ix ? &ix->pk : &t->pk;
}

const StKeyDef *
studio_sk_def(StTable *t, StIndex *ix)
{
	return ix ? &ix->sk : &t->sk;
}

/*
 * The key definition of attribute name in the table or an index (any key
 * attribute of a multi-attribute GSI key included), or NULL.
 */
const StKeyDef *
studio_key_attribute(StTable *t, const char *name)
{
	if (strcmp(t->pk.name, name) == 0)
		return &t->pk;
	if (t->sk.name && strcmp(t->sk.name, name) == 0)
		return &t->sk;
	for (int i = 0; i < t->nindexes; i++)
		for (int k = 0; k < t->indexes[i].npk + t->indexes[i].nsk; k++)
			if (strcmp(t->indexes[i].keys[k].name, name) == 0)
				return &t->indexes[i].keys[k];
	return NULL;
}

/*
 * May a template's placeholder name attribute `name`?  Not a key attribute
 * that templates form: the table's keys, a single-attribute index's, or one
 * entity e forms.  A multi-attribute GSI's key attribute that e does not
 * form is one of e's plain attributes (DynamoDB's multi-attribute keys are
 * made of the items' natural attributes), which a template may use.
 */
static bool
formed_key_attribute(StTable *t, StudioEntity *e, const char *name)
{
	if (strcmp(t->pk.name, name) == 0 || (t->sk.name && strcmp(t->sk.name, name) == 0))
		return true;
	for (int i = 0; i < t->nindexes; i++)
	{
		StIndex    *ix = &t->indexes[i];

		for (int k = 0; k < ix->npk + ix->nsk; k++)
			if (strcmp(ix->keys[k].name, name) == 0 && !ix->multi)
				return true;
	}
	return studio_entity_key(e, name) != NULL;
}

StudioTemplate *
studio_entity_key(StudioEntity *e, const char *attr)
{
	for (int i = 0; i < e->nkeys; i++)
		if (strcmp(e->keys[i].attr, attr) == 0)
			return &e->keys[i].tpl;
	return NULL;
}

static int
entity_attr(const StudioEntity *e, const char *name)
{
	for (int i = 0; i < e->nattrs; i++)
		if (strcmp(e->attr_names[i], name) == 0)
			return i;
	return -1;
}

/* A template for a key of type N or B must be one placeholder (or a literal). */
static void
check_key_type(const StudioTemplate *tpl, const StKeyDef *k, const char *where)
{
	if (k->type == AV_S || tpl->nparams == 0)
		return;
	if (tpl->nparts != 1)
		st_error(ST_ERR_VALIDATION,
				 "Invalid model: %s: key attribute %s is of type %s, so its template must be a single placeholder such as \"{%s}\", not \"%s\"",
				 where, k->name, av_type_name(k->type), k->name, tpl->source);
}

/* ---------- entities ---------- */

static void
parse_entity(StTable *t, StudioEntity *e, const Av *def, const char *default_type_attr)
{
	static const char *const fields[] = {"type", "type_attribute", "keys", "attributes",
	"required", "description"};
	char	   *where = psprintf("entity \"%s\"", e->name);
	Av		   *keys;
	Av		   *attrs;
	Av		   *req;
	Av		   *ta;

	if (def->type != AV_M)
		bad(where, "%s must be a JSON object", "its definition");
	known_fields(def, where, fields, lengthof(fields));

	ta = member(def, "type_attribute");
	if (ta == NULL)
		e->type_attr = default_type_attr ? pstrdup(default_type_attr) : NULL;
	else if (ta->type == AV_NULL)
		e->type_attr = NULL;
	else
		e->type_attr = string_of(ta, where, "\"type_attribute\"");
	e->type_value = string_member(def, "type", where, false);
	if (e->type_value == NULL)
		e->type_value = pstrdup(e->name);
	(void) string_member(def, "description", where, false);

	/* attributes: name -> type ("S", "N", ..., or "any") */
	attrs = object_member(def, "attributes", where, false);
	e->nattrs = -1;
	if (attrs)
	{
		e->nattrs = attrs->n;
		e->attr_names = palloc(sizeof(char *) * Max(1, attrs->n));
		e->attr_types = palloc(sizeof(int) * Max(1, attrs->n));
		for (int i = 0; i < attrs->n; i++)
		{
			Av		   *ty = attrs->members[i].value;

			e->attr_names[i] = pnstrdup(attrs->members[i].name, attrs->members[i].name_len);
			if (ty->type != AV_S)
				bad(where, "the type of attribute \"%s\" must be a string: S, N, B, BOOL, NULL, M, L, SS, NS, BS or any",
					e->attr_names[i]);
			if (ty->len == 3 && memcmp(ty->str, "any", 3) == 0)
				e->attr_types[i] = -1;
			else if ((e->attr_types[i] = av_type_from_name(ty->str, ty->len)) < 0)
				st_error(ST_ERR_VALIDATION,
						 "Invalid model: %s: attribute \"%s\" has unknown type \"%.*s\" (S, N, B, BOOL, NULL, M, L, SS, NS, BS or any)",
						 where, e->attr_names[i], ty->len, ty->str);
		}
	}

	/* keys: key attribute -> template */
	keys = object_member(def, "keys", where, true);
	e->nkeys = keys->n;
	e->keys = palloc0(sizeof(StudioKey) * Max(1, keys->n));
	for (int i = 0; i < keys->n; i++)
	{
		StudioKey  *k = &e->keys[i];
		Av		   *v = keys->members[i].value;
		const StKeyDef *kd;
		char	   *kwhere;

		k->attr = pnstrdup(keys->members[i].name, keys->members[i].name_len);
		kwhere = psprintf("entity \"%s\", key %s", e->name, k->attr);
		kd = studio_key_attribute(t, k->attr);
		if (kd == NULL)
			st_error(ST_ERR_VALIDATION,
					 "Invalid model: %s: no index can serve this template: %s is not a key attribute of table %s or of any of its indexes",
					 kwhere, k->attr, t->name);
		if (v->type != AV_S)
			bad(kwhere, "%s must be a string", "the template");
		studio_template_parse(v->str, v->len, &k->tpl, kwhere);
		check_key_type(&k->tpl, kd, kwhere);
		for (int j = 0; j < k->tpl.nparts; j++)
		{
			StudioPart *p = &k->tpl.parts[j];

			if (!p->is_param)
				continue;
			if (e->nattrs >= 0 && entity_attr(e, p->text) < 0)
				st_error(ST_ERR_VALIDATION,
						 "Invalid model: %s: placeholder {%s} of \"%s\" is not one of the entity's attributes",
						 kwhere, p->text, k->tpl.source);
		}
	}
	/* placeholders, once every template is known */
	for (int i = 0; i < e->nkeys; i++)
	{
		StudioKey  *k = &e->keys[i];

		for (int j = 0; j < k->tpl.nparts; j++)
			if (k->tpl.parts[j].is_param && formed_key_attribute(t, e, k->tpl.parts[j].text))
				st_error(ST_ERR_VALIDATION,
						 "Invalid model: entity \"%s\", key %s: placeholder {%s} is itself a key attribute: templates are filled from the entity's other attributes",
						 e->name, k->attr, k->tpl.parts[j].text);
	}
	if (studio_entity_key(e, t->pk.name) == NULL)
		st_error(ST_ERR_VALIDATION, "Invalid model: %s: no template for the table's partition key %s",
				 where, t->pk.name);
	if (t->sk.name && studio_entity_key(e, t->sk.name) == NULL)
		st_error(ST_ERR_VALIDATION, "Invalid model: %s: no template for the table's sort key %s",
				 where, t->sk.name);
	for (int i = 0; i < t->nindexes; i++)
	{
		StIndex    *ix = &t->indexes[i];
		bool		has_pk = studio_entity_key(e, ix->pk.name) != NULL;
		bool		has_sk = ix->sk.name && studio_entity_key(e, ix->sk.name) != NULL;

		if (ix->multi)
		{
			/*
			 * A multi-attribute key: each attribute a template or one of the
			 * entity's plain attributes; an entity that forms some of them
			 * must give the others too, or its items never enter the index.
			 */
			int			formed = -1;

			for (int k = 0; k < ix->npk + ix->nsk && formed < 0; k++)
				if (studio_entity_key(e, ix->keys[k].name))
					formed = k;
			for (int k = 0; formed >= 0 && e->nattrs >= 0 && k < ix->npk + ix->nsk; k++)
				if (studio_entity_key(e, ix->keys[k].name) == NULL && entity_attr(e, ix->keys[k].name) < 0)
					st_error(ST_ERR_VALIDATION,
							 "Invalid model: %s: it forms %s but has neither a template nor an attribute for %s, so its items never enter index %s (give every key attribute of the index, or none)",
							 where, ix->keys[formed].name, ix->keys[k].name, ix->name);
			continue;
		}
		if (ix->sk.name && has_pk != has_sk && strcmp(ix->pk.name, t->pk.name) != 0)
			st_error(ST_ERR_VALIDATION,
					 "Invalid model: %s: it forms %s but not %s, so its items never enter index %s (form both or neither)",
					 where, has_pk ? ix->pk.name : ix->sk.name, has_pk ? ix->sk.name : ix->pk.name, ix->name);
	}

	/* required attributes */
	req = member(def, "required");
	e->nrequired = 0;
	if (req && req->type != AV_NULL)
	{
		if (req->type != AV_L)
			bad(where, "%s must be an array of attribute names", "\"required\"");
		e->required = palloc(sizeof(char *) * Max(1, req->n));
		for (int i = 0; i < req->n; i++)
		{
			char	   *name = string_of(req->items[i], where, "each of \"required\"");

			if (e->nattrs >= 0 && entity_attr(e, name) < 0)
				bad(where, "required attribute \"%s\" is not one of its \"attributes\"", name);
			e->required[e->nrequired++] = name;
		}
	}
}

/* Two entities whose templates can form the same primary key. */
static void
check_collisions(StTable *t, StudioModel *m)
{
	for (int i = 0; i < m->nentities; i++)
		for (int j = i + 1; j < m->nentities; j++)
		{
			StudioEntity *a = &m->entities[i];
			StudioEntity *b = &m->entities[j];
			StudioTemplate *apk = studio_entity_key(a, t->pk.name);
			StudioTemplate *bpk = studio_entity_key(b, t->pk.name);
			StudioTemplate *ask = t->sk.name ? studio_entity_key(a, t->sk.name) : NULL;
			StudioTemplate *bsk = t->sk.name ? studio_entity_key(b, t->sk.name) : NULL;

			if (!studio_templates_overlap(apk, bpk))
				continue;
			if (ask && !studio_templates_overlap(ask, bsk))
				continue;
			st_error_hint(ST_ERR_VALIDATION,
						  "Give the sort keys (or partition keys) of the two entities different literal prefixes, such as \"ORDER#\" and \"ITEM#\".",
						  "Invalid model: entities \"%s\" and \"%s\" can form the same primary key in one partition: %s",
						  a->name, b->name,
						  ask ? psprintf("%s \"%s\" and \"%s\", %s \"%s\" and \"%s\"",
										 t->pk.name, apk->source, bpk->source,
										 t->sk.name, ask->source, bsk->source)
						  : psprintf("%s \"%s\" and \"%s\"", t->pk.name, apk->source, bpk->source));
		}
}

/* ---------- patterns ---------- */

/* The index pattern p names, or NULL for the table; raises when t has none of the name. */
static StIndex *
pattern_index_lookup(StTable *t, StudioPattern *p)
{
	StIndex    *ix;

	if (p->index == NULL)
		return NULL;
	ix = catalog_find_index(t, p->index);
	if (ix == NULL)
		st_error(ST_ERR_VALIDATION,
				 "Invalid model: pattern \"%s\": table %s has no index %s", p->name, t->name, p->index);
	return ix;
}

StIndex *
studio_pattern_index(StTable *t, StudioPattern *p)
{
	StIndex    *ix = pattern_index_lookup(t, p);

	if (ix == NULL)
		return NULL;
	/*
	 * A Query pattern's conditions were parsed against the index's key: one
	 * per key attribute of a multi-attribute key, a template (and a sort
	 * condition) of a single one.  A model older than the index (a caller
	 * still holding it) must not be run against another shape of key.
	 */
	if (p->op == STUDIO_QUERY &&
		((p->mkeys != NULL) != ix->multi ||
		 (p->mkeys && (p->nmkeys != ix->npk + ix->nsk || p->nmkeys_pk != ix->npk))))
		st_error(ST_ERR_VALIDATION,
				 "Invalid model: pattern \"%s\": the key of index %s changed since the model was set: set it again",
				 p->name, ix->name);
	return ix;
}

static StudioTemplate *
template_member(const Av *v, const char *where, const StKeyDef *kd)
{
	StudioTemplate *tpl = palloc0(sizeof(StudioTemplate));

	if (v->type != AV_S)
		bad(where, "%s must be a string (a key template)", "each key value");
	studio_template_parse(v->str, v->len, tpl, where);
	if (kd)
		check_key_type(tpl, kd, where);
	return tpl;
}

static const char *const sort_ops[] = {"=", "<", "<=", ">", ">=", "between", "begins_with"};
static const StSortOp sort_codes[] = {ST_SORT_EQ, ST_SORT_LT, ST_SORT_LE, ST_SORT_GT, ST_SORT_GE,
ST_SORT_BETWEEN, ST_SORT_BEGINS_WITH};

/* The sort key condition named name (len bytes), or ST_SORT_NONE. */
static StSortOp
sort_code(const char *name, int len)
{
	for (int i = 0; i < lengthof(sort_ops); i++)
		if (strlen(sort_ops[i]) == len && memcmp(sort_ops[i], name, len) == 0)
			return sort_codes[i];
	return ST_SORT_NONE;
}

/* The position of key attribute name (len bytes) among ix's keys [from, to), or -1. */
static int
key_position(const StIndex *ix, const char *name, int len, int from, int to)
{
	for (int k = from; k < to; k++)
		if (strlen(ix->keys[k].name) == len && memcmp(ix->keys[k].name, name, len) == 0)
			return k;
	return -1;
}

/*
 * One sort key condition on key attribute skd: a template (=), or an object
 * of one condition.
 */
static void
parse_condition(const Av *v, const StKeyDef *skd, StSortOp *op, StudioTemplate **t1,
				StudioTemplate **t2, const char *where, const char *what)
{
	Av		   *arg;

	*op = ST_SORT_NONE;
	if (v->type == AV_S)
	{
		*op = ST_SORT_EQ;
		*t1 = template_member(v, where, skd);
		return;
	}
	if (v->type != AV_M || v->n != 1)
		bad(where, "%s must be a key template, or an object of one condition: {\"begins_with\": \"ORDER#\"}, {\"between\": [\"A\", \"B\"]}, {\"=\": ...}, {\"<\": ...}, {\"<=\": ...}, {\">\": ...} or {\">=\": ...}",
			what);
	*op = sort_code(v->members[0].name, v->members[0].name_len);
	if (*op == ST_SORT_NONE)
		st_error(ST_ERR_VALIDATION,
				 "Invalid model: %s: unknown sort key condition \"%.*s\" (=, <, <=, >, >=, between, begins_with)",
				 where, v->members[0].name_len, v->members[0].name);
	arg = v->members[0].value;
	if (*op == ST_SORT_BETWEEN)
	{
		if (arg->type != AV_L || arg->n != 2)
			bad(where, "%s takes an array of two key templates", "\"between\"");
		*t1 = template_member(arg->items[0], where, skd);
		*t2 = template_member(arg->items[1], where, skd);
		return;
	}
	if (*op == ST_SORT_BEGINS_WITH && skd->type != AV_S)
		st_error(ST_ERR_VALIDATION,
				 "Invalid model: %s: begins_with needs a string sort key; %s is of type %s",
				 where, skd->name, av_type_name(skd->type));
	*t1 = template_member(arg, where, skd);
}

static void
parse_sort_condition(StTable *t, StIndex *ix, StudioPattern *p, const Av *v, const char *where)
{
	const StKeyDef *skd = studio_sk_def(t, ix);

	if (skd->name == NULL)
		st_error(ST_ERR_VALIDATION,
				 "Invalid model: %s: no index can serve this pattern: it has a sort key condition, and %s has no sort key",
				 where, ix ? ix->name : t->name);
	parse_condition(v, skd, &p->sk_op, &p->sk1, &p->sk2, where, "\"sk\"");
}

/* The key attributes of ix a multi-attribute pattern may name, as a list for messages. */
static char *
key_names(const StIndex *ix, int from, int to)
{
	StringInfoData s;

	initStringInfo(&s);
	for (int k = from; k < to; k++)
		appendStringInfo(&s, "%s%s", k > from ? ", " : "", ix->keys[k].name);
	return s.data;
}

/*
 * The values of "pk" (hash true: the HASH attributes) or "sk" (the RANGE
 * ones) of a Query pattern of a multi-attribute key, into p->mkeys: a JSON
 * array gives them in key order, an object names them (st_query_index's
 * two forms); null leaves one out.  "pk" may be a lone template when the
 * index has one HASH attribute, and "sk" a lone template or condition for
 * the first RANGE attribute.  A HASH attribute takes a template, a RANGE
 * one a template or one condition.
 */
static void
parse_multi_values(StIndex *ix, StudioPattern *p, const Av *v, bool hash, const char *where)
{
	const char *what = hash ? "\"pk\"" : "\"sk\"";
	const char *kind = hash ? "partition-key" : "sort-key";
	int			first = hash ? 0 : ix->npk;
	int			count = hash ? ix->npk : ix->nsk;
	bool		by_name = v->type == AV_M;

	/* {"begins_with": ...}: a condition on the first RANGE attribute, unless one is so named */
	if (v->type == AV_M && !hash && v->n == 1 &&
		key_position(ix, v->members[0].name, v->members[0].name_len, first, first + count) < 0 &&
		sort_code(v->members[0].name, v->members[0].name_len) != ST_SORT_NONE)
		by_name = false;
	if (v->type == AV_S || (v->type == AV_M && !by_name))
	{
		if (hash && count > 1)
			st_error(ST_ERR_VALIDATION,
					 "Invalid model: %s: index %s has %d partition-key attributes (%s): \"pk\" must give each, as an array of templates in key order or an object of attribute name to template",
					 where, ix->name, count, key_names(ix, first, first + count));
		if (count == 0)
			st_error(ST_ERR_VALIDATION,
					 "Invalid model: %s: no index can serve this pattern: it has a sort key condition, and %s has no sort key",
					 where, ix->name);
		p->mkeys[first].has = true;
		if (hash)
		{
			p->mkeys[first].op = ST_SORT_EQ;
			p->mkeys[first].t1 = template_member(v, where, &ix->keys[first]);
		}
		else
			parse_condition(v, &ix->keys[first], &p->mkeys[first].op, &p->mkeys[first].t1,
							&p->mkeys[first].t2, where, what);
		return;
	}
	if (v->type != AV_L && v->type != AV_M)
		st_error(ST_ERR_VALIDATION,
				 "Invalid model: %s: %s of a Query of index %s must be an array of the values of its %s attributes (%s) in key order, or an object of attribute name to value",
				 where, what, ix->name, kind, key_names(ix, first, first + count));
	if (v->type == AV_L && v->n > count)
		st_error(ST_ERR_VALIDATION,
				 "Invalid model: %s: %s has %d values, and index %s has %d %s attributes (%s)",
				 where, what, v->n, ix->name, count, kind, key_names(ix, first, first + count));
	for (int i = 0; i < v->n; i++)
	{
		const Av   *val = v->type == AV_L ? v->items[i] : v->members[i].value;
		int			k = first + i;
		StudioKeyCond *kc;

		if (v->type == AV_M)
		{
			k = key_position(ix, v->members[i].name, v->members[i].name_len, first, first + count);
			if (k < 0)
				st_error(ST_ERR_VALIDATION,
						 "Invalid model: %s: %s names %.*s, which is not a %s attribute of index %s (%s)",
						 where, what, v->members[i].name_len, v->members[i].name, kind, ix->name,
						 key_names(ix, first, first + count));
		}
		if (val->type == AV_NULL)
			continue;
		kc = &p->mkeys[k];
		kc->has = true;
		if (hash && val->type != AV_S)
			st_error(ST_ERR_VALIDATION,
					 "Invalid model: %s: the value of partition-key attribute %s must be a key template (a string): a partition key is only compared with =",
					 where, ix->keys[k].name);
		parse_condition(val, &ix->keys[k], &kc->op, &kc->t1, &kc->t2, where,
						psprintf("the value of %s", ix->keys[k].name));
	}
}

void
studio_multi_condition(StIndex *ix, const StudioKeyCond *mkeys, const Av *params,
					   ExprKeyConditionMulti *m, const char *where)
{
	memset(m, 0, sizeof(*m));
	for (int k = 0; k < ix->npk + ix->nsk; k++)
	{
		m->has[k] = mkeys[k].has;
		if (!mkeys[k].has)
			continue;
		m->op[k] = ops_query_key_op(mkeys[k].op);
		if (params == NULL)
			continue;
		m->value1[k] = ops_key_value_from_text(studio_template_format(mkeys[k].t1, params, where),
											   ix->keys[k].type, ix->keys[k].name);
		if (mkeys[k].t2)
			m->value2[k] = ops_key_value_from_text(studio_template_format(mkeys[k].t2, params, where),
												   ix->keys[k].type, ix->keys[k].name);
	}
}

/*
 * A Query pattern of a multi-attribute GSI key: its values, then their
 * shape checked by the Query's own rules (ops_query_set_multi_condition:
 * every HASH attribute, RANGE attributes from the first, none skipped, a
 * condition other than = only on the last one used; DynamoDB Developer
 * Guide, "Multi-attribute keys pattern"), its error raised again as
 * "Invalid model: <where>: " and DynamoDB's message, so that a model is
 * refused when it is set rather than at its first call.
 */
static void
parse_multi_condition(StTable *t, StIndex *ix, StudioPattern *p, const Av *pk, const Av *sk,
					  const char *where)
{
	MemoryContext cxt = CurrentMemoryContext;
	ExprKeyConditionMulti m;
	StQuerySpec q;

	p->mkeys = palloc0(sizeof(StudioKeyCond) * (ix->npk + ix->nsk));
	p->nmkeys = ix->npk + ix->nsk;
	p->nmkeys_pk = ix->npk;
	if (pk && pk->type != AV_NULL)
		parse_multi_values(ix, p, pk, true, where);
	if (sk && sk->type != AV_NULL)
		parse_multi_values(ix, p, sk, false, where);
	studio_multi_condition(ix, p->mkeys, NULL, &m, where);
	memset(&q, 0, sizeof(q));
	q.table = t;
	q.index = ix;
	PG_TRY();
	{
		ops_query_set_multi_condition(&q, &m);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		studio_rethrow_model_error(where,
								   psprintf("A Query of index %s gives every partition-key attribute (%s) with =, then sort-key attributes (%s) from the first, none skipped, all with = but the last one used.",
											ix->name, key_names(ix, 0, ix->npk),
											ix->nsk ? key_names(ix, ix->npk, ix->npk + ix->nsk) : "none"));
	}
	PG_END_TRY();
}

static void
parse_pattern(StTable *t, StudioModel *m, StudioPattern *p, const Av *def)
{
	static const char *const fields[] = {"op", "index", "pk", "sk", "filter", "projection",
		"names", "values", "forward", "limit", "consistent", "rate", "entity", "returns",
	"example", "description"};
	char	   *where = psprintf("pattern \"%s\"", p->name);
	char	   *op;
	StIndex    *ix;
	Av		   *v;
	double		limit;

	if (def->type != AV_M)
		bad(where, "%s must be a JSON object", "its definition");
	known_fields(def, where, fields, lengthof(fields));
	op = string_member(def, "op", where, true);
	if (strcmp(op, "GetItem") == 0)
		p->op = STUDIO_GET;
	else if (strcmp(op, "Query") == 0)
		p->op = STUDIO_QUERY;
	else if (strcmp(op, "Scan") == 0)
		p->op = STUDIO_SCAN;
	else if (strcmp(op, "PutItem") == 0)
		p->op = STUDIO_PUT;
	else
		bad(where, "unknown \"op\" \"%s\" (GetItem, Query, Scan or PutItem)", op);
	p->index = string_member(def, "index", where, false);
	/* the pattern's key is parsed below, against this index */
	ix = pattern_index_lookup(t, p);
	if (p->index && (p->op == STUDIO_GET || p->op == STUDIO_PUT))
		bad(where, "%s reads or writes the table itself: it takes no \"index\"", op);
	(void) string_member(def, "description", where, false);

	p->sk_op = ST_SORT_NONE;
	v = member(def, "pk");
	if (ix && ix->multi && p->op == STUDIO_QUERY)
		parse_multi_condition(t, ix, p, v, member(def, "sk"), where);
	else if (p->op == STUDIO_GET || p->op == STUDIO_QUERY)
	{
		if (v == NULL || v->type == AV_NULL)
			bad(where, "\"pk\" (the partition key's template) is missing for %s", op);
		p->pk = template_member(v, where, studio_pk_def(t, ix));
		v = member(def, "sk");
		if (p->op == STUDIO_GET)
		{
			if (t->sk.name && (v == NULL || v->type != AV_S))
				bad(where, "GetItem needs \"sk\", the template of the sort key %s", t->sk.name);
			if (!t->sk.name && v && v->type != AV_NULL)
				bad(where, "table has no sort key: GetItem takes no \"sk\"%s", "");
			if (v && v->type == AV_S)
			{
				p->sk_op = ST_SORT_EQ;
				p->sk1 = template_member(v, where, &t->sk);
			}
		}
		else if (v && v->type != AV_NULL)
			parse_sort_condition(t, ix, p, v, where);
	}
	else if ((v && v->type != AV_NULL) || (member(def, "sk") && member(def, "sk")->type != AV_NULL))
		bad(where, "%s takes no key conditions (\"pk\", \"sk\")", op);

	p->filter = string_member(def, "filter", where, false);
	p->projection = string_member(def, "projection", where, false);
	if (p->filter && p->op != STUDIO_QUERY && p->op != STUDIO_SCAN)
		bad(where, "only Query and Scan take a \"filter\"%s", "");
	if (p->op == STUDIO_PUT && p->projection)
		bad(where, "PutItem takes no \"projection\"%s", "");
	v = object_member(def, "names", where, false);
	if (v)
	{
		for (int i = 0; i < v->n; i++)
			if (v->members[i].value->type != AV_S)
				bad(where, "\"names\" must map each #name to a string%s", "");
		p->names = av_item_to_jsonb(v, false);
	}
	p->values = object_member(def, "values", where, false);
	p->forward = bool_member(def, "forward", where, true);
	p->consistent = bool_member(def, "consistent", where, false);
	if (p->consistent && ix && !ix->is_local)
		bad(where, "a global secondary index has no consistent reads (\"consistent\": true on index %s)",
			ix->name);
	limit = number_member(def, "limit", where, -1);
	if (limit == 0 || (limit > 0 && limit != floor(limit)) || limit > PG_INT32_MAX)
		bad(where, "\"limit\" must be a whole number of at least 1%s", "");
	p->limit = (int64) limit;
	p->rate = number_member(def, "rate", where, -1);
	p->entity = string_member(def, "entity", where, p->op == STUDIO_PUT);
	if (p->entity && p->op != STUDIO_PUT)
		bad(where, "only PutItem names an \"entity\" (use \"returns\" for the entities a read returns)%s", "");
	if (p->entity && studio_find_entity(m, p->entity) == NULL)
		bad(where, "unknown entity \"%s\"", p->entity);
	v = member(def, "returns");
	if (v && v->type != AV_NULL)
	{
		if (v->type != AV_L)
			bad(where, "\"returns\" must be an array of entity names%s", "");
		p->returns = palloc(sizeof(char *) * Max(1, v->n));
		for (int i = 0; i < v->n; i++)
		{
			char	   *name = string_of(v->items[i], where, "each of \"returns\"");

			if (studio_find_entity(m, name) == NULL)
				bad(where, "\"returns\" names unknown entity \"%s\"", name);
			p->returns[p->nreturns++] = name;
		}
	}
	p->example = object_member(def, "example", where, false);
	studio_pattern_check_expressions(t, p, where);
}

/* ---------- the whole model ---------- */

StudioEntity *
studio_find_entity(StudioModel *m, const char *name)
{
	for (int i = 0; i < m->nentities; i++)
		if (strcmp(m->entities[i].name, name) == 0)
			return &m->entities[i];
	return NULL;
}

StudioPattern *
studio_find_pattern(StudioModel *m, const char *name)
{
	for (int i = 0; i < m->npatterns; i++)
		if (strcmp(m->patterns[i].name, name) == 0)
			return &m->patterns[i];
	return NULL;
}

/* Entities and patterns are listed by name (jsonb keeps an object's keys by length). */
static int
entity_cmp(const void *a, const void *b)
{
	return strcmp(((const StudioEntity *) a)->name, ((const StudioEntity *) b)->name);
}

static int
pattern_cmp(const void *a, const void *b)
{
	return strcmp(((const StudioPattern *) a)->name, ((const StudioPattern *) b)->name);
}

/* Parse and validate doc against t, in the current memory context. */
StudioModel *
studio_model_parse(StTable *t, Jsonb *doc)
{
	static const char *const fields[] = {"type_attribute", "entities", "patterns", "description"};
	StudioModel *m = palloc0(sizeof(StudioModel));
	Av		   *root;
	Av		   *ents;
	Av		   *pats;
	Av		   *ta;
	char	   *type_attr = "entity_type";

	if (VARSIZE(doc) > STUDIO_MODEL_MAX_BYTES)
		st_error(ST_ERR_VALIDATION, "Invalid model: the document is larger than 1 MB");
	if (!JB_ROOT_IS_OBJECT(doc) || JB_ROOT_IS_SCALAR(doc))
		st_error(ST_ERR_VALIDATION, "Invalid model: the document must be a JSON object");
	root = av_map_from_jsonb(doc, false, "model");
	m->table = pstrdup(t->name);
	known_fields(root, "the document", fields, lengthof(fields));
	ta = member(root, "type_attribute");
	if (ta && ta->type == AV_NULL)
		type_attr = NULL;
	else if (ta)
		type_attr = string_of(ta, "the document", "\"type_attribute\"");
	(void) string_member(root, "description", "the document", false);

	ents = object_member(root, "entities", "the document", true);
	if (ents->n == 0)
		st_error(ST_ERR_VALIDATION, "Invalid model: the document: \"entities\" names no entity");
	if (ents->n > STUDIO_MAX_ENTITIES)
		st_error(ST_ERR_VALIDATION, "Invalid model: more than %d entities", STUDIO_MAX_ENTITIES);
	m->entities = palloc0(sizeof(StudioEntity) * ents->n);
	for (int i = 0; i < ents->n; i++)
	{
		StudioEntity *e = &m->entities[m->nentities];

		if (ents->members[i].name_len == 0 || ents->members[i].name_len > STUDIO_NAME_MAX)
			st_error(ST_ERR_VALIDATION, "Invalid model: an entity name must have 1 to 255 bytes");
		e->name = pnstrdup(ents->members[i].name, ents->members[i].name_len);
		parse_entity(t, e, ents->members[i].value, type_attr);
		m->nentities++;
	}
	qsort(m->entities, m->nentities, sizeof(StudioEntity), entity_cmp);
	check_collisions(t, m);

	pats = object_member(root, "patterns", "the document", false);
	if (pats)
	{
		if (pats->n > STUDIO_MAX_PATTERNS)
			st_error(ST_ERR_VALIDATION, "Invalid model: more than %d patterns", STUDIO_MAX_PATTERNS);
		m->patterns = palloc0(sizeof(StudioPattern) * Max(1, pats->n));
		for (int i = 0; i < pats->n; i++)
		{
			StudioPattern *p = &m->patterns[m->npatterns];

			if (pats->members[i].name_len == 0 || pats->members[i].name_len > STUDIO_NAME_MAX)
				st_error(ST_ERR_VALIDATION, "Invalid model: a pattern name must have 1 to 255 bytes");
			p->name = pnstrdup(pats->members[i].name, pats->members[i].name_len);
			parse_pattern(t, m, p, pats->members[i].value);
			m->npatterns++;
		}
		qsort(m->patterns, m->npatterns, sizeof(StudioPattern), pattern_cmp);
	}
	return m;
}

/* ---------- storage and cache ---------- */

typedef struct ModelSlot
{
	char		name[ST_TABLE_NAME_MAX + 1];	/* hash key */
	Oid			relid;			/* the table's relation */
	StudioModel *model;			/* NULL: the table has no model */
} ModelSlot;

static HTAB *model_cache = NULL;
static bool cache_stale = false;
static Oid	models_relid = InvalidOid;
static Oid	tables_relid = InvalidOid;

static void
model_inval(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS seq;
	ModelSlot  *slot;

	if (model_cache == NULL || cache_stale)
		return;
	if (relid == InvalidOid || relid == models_relid || relid == tables_relid)
	{
		cache_stale = true;
		return;
	}
	hash_seq_init(&seq, model_cache);
	while ((slot = hash_seq_search(&seq)) != NULL)
		if (slot->relid == relid)
			cache_stale = true;
}

/*
 * Forget every cached model.  A model may still be in use by a caller
 * (a trigger of the table running a pattern inside another), so its memory
 * goes with the transaction, not now.
 */
static void
flush_cache(void)
{
	HASH_SEQ_STATUS seq;
	ModelSlot  *slot;

	hash_seq_init(&seq, model_cache);
	while ((slot = hash_seq_search(&seq)) != NULL)
	{
		if (slot->model)
			MemoryContextSetParent(slot->model->cxt, TopTransactionContext);
	}
	hash_destroy(model_cache);
	model_cache = NULL;
	cache_stale = false;
}

static Oid
models_owner(void)
{
	return catalog_relation_owner(models_relid);
}

static void
find_relids(void)
{
	Oid			nsp = get_namespace_oid("stdesign", false);
	static bool registered = false;

	models_relid = get_relname_relid("models", nsp);
	tables_relid = get_relname_relid("tables", nsp);
	if (!OidIsValid(models_relid))
		st_internal_error("table stdesign.models is missing: run ALTER EXTENSION stdesign UPDATE");
	if (!registered)
	{
		st_relcache_callback(model_inval, (Datum) 0);
		registered = true;
	}
}

/* The stored document of table name, read as the catalog's owner, or NULL. */
static Jsonb *
load_document(const char *name)
{
	Oid			types[1] = {TEXTOID};
	Datum		args[1];
	Oid			save_userid;
	int			save_sec_context;
	Jsonb	   *doc = NULL;
	MemoryContext caller = CurrentMemoryContext;

	args[0] = CStringGetTextDatum(name);
	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(models_owner(), save_sec_context |
						   SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	SPI_connect();
	if (SPI_execute_with_args("SELECT model FROM stdesign.models"
							  " WHERE table_name OPERATOR(pg_catalog.=) $1",
							  1, types, args, NULL, true, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.models");
	if (SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
		{
			MemoryContext old = MemoryContextSwitchTo(caller);

			doc = DatumGetJsonbPCopy(d);
			MemoryContextSwitchTo(old);
		}
	}
	SPI_finish();
	SetUserIdAndSecContext(save_userid, save_sec_context);
	return doc;
}

StudioModel *
studio_model_get(StTable *t)
{
	ModelSlot  *slot;
	bool		found;

	if (!OidIsValid(models_relid))
		find_relids();
	if (cache_stale && model_cache)
		flush_cache();
	if (model_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = ST_TABLE_NAME_MAX + 1;
		ctl.entrysize = sizeof(ModelSlot);
		ctl.hcxt = CacheMemoryContext;
		model_cache = hash_create("stdesign models", 16, &ctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	}
	slot = hash_search(model_cache, t->name, HASH_FIND, &found);
	if (found && slot->relid == t->relid)
		return slot->model;

	{
		Jsonb	   *doc = load_document(t->name);
		StudioModel *m = NULL;

		if (doc)
		{
			MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "stdesign model",
													  ALLOCSET_SMALL_SIZES);
			MemoryContext old = MemoryContextSwitchTo(cxt);

			m = studio_model_parse(t, doc);
			m->cxt = cxt;
			MemoryContextSwitchTo(old);
			MemoryContextSetParent(cxt, CacheMemoryContext);
		}
		/* an invalidation while loading leaves the cache to be flushed */
		if (model_cache == NULL || cache_stale)
			return m;
		slot = hash_search(model_cache, t->name, HASH_ENTER, &found);
		if (found && slot->model)
			MemoryContextSetParent(slot->model->cxt, TopTransactionContext);
		slot->relid = t->relid;
		slot->model = m;
		return m;
	}
}

void
studio_check_select(StTable *t)
{
	AclResult	res = pg_class_aclcheck(t->relid, GetUserId(), ACL_SELECT);

	if (res != ACLCHECK_OK)
		aclcheck_error(res, OBJECT_TABLE, t->relname);
}

/* ---------- SQL ---------- */

static char *
arg_text(FunctionCallInfo fcinfo, int n)
{
	if (PG_NARGS() <= n || PG_ARGISNULL(n))
		return NULL;
	return text_to_cstring(PG_GETARG_TEXT_PP(n));
}

/*
 * st_set_model(table_name, model): validate and store (NULL removes the
 * model).  Only the owner of the table's relation may.
 */
PG_FUNCTION_INFO_V1(st_set_model);
Datum
st_set_model(PG_FUNCTION_ARGS)
{
	char	   *name = arg_text(fcinfo, 0);
	StTable    *t;
	Jsonb	   *doc = PG_ARGISNULL(1) ? NULL : PG_GETARG_JSONB_P(1);
	Oid			types[3] = {TEXTOID, JSONBOID, TEXTOID};
	Datum		args[3];

	if (name == NULL)
		st_validation_null("table_name");
	t = catalog_lookup(name, false);
	catalog_check_owner(t);
	if (doc)
		(void) studio_model_parse(t, doc);
	if (!OidIsValid(models_relid))
		find_relids();

	args[0] = CStringGetTextDatum(t->name);
	args[1] = doc ? JsonbPGetDatum(doc) : (Datum) 0;
	args[2] = CStringGetTextDatum(GetUserNameFromId(GetUserId(), false));
	/* as the catalog's owner, as every catalog write (docs/security.md) */
	if (doc)
		(void) catalog_write("INSERT INTO stdesign.models AS m (table_name, model, updated_by)"
							 " VALUES ($1, $2, $3)"
							 " ON CONFLICT (table_name) DO UPDATE SET model = EXCLUDED.model,"
							 " updated_at = pg_catalog.now(), updated_by = EXCLUDED.updated_by",
							 3, types, args, NULL);
	else
		(void) catalog_write("DELETE FROM stdesign.models WHERE table_name OPERATOR(pg_catalog.=) $1",
							 1, types, args, NULL);
	CacheInvalidateRelcacheByRelid(models_relid);
	if (doc == NULL)
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(doc);
}

/* st_get_model(table_name): the stored model, or NULL; needs SELECT on the table. */
PG_FUNCTION_INFO_V1(st_get_model);
Datum
st_get_model(PG_FUNCTION_ARGS)
{
	char	   *name = arg_text(fcinfo, 0);
	StTable    *t;
	Jsonb	   *doc;

	if (name == NULL)
		st_validation_null("table_name");
	t = catalog_lookup(name, false);
	studio_check_select(t);
	if (!OidIsValid(models_relid))
		find_relids();
	doc = load_document(t->name);
	if (doc == NULL)
		PG_RETURN_NULL();
	PG_RETURN_JSONB_P(doc);
}
