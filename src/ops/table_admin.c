/*-------------------------------------------------------------------------
 *
 * table_admin.c
 *		CreateTable, DescribeTable, DeleteTable, GSI add/drop.
 *
 * Validation follows DynamoDB's CreateTable: a KeySchema of one HASH and
 * an optional RANGE element, AttributeDefinitions that define exactly the
 * attributes some key schema uses, S/N/B types, BillingMode and
 * ProvisionedThroughput consistent with each other, up to 20 global and 5
 * local secondary indexes with distinct names and valid projections.
 * Fields this implementation has no use for (StreamSpecification, SSE,
 * Tags, ...) are accepted and kept in the catalog's copy of the request.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "catalog/st_catalog.h"
#include "item/av_jsonb.h"
#include "storage/st_storage.h"
#include "policy_ops.h"
#include "stream_ops.h"
#include "table_admin.h"

#define ST_MAX_GSI 20
#define ST_MAX_LSI 5
#define ST_MAX_NON_KEY_ATTRIBUTES 100

typedef struct IndexDef
{
	const char *name;
	bool		is_local;
	StKeyDef	pk;				/* the first HASH attribute */
	StKeyDef	sk;				/* the first RANGE attribute, if any */
	int			npk;			/* HASH attributes, then RANGE ones, in keys */
	int			nsk;
	StKeyDef	keys[ST_MAX_INDEX_KEYS];
	const char *projection;
	const Av   *non_key;		/* L of S, or NULL */
	const Av   *request;		/* the request's element, kept in the catalog */
} IndexDef;

/* ---------- reading request fields ---------- */

static void
missing(const char *path)
{
	st_validation_null("%s", path);
}

static void
wrong_type(const char *field, const char *expected)
{
	st_error(ST_ERR_SERIALIZATION, "Unexpected value type for %s: expected %s", field, expected);
}

/* A member of a request map that must be a string (NULL when absent and optional). */
static const char *
field_str(const Av *map, const char *field, const char *path, bool required)
{
	Av		   *v = av_map_get(map, field, strlen(field));

	if (v == NULL)
	{
		if (required)
			missing(path);
		return NULL;
	}
	if (v->type != AV_S)
		wrong_type(field, "a string");
	return v->str;
}

static const Av *
field_typed(const Av *map, const char *field, AvType type, const char *path, bool required)
{
	Av		   *v = av_map_get(map, field, strlen(field));

	if (v == NULL)
	{
		if (required)
			missing(path);
		return NULL;
	}
	if (v->type != type)
		wrong_type(field, type == AV_L ? "a list" : type == AV_M ? "an object" : "a number");
	return v;
}

static void
enum_error(const char *value, const char *path, const char *set)
{
	st_error(ST_ERR_VALIDATION,
			 "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy enum value set: [%s]",
			 value, path, set);
}

/* ---------- validation ---------- */

/*
 * One KeySchemaElement: its AttributeName and whether it is HASH (else
 * RANGE).
 */
static const char *
key_schema_element(const Av *el, const char *elpath, bool *hash)
{
	const char *name;
	const char *kt;

	if (el->type != AV_M)
		wrong_type("KeySchemaElement", "an object");
	name = field_str(el, "AttributeName", psprintf("%s.attributeName", elpath), true);
	kt = field_str(el, "KeyType", psprintf("%s.keyType", elpath), true);
	if (strcmp(kt, "HASH") != 0 && strcmp(kt, "RANGE") != 0)
		enum_error(kt, psprintf("%s.keyType", elpath), "HASH, RANGE");
	if (strlen(name) < 1 || strlen(name) > 255)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%s' at '%s.attributeName' failed to satisfy constraint: Member must have length between 1 and 255",
				 name, elpath);
	*hash = strcmp(kt, "HASH") == 0;
	return name;
}

/*
 * A GSI's KeySchema, which may have a multi-attribute key: 1 to 4 HASH
 * elements, then 0 to 4 RANGE elements (DynamoDB Developer Guide,
 * "Multi-attribute keys pattern": "partition and sort keys composed of up
 * to four attributes each"; botocore's service-2.json: "Global secondary
 * index supports up to 4 partition and up to 4 sort keys", KeySchema with
 * no maximum length).  The element rules DynamoDB documents without its
 * wording (all HASH before all RANGE, the counts, distinct names) get
 * messages in the words of its key-schema messages; one HASH and one
 * RANGE element of the same name keep its own.  Types come later, from
 * AttributeDefinitions.
 */
static void
parse_gsi_key_schema(const Av *ks, const char *path, IndexDef *ix)
{
	ix->npk = ix->nsk = 0;
	if (ks->n < 1)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '[]' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1",
				 path);
	if (ks->n > ST_MAX_INDEX_KEYS)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value at '%s' failed to satisfy constraint: Member must have length less than or equal to %d",
				 path, ST_MAX_INDEX_KEYS);
	for (int i = 0; i < ks->n; i++)
	{
		bool		hash;
		const char *name = key_schema_element(ks->items[i], psprintf("%s.%d.member", path, i + 1), &hash);

		if (i == 0 && !hash)
			st_error(ST_ERR_VALIDATION, "Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
		if (hash && ix->nsk > 0)
			st_error(ST_ERR_VALIDATION,
					 "Invalid KeySchema: A HASH KeySchemaElement follows a RANGE KeySchemaElement; every HASH key must come before the RANGE keys");
		if (hash && ix->npk == ST_MAX_INDEX_HASH_KEYS)
			st_error(ST_ERR_VALIDATION,
					 "Invalid KeySchema: More than %d HASH KeySchemaElements; a global secondary index supports up to %d partition key attributes",
					 ST_MAX_INDEX_HASH_KEYS, ST_MAX_INDEX_HASH_KEYS);
		if (!hash && ix->nsk == ST_MAX_INDEX_RANGE_KEYS)
			st_error(ST_ERR_VALIDATION,
					 "Invalid KeySchema: More than %d RANGE KeySchemaElements; a global secondary index supports up to %d sort key attributes",
					 ST_MAX_INDEX_RANGE_KEYS, ST_MAX_INDEX_RANGE_KEYS);
		for (int j = 0; j < i; j++)
		{
			if (strcmp(ix->keys[j].name, name) != 0)
				continue;
			if (ks->n == 2)
				st_error(ST_ERR_VALIDATION,
						 "Both the Hash Key and the Range Key element in the KeySchema have the same name");
			st_error(ST_ERR_VALIDATION,
					 "Invalid KeySchema: Some KeySchemaElements have the same name: %s", name);
		}
		ix->keys[i].name = pstrdup(name);
		ix->keys[i].type = AV_S;
		if (hash)
			ix->npk++;
		else
			ix->nsk++;
	}
	ix->pk = ix->keys[0];
	ix->sk.name = NULL;
	if (ix->nsk > 0)
		ix->sk = ix->keys[ix->npk];
}

/* KeySchema -> the HASH and RANGE attribute names (types filled in later). */
static void
parse_key_schema(const Av *ks, const char *path, StKeyDef *pk, StKeyDef *sk)
{
	pk->name = sk->name = NULL;
	if (ks->n < 1)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '[]' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1",
				 path);
	if (ks->n > 2)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value at '%s' failed to satisfy constraint: Member must have length less than or equal to 2",
				 path);
	for (int i = 0; i < ks->n; i++)
	{
		bool		hash;
		const char *name = key_schema_element(ks->items[i], psprintf("%s.%d.member", path, i + 1), &hash);

		if (i == 0 && !hash)
			st_error(ST_ERR_VALIDATION, "Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
		if (i == 1 && hash)
			st_error(ST_ERR_VALIDATION, "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type");
		if (i == 0)
			pk->name = pstrdup(name);
		else
			sk->name = pstrdup(name);
	}
	if (sk->name && strcmp(pk->name, sk->name) == 0)
		st_error(ST_ERR_VALIDATION,
				 "Both the Hash Key and the Range Key element in the KeySchema have the same name");
}

/* The type AttributeDefinitions gives an attribute, or -1. */
static int
defined_type(const Av *defs, const char *name)
{
	for (int i = 0; i < defs->n; i++)
	{
		const Av   *d = defs->items[i];
		Av		   *n = av_map_get(d, "AttributeName", 13);
		Av		   *t = av_map_get(d, "AttributeType", 13);

		if (n && t && n->type == AV_S && t->type == AV_S && strcmp(n->str, name) == 0)
			return av_type_from_name(t->str, t->len);
	}
	return -1;
}

static void
check_attribute_definitions(const Av *defs)
{
	const char **names = palloc(sizeof(char *) * Max(1, defs->n));
	int			dup;

	for (int i = 0; i < defs->n; i++)
	{
		const Av   *d = defs->items[i];
		const char *type;
		char		path[64];

		CHECK_FOR_INTERRUPTS();
		snprintf(path, sizeof(path), "attributeDefinitions.%d.member", i + 1);
		if (d->type != AV_M)
			wrong_type("AttributeDefinition", "an object");
		names[i] = field_str(d, "AttributeName", psprintf("%s.attributeName", path), true);
		type = field_str(d, "AttributeType", psprintf("%s.attributeType", path), true);
		if (strcmp(type, "S") != 0 && strcmp(type, "N") != 0 && strcmp(type, "B") != 0)
			enum_error(type, psprintf("%s.attributeType", path), "B, N, S");
	}
	/* the list is as long as the request makes it: sorted, not pairwise */
	dup = st_first_duplicate(names, defs->n);
	if (dup >= 0)
		st_error(ST_ERR_VALIDATION, "Attribute Name is duplicated: %s", names[dup]);
	pfree(names);
}

/* Give a key its type from AttributeDefinitions; collect undefined names. */
static void
type_key(StKeyDef *k, const Av *defs, StringInfo undefined)
{
	int			t;

	if (k->name == NULL)
		return;
	t = defined_type(defs, k->name);
	if (t < 0)
	{
		appendStringInfo(undefined, "%s%s", undefined->len ? ", " : "", k->name);
		return;
	}
	k->type = (AvType) t;
}

/* Type every key attribute of an index (its pk and sk too). */
static void
type_index_keys(IndexDef *ix, const Av *defs, StringInfo undefined)
{
	for (int i = 0; i < ix->npk + ix->nsk; i++)
		type_key(&ix->keys[i], defs, undefined);
	ix->pk = ix->keys[0];
	ix->sk.name = NULL;
	if (ix->nsk > 0)
		ix->sk = ix->keys[ix->npk];
}

static bool
index_multi(const IndexDef *ix)
{
	return ix->npk > 1 || ix->nsk > 1;
}

static const char *
attribute_names_list(const Av *defs)
{
	StringInfoData s;

	initStringInfo(&s);
	for (int i = 0; i < defs->n; i++)
	{
		Av		   *n = av_map_get(defs->items[i], "AttributeName", 13);

		appendStringInfo(&s, "%s%s", i ? ", " : "", n ? n->str : "?");
	}
	return s.data;
}

static void
check_projection(IndexDef *ix, const Av *el, const char *path)
{
	const Av   *proj = field_typed(el, "Projection", AV_M, psprintf("%s.projection", path), true);
	const char *pt = field_str(proj, "ProjectionType", NULL, false);

	if (pt == NULL)
		st_error(ST_ERR_VALIDATION, "One or more parameter values were invalid: Unknown ProjectionType: null");
	ix->projection = pt;
	if (strcmp(ix->projection, "ALL") != 0 && strcmp(ix->projection, "KEYS_ONLY") != 0 &&
		strcmp(ix->projection, "INCLUDE") != 0)
		enum_error(ix->projection, psprintf("%s.projection.projectionType", path),
				   "ALL, KEYS_ONLY, INCLUDE");
	ix->non_key = field_typed(proj, "NonKeyAttributes", AV_L, NULL, false);
	if (strcmp(ix->projection, "INCLUDE") == 0)
	{
		if (ix->non_key == NULL || ix->non_key->n == 0)
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified");
		if (ix->non_key->n > ST_MAX_NON_KEY_ATTRIBUTES)
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: The number of projected attributes in all indexes exceeds the limit of 100");
		for (int i = 0; i < ix->non_key->n; i++)
		{
			const Av   *a = ix->non_key->items[i];

			if (a->type != AV_S || a->len == 0)
				wrong_type("NonKeyAttributes", "a list of attribute names");
			for (int j = 0; j < i; j++)
				if (av_equal(a, ix->non_key->items[j]))
					st_error(ST_ERR_VALIDATION,
							 "One or more parameter values were invalid: Duplicate element in NonKeyAttributes: %s",
							 a->str);
		}
	}
	else if (ix->non_key && ix->non_key->n > 0)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: ProjectionType is %s, but NonKeyAttributes is specified",
				 ix->projection);
}

/* One GlobalSecondaryIndexes or LocalSecondaryIndexes element. */
static void
parse_index(IndexDef *ix, const Av *el, bool is_local, const char *path, bool provisioned,
			const StKeyDef *table_pk)
{
	const char *kind = is_local ? "localSecondaryIndexes" : "globalSecondaryIndexes";
	const Av   *ks;

	if (el->type != AV_M)
		wrong_type(kind, "a list of objects");
	memset(ix, 0, sizeof(*ix));
	ix->is_local = is_local;
	ix->request = el;
	ix->name = field_str(el, "IndexName", psprintf("%s.indexName", path), true);
	catalog_check_name(ix->name, psprintf("%s.indexName", path), ST_INDEX_NAME_MAX);
	ks = field_typed(el, "KeySchema", AV_L, psprintf("%s.keySchema", path), true);
	if (is_local)
	{
		parse_key_schema(ks, psprintf("%s.keySchema", path), &ix->pk, &ix->sk);
		ix->npk = 1;
		ix->nsk = ix->sk.name ? 1 : 0;
		ix->keys[0] = ix->pk;
		ix->keys[1] = ix->sk;
	}
	else
		parse_gsi_key_schema(ks, psprintf("%s.keySchema", path), ix);
	check_projection(ix, el, path);
	if (is_local)
	{
		if (ix->sk.name == NULL)
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: Index KeySchema does not have a range key for index: %s",
					 ix->name);
		if (strcmp(ix->pk.name, table_pk->name) != 0)
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: Index KeySchema does not have the same leading hash key as table KeySchema for index: %s. index hash key: %s, table hash key: %s",
					 ix->name, ix->pk.name, table_pk->name);
	}
	else
	{
		const Av   *pt = field_typed(el, "ProvisionedThroughput", AV_M, NULL, false);

		if (provisioned && pt == NULL)
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: ProvisionedThroughput must be specified for index: %s",
					 ix->name);
		if (!provisioned && pt != NULL)
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: ProvisionedThroughput should not be specified for index: %s when BillingMode is PAY_PER_REQUEST",
					 ix->name);
		ops_check_on_demand_throughput(av_map_get(el, "OnDemandThroughput", 18), !provisioned, ix->name);
		ops_check_warm_throughput(av_map_get(el, "WarmThroughput", 14));
	}
}

static void
check_throughput(const Av *pt, const char *path)
{
	const char *fields[2] = {"ReadCapacityUnits", "WriteCapacityUnits"};

	for (int i = 0; i < 2; i++)
	{
		const Av   *v = field_typed(pt, fields[i], AV_N, psprintf("%s.%s", path, i ? "writeCapacityUnits" : "readCapacityUnits"), true);

		if (v->str[0] == '-' || strcmp(v->str, "0") == 0 || strchr(v->str, '.'))
			st_error(ST_ERR_VALIDATION,
					 "1 validation error detected: Value '%s' at '%s.%s' failed to satisfy constraint: Member must have value greater than or equal to 1",
					 v->str, path, i ? "writeCapacityUnits" : "readCapacityUnits");
	}
	ops_check_throughput_bounds(pt);
}

/*
 * OnDemandThroughput and WarmThroughput (DynamoDB's API reference,
 * "OnDemandThroughput" and "WarmThroughput"; Developer Guide, "DynamoDB
 * maximum throughput for on-demand tables" and "Understanding DynamoDB warm
 * throughput").  Neither is enforced here: both are stored in the table's
 * or index's definition and described as DynamoDB describes them.
 *
 * OnDemandThroughput sets the most read and write request units an
 * on-demand table or index may use: "you must specify MaxReadRequestUnits,
 * MaxWriteRequestUnits, or both", each at least 1, or -1 to remove the
 * maximum; a table or index without one is described with -1.  It is for
 * PAY_PER_REQUEST tables ("You must use either OnDemandThroughput or
 * ProvisionedThroughput based on your table's capacity mode").
 *
 * WarmThroughput is what a table or index can serve at once: a new one
 * starts warm at 12,000 reads and 4,000 writes per second (the Developer
 * Guide's on-demand starting values); asking for more pre-warms it to what
 * was asked, asking for less leaves it as it is (warm throughput never goes
 * down).  Nothing needs warming here, so it is described ACTIVE at once.
 */
#define WARM_READ_DEFAULT 12000
#define WARM_WRITE_DEFAULT 4000

static Av  *s_value(const char *s);

/* A whole number's text as an int64: false when it is not one or is past a long. */
static bool
parse_long(const char *text, int64 *out)
{
	char	   *end;
	long long	n;

	errno = 0;
	n = strtoll(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0')
		return false;
	*out = (int64) n;
	return true;
}

/* A whole number member of a throughput structure, or absent (*given false). */
static int64
throughput_long(const Av *map, const char *field, bool *given)
{
	const Av   *v = av_map_get(map, field, strlen(field));
	int64		n;

	*given = v != NULL && v->type != AV_NULL;
	if (!*given)
		return 0;
	if (v->type != AV_N || strchr(v->str, '.'))
		wrong_type(field, "an integer");
	/* past a long (or in exponent form): the model's type, as DynamoDB answers it */
	if (!parse_long(v->str, &n))
		st_error(ST_ERR_SERIALIZATION, "NUMBER_VALUE cannot be converted to Long");
	return n;
}

void
ops_check_on_demand_throughput(const Av *odt, bool on_demand, const char *index_name)
{
	static const char *const fields[2] = {"MaxReadRequestUnits", "MaxWriteRequestUnits"};
	bool		any = false;

	if (odt == NULL)
		return;
	if (odt->type != AV_M)
		wrong_type("OnDemandThroughput", "an object");
	if (!on_demand)
	{
		if (index_name)
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: OnDemandThroughput should not be specified for index: %s when BillingMode is PROVISIONED",
					 index_name);
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: OnDemandThroughput can only be specified when BillingMode is PAY_PER_REQUEST");
	}
	for (int i = 0; i < 2; i++)
	{
		bool		given;
		int64		n = throughput_long(odt, fields[i], &given);

		any |= given;
		if (given && n < 1 && n != -1)
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: %s must be at least 1, or -1 for no maximum: " INT64_FORMAT,
					 fields[i], n);
	}
	if (!any)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: OnDemandThroughput must specify MaxReadRequestUnits, MaxWriteRequestUnits, or both");
}

void
ops_check_warm_throughput(const Av *wt)
{
	static const char *const fields[2] = {"ReadUnitsPerSecond", "WriteUnitsPerSecond"};
	bool		any = false;

	if (wt == NULL)
		return;
	if (wt->type != AV_M)
		wrong_type("WarmThroughput", "an object");
	for (int i = 0; i < 2; i++)
	{
		bool		given;
		int64		n = throughput_long(wt, fields[i], &given);

		any |= given;
		if (given && n < 1)
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: %s must be at least 1: " INT64_FORMAT,
					 fields[i], n);
	}
	if (!any)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: WarmThroughput must specify ReadUnitsPerSecond, WriteUnitsPerSecond, or both");
}

/* The number of a checked structure's member, or dflt when absent. */
static int64
stored_long(const Av *map, const char *field, int64 dflt)
{
	const Av   *v = map && map->type == AV_M ? av_map_get(map, field, strlen(field)) : NULL;
	int64		n;

	if (v == NULL || v->type != AV_N || !parse_long(v->str, &n))
		return dflt;
	return n;
}

static Av  *
long_value(int64 n)
{
	char	   *s = psprintf(INT64_FORMAT, n);

	return av_new_str(AV_N, s, strlen(s));
}

Av *
ops_merge_on_demand_throughput(const Av *stored, const Av *asked)
{
	Av		   *out = av_new(AV_M);

	av_map_put_nocheck(out, "MaxReadRequestUnits", 19,
					   long_value(stored_long(asked, "MaxReadRequestUnits",
											  stored_long(stored, "MaxReadRequestUnits", -1))));
	av_map_put_nocheck(out, "MaxWriteRequestUnits", 20,
					   long_value(stored_long(asked, "MaxWriteRequestUnits",
											  stored_long(stored, "MaxWriteRequestUnits", -1))));
	return out;
}

Av *
ops_merge_warm_throughput(const Av *stored, const Av *asked)
{
	Av		   *out = av_new(AV_M);
	int64		r = stored_long(stored, "ReadUnitsPerSecond", WARM_READ_DEFAULT);
	int64		w = stored_long(stored, "WriteUnitsPerSecond", WARM_WRITE_DEFAULT);

	r = Max(r, stored_long(asked, "ReadUnitsPerSecond", r));
	w = Max(w, stored_long(asked, "WriteUnitsPerSecond", w));
	av_map_put_nocheck(out, "ReadUnitsPerSecond", 18, long_value(Max(r, WARM_READ_DEFAULT)));
	av_map_put_nocheck(out, "WriteUnitsPerSecond", 19, long_value(Max(w, WARM_WRITE_DEFAULT)));
	return out;
}

/* WarmThroughput as DescribeTable shows it: the values, and ACTIVE. */
static Av  *
warm_value(const Av *definition)
{
	Av		   *out = ops_merge_warm_throughput(definition ? av_map_get(definition, "WarmThroughput", 14) : NULL, NULL);

	av_map_put_nocheck(out, "Status", 6, s_value("ACTIVE"));
	return out;
}

static Av  *
on_demand_value(const Av *definition)
{
	return ops_merge_on_demand_throughput(definition ? av_map_get(definition, "OnDemandThroughput", 18) : NULL, NULL);
}

/*
 * DynamoDB's upper bound on a throughput value, 10^12 units (observed:
 * "Given value 1000000000001 for ReadCapacityUnits is out of bounds",
 * ReadCapacityUnits checked first).  The account's per-table quota (40,000
 * units by default, adjustable) is not applied: throughput is never
 * enforced here.
 */
void
ops_check_throughput_bounds(const Av *pt)
{
	static const char *const fields[2] = {"ReadCapacityUnits", "WriteCapacityUnits"};

	for (int i = 0; i < 2; i++)
	{
		const Av   *v = av_map_get(pt, fields[i], strlen(fields[i]));
		size_t		len;

		/* whole positive numbers in canonical form, checked before */
		if (v == NULL || v->type != AV_N || v->str[0] == '-' || strchr(v->str, '.'))
			continue;
		len = strlen(v->str);
		if (len > 13 || (len == 13 && strcmp(v->str, "1000000000000") > 0))
			st_error(ST_ERR_VALIDATION, "Given value %s for %s is out of bounds", v->str, fields[i]);
	}
}

/* The request proper: CloudFormation Properties or a template are unwrapped. */
const Av *
ops_table_request_proper(const Av *request)
{
	const Av   *resources = av_map_get(request, "Resources", 9);
	const Av   *props = av_map_get(request, "Properties", 10);
	const Av   *found = NULL;

	if (resources && resources->type == AV_M)
	{
		for (int i = 0; i < resources->n; i++)
		{
			const Av   *r = resources->members[i].value;
			const Av   *type = av_map_get(r, "Type", 4);

			if (type && type->type == AV_S && strcmp(type->str, "AWS::DynamoDB::Table") == 0)
			{
				if (found)
					st_error_hint(ST_ERR_VALIDATION,
								  "Create the tables one at a time from their Properties.",
								  "The template has more than one AWS::DynamoDB::Table resource");
				found = av_map_get(r, "Properties", 10);
			}
		}
		if (found == NULL || found->type != AV_M)
			st_error(ST_ERR_VALIDATION, "The template has no AWS::DynamoDB::Table resource with Properties");
		return found;
	}
	if (props && props->type == AV_M && av_map_get(request, "Type", 4))
		return props;
	return request;
}

/* ---------- catalog rows ---------- */

static Datum
text_or_null(const char *s, char *null)
{
	*null = s ? ' ' : 'n';
	return s ? CStringGetTextDatum(s) : (Datum) 0;
}

/* A text[] literal of the NonKeyAttributes, or NULL. */
static char *
non_key_literal(const Av *non_key)
{
	StringInfoData nk;

	if (non_key == NULL)
		return NULL;
	initStringInfo(&nk);
	appendStringInfoChar(&nk, '{');
	for (int i = 0; i < non_key->n; i++)
	{
		appendStringInfo(&nk, "%s\"", i ? "," : "");
		for (const char *c = non_key->items[i]->str; *c; c++)
		{
			if (*c == '"' || *c == '\\')
				appendStringInfoChar(&nk, '\\');
			appendStringInfoChar(&nk, *c);
		}
		appendStringInfoChar(&nk, '"');
	}
	appendStringInfoChar(&nk, '}');
	return nk.data;
}

/* key_schema of stdesign.indexes: every key attribute with its type and role. */
static Jsonb *
key_schema_row(const IndexDef *ix)
{
	Av		   *ks = av_new(AV_L);

	for (int i = 0; i < ix->npk + ix->nsk; i++)
	{
		Av		   *el = av_new(AV_M);

		av_map_put_nocheck(el, "AttributeName", 13, av_new_str(AV_S, ix->keys[i].name, strlen(ix->keys[i].name)));
		av_map_put_nocheck(el, "AttributeType", 13, av_new_str(AV_S, av_type_name(ix->keys[i].type), 1));
		av_map_put_nocheck(el, "KeyType", 7, i < ix->npk ? av_new_str(AV_S, "HASH", 4) : av_new_str(AV_S, "RANGE", 5));
		av_append(ks, el);
	}
	return av_value_to_jsonb(ks, false);
}

static void
insert_index_row(const char *table, const IndexDef *ix, const char *pg_index)
{
	Oid			types[12] = {TEXTOID, TEXTOID, BOOLOID, TEXTOID, TEXTOID, TEXTOID,
	TEXTOID, TEXTOID, TEXTOID, JSONBOID, TEXTOID, JSONBOID};
	Datum		values[12];
	char		nulls[13] = "            ";
	bool		multi = index_multi(ix);

	values[0] = CStringGetTextDatum(table);
	values[1] = CStringGetTextDatum(ix->name);
	values[2] = BoolGetDatum(ix->is_local);
	values[3] = CStringGetTextDatum(ix->pk.name);
	values[4] = CStringGetTextDatum(av_type_name(ix->pk.type));
	values[5] = text_or_null(ix->sk.name, &nulls[5]);
	values[6] = text_or_null(ix->sk.name ? av_type_name(ix->sk.type) : NULL, &nulls[6]);
	values[7] = CStringGetTextDatum(ix->projection);
	values[8] = text_or_null(non_key_literal(ix->non_key), &nulls[8]);
	values[9] = JsonbPGetDatum(av_item_to_jsonb(ix->request, false));
	values[10] = CStringGetTextDatum(pg_index);
	values[11] = multi ? JsonbPGetDatum(key_schema_row(ix)) : (Datum) 0;

	/* as the catalog's owner: the caller's right was checked (docs/security.md) */
	if (catalog_write(multi
					  ? "INSERT INTO stdesign.indexes (table_name, index_name, is_local, pk_name, pk_type,"
					  " sk_name, sk_type, projection_type, non_key_attributes, definition, pg_index, key_schema)"
					  " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::pg_catalog.text[], $10, $11, $12)"
					  : "INSERT INTO stdesign.indexes (table_name, index_name, is_local, pk_name, pk_type,"
					  " sk_name, sk_type, projection_type, non_key_attributes, definition, pg_index)"
					  " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::pg_catalog.text[], $10, $11)",
					  multi ? 12 : 11, types, values, nulls) != 1)
		st_internal_error("could not record index %s", ix->name);
}

/*
 * The table's catalog row, first of all it creates: false when a table of
 * that name exists, or was created by a transaction that committed while
 * this one waited for it (ResourceInUseException for the caller).  A NULL
 * key_index is a 0.1.0 catalog's row, which has no such column.
 */
static bool
insert_table_row(const char *name, const char *relname, const char *key_index,
				 const StKeyDef *pk, const StKeyDef *sk, const Av *req)
{
	Oid			types[8] = {TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, JSONBOID, TEXTOID};
	Datum		values[8];
	char		nulls[9] = "        ";

	values[0] = CStringGetTextDatum(name);
	values[1] = CStringGetTextDatum(relname);
	values[2] = CStringGetTextDatum(pk->name);
	values[3] = CStringGetTextDatum(av_type_name(pk->type));
	values[4] = text_or_null(sk->name, &nulls[4]);
	values[5] = text_or_null(sk->name ? av_type_name(sk->type) : NULL, &nulls[5]);
	values[6] = JsonbPGetDatum(av_item_to_jsonb(req, false));
	values[7] = key_index ? CStringGetTextDatum(key_index) : (Datum) 0;

	return catalog_write(key_index == NULL
						 ? "INSERT INTO stdesign.tables (table_name, relation_name, pk_name, pk_type,"
						 " sk_name, sk_type, definition)"
						 " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (table_name) DO NOTHING"
						 : "INSERT INTO stdesign.tables (table_name, relation_name, pk_name, pk_type,"
						 " sk_name, sk_type, definition, key_index)"
						 " VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (table_name) DO NOTHING",
						 key_index == NULL ? 7 : 8, types, values, nulls) == 1;
}

/*
 * The name in the data schema of a readable form (see catalog_pg_name): the
 * form itself, or its hashed name when a relation already has that name;
 * NULL when both are taken.
 */
static char *
free_pg_name(const char *readable)
{
	Oid			nsp = get_namespace_oid(ST_DATA_SCHEMA, false);
	char	   *name = catalog_pg_name(readable, false);

	if (OidIsValid(get_relname_relid(name, nsp)))
		name = catalog_pg_name(readable, true);
	if (OidIsValid(get_relname_relid(name, nsp)))
		return NULL;
	return name;
}

static void
create_index(const char *table, const char *relname, const IndexDef *ix,
			 const StKeyDef *table_pk, const StKeyDef *table_sk)
{
	char	   *pg_index = free_pg_name(catalog_index_form(table, ix->name));

	if (pg_index == NULL)
		st_error(ST_ERR_VALIDATION, "Attempting to create an index which already exists");
	/* a 0.1.0 catalog (ALTER EXTENSION UPDATE not run yet) cannot record such a key */
	if (index_multi(ix) && catalog_sql_is_0_1_0())
		st_error_hint(ST_ERR_VALIDATION, "Run ALTER EXTENSION stdesign UPDATE.",
					  "A global secondary index with a multi-attribute key needs the extension's 0.2.0 catalog");

	storage_create_index(relname, pg_index, ix->npk, ix->nsk, ix->keys, table_pk, table_sk);
	insert_index_row(table, ix, pg_index);
}

/* ---------- CreateTable ---------- */

/* Every key attribute defined in AttributeDefinitions, every definition used. */
static void
check_definitions_match(const Av *defs, StKeyDef *pk, StKeyDef *sk, IndexDef *ixs, int nix)
{
	StringInfoData undefined;
	int			used = 0;

	initStringInfo(&undefined);
	type_key(pk, defs, &undefined);
	type_key(sk, defs, &undefined);
	for (int i = 0; i < nix; i++)
		type_index_keys(&ixs[i], defs, &undefined);
	if (undefined.len > 0)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]",
				 undefined.data, attribute_names_list(defs));
	for (int d = 0; d < defs->n; d++)
	{
		const char *dn = av_map_get(defs->items[d], "AttributeName", 13)->str;
		bool		is_used = strcmp(dn, pk->name) == 0 || (sk->name && strcmp(dn, sk->name) == 0);

		for (int i = 0; i < nix && !is_used; i++)
			for (int k = 0; k < ixs[i].npk + ixs[i].nsk && !is_used; k++)
				is_used = strcmp(dn, ixs[i].keys[k].name) == 0;
		if (is_used)
			used++;
	}
	if (used != defs->n)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions");
}

/* BillingMode and ProvisionedThroughput; returns whether the table is PROVISIONED. */
static bool
check_billing(const Av *req)
{
	const char *billing = field_str(req, "BillingMode", NULL, false);
	const Av   *pt = field_typed(req, "ProvisionedThroughput", AV_M, NULL, false);
	bool		provisioned;

	if (billing && strcmp(billing, "PROVISIONED") != 0 && strcmp(billing, "PAY_PER_REQUEST") != 0)
		enum_error(billing, "billingMode", "PROVISIONED, PAY_PER_REQUEST");
	provisioned = billing == NULL || strcmp(billing, "PROVISIONED") == 0;
	if (provisioned && pt == NULL)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED");
	if (!provisioned && pt != NULL)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST");
	if (pt)
		check_throughput(pt, "provisionedThroughput");
	return provisioned;
}

Av *
ops_table_create(const Av *request_in)
{
	const Av   *req = ops_table_request_proper(request_in);
	const char *name = field_str(req, "TableName", "tableName", true);
	const Av   *ks = field_typed(req, "KeySchema", AV_L, "keySchema", true);
	const Av   *defs = field_typed(req, "AttributeDefinitions", AV_L, "attributeDefinitions", true);
	const Av   *gsis = field_typed(req, "GlobalSecondaryIndexes", AV_L, NULL, false);
	const Av   *lsis = field_typed(req, "LocalSecondaryIndexes", AV_L, NULL, false);
	const Av   *tags = field_typed(req, "Tags", AV_L, NULL, false);
	const Av   *dp = av_map_get(req, "DeletionProtectionEnabled", 25);
	const Av   *rp = av_map_get(req, "ResourcePolicy", 14);
	char	   *policy = NULL;
	int			ngsi = gsis ? gsis->n : 0;
	int			nlsi = lsis ? lsis->n : 0;
	IndexDef   *ixs = palloc0(sizeof(IndexDef) * Max(1, ngsi + nlsi));
	bool		provisioned;
	StKeyDef	pk,
				sk;
	char	   *relname;
	char	   *key_index;
	bool		old_catalog;

	name = catalog_table_name(name, "tableName");
	if (dp && dp->type != AV_BOOL)
		wrong_type("DeletionProtectionEnabled", "a boolean");
	if (tags && tags->n > 0)
		ops_tags_check(tags);
	if (rp)
	{
		policy = ops_policy_text(rp);
		ops_policy_check(policy, strlen(policy));
	}
	check_attribute_definitions(defs);
	parse_key_schema(ks, "keySchema", &pk, &sk);
	provisioned = check_billing(req);
	ops_check_on_demand_throughput(av_map_get(req, "OnDemandThroughput", 18), !provisioned, NULL);
	ops_check_warm_throughput(av_map_get(req, "WarmThroughput", 14));

	if (ngsi > ST_MAX_GSI)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of %d", ST_MAX_GSI);
	if (nlsi > ST_MAX_LSI)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: LocalSecondaryIndex count exceeds the per-table limit of %d", ST_MAX_LSI);
	if (nlsi > 0 && sk.name == NULL)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex");
	for (int i = 0; i < ngsi; i++)
		parse_index(&ixs[i], gsis->items[i], false,
					psprintf("globalSecondaryIndexes.%d.member", i + 1), provisioned, &pk);
	for (int i = 0; i < nlsi; i++)
		parse_index(&ixs[ngsi + i], lsis->items[i], true,
					psprintf("localSecondaryIndexes.%d.member", i + 1), provisioned, &pk);
	for (int i = 0; i < ngsi + nlsi; i++)
		for (int j = 0; j < i; j++)
			if (strcmp(ixs[i].name, ixs[j].name) == 0)
				st_error(ST_ERR_VALIDATION,
						 "One or more parameter values were invalid: Duplicate index name: %s", ixs[i].name);
	check_definitions_match(defs, &pk, &sk, ixs, ngsi + nlsi);

	if (catalog_lookup(name, true) != NULL)
		st_error(ST_ERR_RESOURCE_IN_USE, "Table already exists: %s", name);
	/* CREATE TABLE's own right, checked before the catalog row is written */
	catalog_check_create();

	relname = free_pg_name(name);
	/* a 0.1.0 catalog has no key_index column: the key index is named as 0.1.0 named it */
	old_catalog = catalog_sql_is_0_1_0();
	key_index = old_catalog && relname
		? free_pg_name(psprintf("%.54s_key", relname))
		: free_pg_name(catalog_key_index_form(name));
	/* the policy is kept in its own catalog, not in the stored definition */
	if (rp)
	{
		Av		   *copy = av_copy(req);

		av_map_remove(copy, "ResourcePolicy", 14);
		req = copy;
	}
	if (relname == NULL || key_index == NULL ||
		!insert_table_row(name, relname, old_catalog ? NULL : key_index, &pk, &sk, req))
		st_error(ST_ERR_RESOURCE_IN_USE, "Table already exists: %s", name);
	storage_create_relation(relname, key_index, &pk, &sk);
	for (int i = 0; i < ngsi + nlsi; i++)
		create_index(name, relname, &ixs[i], &pk, &sk);
	catalog_invalidate_all();
	CommandCounterIncrement();
	/* CreateTable's Tags (CloudFormation's too): the table's first tags */
	if (tags && tags->n > 0)
		ops_tags_add(name, tags);
	/* CreateTable's ResourcePolicy: the table's first policy (policy_ops.c) */
	if (policy)
		(void) ops_policy_put(name, NULL, catalog_table_arn(name), policy, NULL);
	/* stdesign.citus_shard_count: CreateTable distributes (docs/citus.md) */
	if (st_citus_shard_count_guc > 0 && catalog_citus_present())
	{
		(void) storage_distribute(catalog_lookup(name, false), st_citus_shard_count_guc);
		CommandCounterIncrement();
	}
	return ops_table_describe(name);
}

/* ---------- DescribeTable ---------- */

/* DeletionProtectionEnabled of a stored definition (CreateTable's, or UpdateTable's since) */
static bool
deletion_protected(const Av *definition)
{
	const Av   *dp = definition ? av_map_get(definition, "DeletionProtectionEnabled", 25) : NULL;

	return dp && dp->type == AV_BOOL && dp->boolval;
}

static void
put(Av *map, const char *name, Av *value)
{
	av_map_put_nocheck(map, name, strlen(name), value);
}

static Av  *
s_value(const char *s)
{
	return av_new_str(AV_S, s, strlen(s));
}

static Av  *
n_value(const char *s)
{
	return av_new_str(AV_N, s, strlen(s));
}

/* An index's KeySchema: its HASH attributes, then its RANGE ones. */
static Av  *
index_key_schema_value(const StIndex *ix)
{
	Av		   *ks = av_new(AV_L);

	for (int i = 0; i < ix->npk + ix->nsk; i++)
	{
		Av		   *el = av_new(AV_M);

		av_map_put_nocheck(el, "AttributeName", 13, av_new_str(AV_S, ix->keys[i].name, strlen(ix->keys[i].name)));
		av_map_put_nocheck(el, "KeyType", 7, i < ix->npk ? av_new_str(AV_S, "HASH", 4) : av_new_str(AV_S, "RANGE", 5));
		av_append(ks, el);
	}
	return ks;
}

static Av  *
key_schema_value(const StKeyDef *pk, const StKeyDef *sk)
{
	Av		   *ks = av_new(AV_L);
	const StKeyDef *keys[2] = {pk, sk};

	for (int i = 0; i < 2; i++)
	{
		Av		   *el;

		if (keys[i]->name == NULL)
			continue;
		el = av_new(AV_M);
		put(el, "AttributeName", s_value(keys[i]->name));
		put(el, "KeyType", s_value(i == 0 ? "HASH" : "RANGE"));
		av_append(ks, el);
	}
	return ks;
}

/* Add an attribute definition unless one of that name is there. */
static void
add_definition(Av *defs, const StKeyDef *k)
{
	Av		   *el;

	if (k->name == NULL || defined_type(defs, k->name) >= 0)
		return;
	el = av_new(AV_M);
	put(el, "AttributeName", s_value(k->name));
	put(el, "AttributeType", s_value(av_type_name(k->type)));
	av_append(defs, el);
}

static Av  *
attribute_definitions_value(StTable *t)
{
	Av		   *defs = av_new(AV_L);

	add_definition(defs, &t->pk);
	add_definition(defs, &t->sk);
	for (int i = 0; i < t->nindexes; i++)
		for (int k = 0; k < t->indexes[i].npk + t->indexes[i].nsk; k++)
			add_definition(defs, &t->indexes[i].keys[k]);
	return defs;
}

static Av  *
throughput_value(const Av *definition)
{
	const Av   *pt = definition ? av_map_get(definition, "ProvisionedThroughput", 21) : NULL;
	Av		   *out = av_new(AV_M);
	const Av   *r = pt ? av_map_get(pt, "ReadCapacityUnits", 17) : NULL;
	const Av   *w = pt ? av_map_get(pt, "WriteCapacityUnits", 18) : NULL;

	put(out, "NumberOfDecreasesToday", n_value("0"));
	put(out, "ReadCapacityUnits", r && r->type == AV_N ? av_copy(r) : n_value("0"));
	put(out, "WriteCapacityUnits", w && w->type == AV_N ? av_copy(w) : n_value("0"));
	return out;
}

static Av  *
projection_value(const StIndex *ix)
{
	Av		   *p = av_new(AV_M);
	static const char *const names[] = {"ALL", "KEYS_ONLY", "INCLUDE"};

	put(p, "ProjectionType", s_value(names[ix->projection]));
	if (ix->projection == ST_PROJECT_INCLUDE)
	{
		Av		   *nk = av_new(AV_L);

		for (int i = 0; i < ix->n_non_key; i++)
			av_append(nk, s_value(ix->non_key_attributes[i]));
		put(p, "NonKeyAttributes", nk);
	}
	return p;
}

/* The stored request of a table, its creation time as epoch seconds, and its TableId. */
static Av  *
stored_definition(const char *name, char **created, char **table_id)
{
	Datum		arg = CStringGetTextDatum(name);
	Oid			type = TEXTOID;
	Av		   *def = NULL;
	MemoryContext caller = CurrentMemoryContext;

	SPI_connect();
	if (SPI_execute_with_args("SELECT definition,"
							  " pg_catalog.round(EXTRACT(epoch FROM created_at), 3)::pg_catalog.text,"
							  " pg_catalog.to_jsonb(t) OPERATOR(pg_catalog.->>) 'table_id'"
							  " FROM stdesign.tables t WHERE table_name OPERATOR(pg_catalog.=) $1",
							  1, &type, &arg, NULL, false, 1) != SPI_OK_SELECT || SPI_processed != 1)
		st_internal_error("table %s is missing from the catalog", name);
	{
		bool		isnull;
		Jsonb	   *jb = DatumGetJsonbP(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		char	   *id = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3);
		MemoryContext spi = MemoryContextSwitchTo(caller);

		def = av_map_from_jsonb(jb, false, "definition");
		*created = pstrdup(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2));

		/* NULL in a 0.1.0 catalog, until ALTER EXTENSION stdesign UPDATE */
		*table_id = id ? pstrdup(id) : NULL;
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	return def;
}

int			ops_describe_exact_pages = OPS_DESCRIBE_EXACT_PAGES_DEFAULT;

/*
 * Item counts and sizes of the table and each index: one pass over the
 * relation while it has at most stdesign.describe_exact_pages pages, else
 * a pass over a sample of about that many of its pages (TABLESAMPLE
 * SYSTEM, the same pages each time), scaled up.  DynamoDB's ItemCount,
 * TableSizeBytes and IndexSizeBytes are approximate too ("DynamoDB
 * updates this value approximately every six hours": DescribeTable, API
 * reference); an SDK's waiter or a studio page calling DescribeTable must
 * not read a table of millions of items each time.  A distributed table is
 * counted whole (its shards are the workers').
 */
static void
table_stats(StTable *t, char **counts, char **sizes)
{
	StringInfoData sql;
	MemoryContext caller = CurrentMemoryContext;
	double		scale = 1.0;
	char	   *sample = "";

	if (!t->distributed && ops_describe_exact_pages > 0)
	{
		Relation	rel = table_open(t->relid, AccessShareLock);
		BlockNumber pages = RelationGetNumberOfBlocks(rel);

		table_close(rel, AccessShareLock);
		if (pages > (BlockNumber) ops_describe_exact_pages)
		{
			double		percent = 100.0 * ops_describe_exact_pages / pages;

			scale = 100.0 / percent;
			sample = psprintf(" TABLESAMPLE SYSTEM (%.6f) REPEATABLE (0)", percent);
		}
	}

	initStringInfo(&sql);
	appendStringInfoString(&sql, "SELECT pg_catalog.count(*)::pg_catalog.text,"
						   " COALESCE(pg_catalog.sum(stdesign.item_size(item)), 0)::pg_catalog.text");
	for (int i = 0; i < t->nindexes; i++)
	{
		char	   *pred = storage_index_keys_predicate(t->indexes[i].npk, t->indexes[i].nsk,
														   t->indexes[i].keys);

		appendStringInfo(&sql, ", (pg_catalog.count(*) FILTER (WHERE %s))::pg_catalog.text,"
						 " COALESCE(pg_catalog.sum(stdesign.item_size(item)) FILTER (WHERE %s), 0)::pg_catalog.text",
						 pred, pred);
	}
	appendStringInfo(&sql, " FROM %s%s%s", t->distributed ? "" : "ONLY ", t->qualified, sample);
	SPI_connect();
	if (SPI_execute(sql.data, false, 0) != SPI_OK_SELECT || SPI_processed != 1)
		st_internal_error("could not count the items of %s", t->name);
	for (int i = 0; i <= t->nindexes; i++)
	{
		char	   *count = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2 * i + 1);
		char	   *size = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2 * i + 2);
		MemoryContext spi = MemoryContextSwitchTo(caller);

		if (scale != 1.0)
		{
			counts[i] = psprintf("%.0f", rint(strtod(count, NULL) * scale));
			sizes[i] = psprintf("%.0f", rint(strtod(size, NULL) * scale));
		}
		else
		{
			counts[i] = pstrdup(count);
			sizes[i] = pstrdup(size);
		}
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
}

/* The stored request element of each index of a table, by index name. */
static Av  *
index_definitions(const char *name)
{
	Datum		arg = CStringGetTextDatum(name);
	Oid			type = TEXTOID;
	Av		   *defs = av_new(AV_M);
	MemoryContext caller = CurrentMemoryContext;

	SPI_connect();
	if (SPI_execute_with_args("SELECT index_name, definition FROM stdesign.indexes"
							  " WHERE table_name OPERATOR(pg_catalog.=) $1",
							  1, &type, &arg, NULL, false, 0) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.indexes");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		char	   *ixname = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		Jsonb	   *jb = DatumGetJsonbP(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));
		MemoryContext spi = MemoryContextSwitchTo(caller);

		av_map_put_nocheck(defs, ixname, strlen(ixname), av_map_from_jsonb(jb, false, "definition"));
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	return defs;
}

static Av  *
index_description(StIndex *ix, const Av *definition, const char *arn,
				  const char *count, const char *size, bool on_demand)
{
	Av		   *d = av_new(AV_M);

	put(d, "IndexName", s_value(ix->name));
	put(d, "KeySchema", index_key_schema_value(ix));
	put(d, "Projection", projection_value(ix));
	if (!ix->is_local)
	{
		put(d, "IndexStatus", s_value("ACTIVE"));
		put(d, "ProvisionedThroughput", throughput_value(definition));
	}
	put(d, "IndexSizeBytes", n_value(size));
	put(d, "ItemCount", n_value(count));
	put(d, "IndexArn", s_value(psprintf("%s/index/%s", arn, ix->name)));
	if (!ix->is_local)
	{
		if (on_demand)
			put(d, "OnDemandThroughput", on_demand_value(definition));
		put(d, "WarmThroughput", warm_value(definition));
	}
	return d;
}

/* The TableDescription, with the item counts and sizes when `stats` (a pass over the items). */
static Av  *
describe(const char *name, bool stats)
{
	StTable    *t = catalog_lookup(name, false);
	char	   *created;
	char	   *table_id;
	Av		   *definition = stored_definition(t->name, &created, &table_id);
	Av		   *d = av_new(AV_M);
	char	  **counts = palloc(sizeof(char *) * (t->nindexes + 1));
	char	  **sizes = palloc(sizeof(char *) * (t->nindexes + 1));
	char	   *arn = catalog_table_arn(t->name);
	const Av   *billing = av_map_get(definition, "BillingMode", 11);
	Av		   *gsis = av_new(AV_L);
	Av		   *lsis = av_new(AV_L);
	Av		   *ixdefs = t->nindexes > 0 ? index_definitions(t->name) : NULL;
	bool		on_demand = billing && billing->type == AV_S && strcmp(billing->str, "PAY_PER_REQUEST") == 0;

	if (stats)
		table_stats(t, counts, sizes);
	else
		for (int i = 0; i <= t->nindexes; i++)
			counts[i] = sizes[i] = "0";
	put(d, "AttributeDefinitions", attribute_definitions_value(t));
	put(d, "TableName", s_value(t->name));
	put(d, "KeySchema", key_schema_value(&t->pk, &t->sk));
	put(d, "TableStatus", s_value("ACTIVE"));
	put(d, "CreationDateTime", n_value(created));
	put(d, "ProvisionedThroughput", throughput_value(definition));
	put(d, "TableSizeBytes", n_value(sizes[0]));
	put(d, "ItemCount", n_value(counts[0]));
	put(d, "TableArn", s_value(arn));
	if (table_id)
		put(d, "TableId", s_value(table_id));
	if (on_demand)
	{
		Av		   *bms = av_new(AV_M);

		put(bms, "BillingMode", s_value("PAY_PER_REQUEST"));
		put(bms, "LastUpdateToPayPerRequestDateTime", n_value(created));
		put(d, "BillingModeSummary", bms);
	}
	for (int i = 0; i < t->nindexes; i++)
	{
		StIndex    *ix = &t->indexes[i];

		av_append(ix->is_local ? lsis : gsis,
				  index_description(ix, av_map_get(ixdefs, ix->name, strlen(ix->name)),
									arn, counts[i + 1], sizes[i + 1], on_demand));
	}
	if (gsis->n > 0)
		put(d, "GlobalSecondaryIndexes", gsis);
	if (lsis->n > 0)
		put(d, "LocalSecondaryIndexes", lsis);
	put(d, "DeletionProtectionEnabled", av_new_bool(deletion_protected(definition)));
	/* a table RestoreTableFromBackup made keeps its RestoreSummary (backup_ops.c) */
	{
		const Av   *restore = av_map_get(definition, "RestoreSummary", 14);

		if (restore && restore->type == AV_M)
			put(d, "RestoreSummary", av_copy(restore));
	}
	if (on_demand)
		put(d, "OnDemandThroughput", on_demand_value(definition));
	put(d, "WarmThroughput", warm_value(definition));
	/* StreamSpecification, LatestStreamLabel, LatestStreamArn (stream_ops.c); not a backup's */
	if (stats)
		ops_stream_describe_table(t->name, d);
	return d;
}

Av *
ops_table_describe(const char *name)
{
	return describe(name, true);
}

Av *
ops_table_describe_definition(const char *name)
{
	return describe(name, false);
}

/* ---------- DeleteTable ---------- */

/*
 * DeleteTable's TableDescription, as DynamoDB answers it: the table's
 * identity, status DELETING, billing, throughput and size; no key schema,
 * attribute definitions, creation time or indexes.
 */
static Av  *
deleting_description(const Av *described)
{
	static const char *const kept[] = {
		"TableName", "TableId", "TableArn", "TableStatus", "BillingModeSummary",
		"ProvisionedThroughput", "TableSizeBytes", "ItemCount"
	};
	Av		   *d = av_new(AV_M);

	for (int i = 0; i < (int) lengthof(kept); i++)
	{
		const Av   *v = av_map_get(described, kept[i], strlen(kept[i]));

		if (v)
			put(d, kept[i], av_copy(v));
	}
	av_map_set(d, "TableStatus", 11, s_value("DELETING"));
	return d;
}

Av *
ops_table_drop(const char *name)
{
	StTable    *t = catalog_lookup_locked(name, false, AccessExclusiveLock);
	char	   *created;
	char	   *table_id;
	Av		   *d;
	bool		distributed = t->distributed;
	int			nest;
	char	   *relname = pstrdup(t->relname);
	Datum		arg;
	Oid			type = TEXTOID;
	Oid			types[2] = {TEXTOID, OIDOID};
	Datum		args[2];
	Oid			owner;

	catalog_check_owner(t);
	/* the table's own name from here on (`name` may be its ARN) */
	name = pstrdup(t->name);
	arg = CStringGetTextDatum(name);
	/* DeleteTable's answer for a table with deletion protection (DynamoDB's words) */
	if (deletion_protected(stored_definition(name, &created, &table_id)))
		st_error(ST_ERR_VALIDATION,
				 "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.");
	/* a distributed table: its description's count over one connection per worker (see storage.h) */
	nest = distributed ? storage_citus_sequential_begin() : -1;
	d = deleting_description(ops_table_describe(name));
	owner = catalog_relation_owner(t->relid);

	if (distributed)
	{
		storage_drop_distributed_relation(relname);
		storage_citus_sequential_end(nest);
	}
	else
		storage_drop_relation(relname);
	/*
	 * Its stream stays readable, as DynamoDB keeps it 24 hours after the
	 * table's deletion, by the role that owns the relation now: the owner
	 * of the enabling may have given the table away since, and must not
	 * read what was written after.
	 */
	args[0] = arg;
	args[1] = ObjectIdGetDatum(owner);
	(void) catalog_write("UPDATE stdesign.streams SET table_deleted_at = pg_catalog.now(),"
						 " table_owner = $2::pg_catalog.regrole, table_owner_name ="
						 " (SELECT r.rolname FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) $2)"
						 " WHERE table_name OPERATOR(pg_catalog.=) $1 AND table_deleted_at IS NULL",
						 2, types, args, NULL);
	ops_stream_table_deleted(name);
	if (catalog_write("DELETE FROM stdesign.tables WHERE table_name OPERATOR(pg_catalog.=) $1",
					  1, &type, &arg, NULL) != 1)
		st_internal_error("could not remove table %s from the catalog", name);
	if (distributed)
		storage_publish_catalog(name);
	catalog_invalidate_all();
	CommandCounterIncrement();
	return d;
}

/* ---------- GSIs ---------- */

/*
 * "Schema:[SchemaElement: key{name:S:HASH}, ...]", as DynamoDB prints a key
 * schema: keys[0..npk-1] HASH, the next nsk RANGE.
 */
static char *
schema_text(int npk, int nsk, const StKeyDef *keys)
{
	StringInfoData s;

	initStringInfo(&s);
	appendStringInfoString(&s, "Schema:[");
	for (int i = 0; i < npk + nsk; i++)
		appendStringInfo(&s, "%sSchemaElement: key{%s:%s:%s}", i ? ", " : "",
						 keys[i].name, av_type_name(keys[i].type), i < npk ? "HASH" : "RANGE");
	appendStringInfoChar(&s, ']');
	return s.data;
}

/*
 * A new index may not give an attribute that the table or another index
 * uses as a key a different type: DynamoDB insists on one type per key
 * attribute for every later write.
 */
static void
check_key_types_agree(StTable *t, const IndexDef *ix)
{
	for (int k = 0; k < ix->npk + ix->nsk; k++)
	{
		const StKeyDef *key = &ix->keys[k];
		char	   *existing = NULL;
		StKeyDef	tkeys[2] = {t->pk, t->sk};

		for (int j = 0; j < 2 && existing == NULL; j++)
			if (tkeys[j].name && strcmp(tkeys[j].name, key->name) == 0 && tkeys[j].type != key->type)
				existing = schema_text(1, t->sk.name ? 1 : 0, tkeys);
		for (int i = 0; i < t->nindexes && existing == NULL; i++)
		{
			const StIndex *o = &t->indexes[i];

			for (int j = 0; j < o->npk + o->nsk && existing == NULL; j++)
				if (strcmp(o->keys[j].name, key->name) == 0 && o->keys[j].type != key->type)
					existing = schema_text(o->npk, o->nsk, o->keys);
		}
		if (existing)
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. Existing schema: %s New schema: %s",
					 existing, schema_text(ix->npk, ix->nsk, ix->keys));
	}
}

Av *
ops_table_add_gsi(const char *name, const Av *gsi_in, const Av *attribute_definitions,
			  bool inherit_throughput, const char *path)
{
	StTable    *t = catalog_lookup_locked(name, false, ShareRowExclusiveLock);
	char	   *created;
	char	   *table_id;
	Av		   *definition = stored_definition(t->name, &created, &table_id);
	const Av   *billing = av_map_get(definition, "BillingMode", 11);
	bool		provisioned = !(billing && billing->type == AV_S &&
								strcmp(billing->str, "PAY_PER_REQUEST") == 0);
	IndexDef	ix;
	StringInfoData undefined;
	int			nglobal = 0;
	Av		   *gsi = av_copy(gsi_in);

	catalog_check_owner(t);
	if (provisioned && inherit_throughput && av_map_get(gsi, "ProvisionedThroughput", 21) == NULL)
	{
		const Av   *pt = av_map_get(definition, "ProvisionedThroughput", 21);

		if (pt)
			av_map_put_nocheck(gsi, "ProvisionedThroughput", 21, av_copy(pt));
	}
	check_attribute_definitions(attribute_definitions);
	parse_index(&ix, gsi, false, path, provisioned, &t->pk);
	initStringInfo(&undefined);
	type_index_keys(&ix, attribute_definitions, &undefined);
	if (undefined.len > 0)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [%s], AttributeDefinitions: [%s]",
				 undefined.data, attribute_names_list(attribute_definitions));
	for (int i = 0; i < t->nindexes; i++)
	{
		if (strcmp(t->indexes[i].name, ix.name) == 0)
			st_error(ST_ERR_VALIDATION, "Attempting to create an index which already exists");
		if (!t->indexes[i].is_local)
			nglobal++;
	}
	check_key_types_agree(t, &ix);
	if (nglobal >= ST_MAX_GSI)
		st_error(ST_ERR_LIMIT_EXCEEDED,
				 "Subscriber limit exceeded: The number of global secondary indexes of table %s would exceed the limit of %d",
				 t->name, ST_MAX_GSI);
	create_index(t->name, t->relname, &ix, &t->pk, &t->sk);
	CommandCounterIncrement();
	if (t->distributed)
		storage_publish_catalog(t->name);
	return ops_table_describe(name);
}

void
ops_table_drop_gsi(const char *name, const char *index_name)
{
	/*
	 * DROP INDEX needs AccessExclusiveLock: taken first, since holding a
	 * weaker one that blocks writers (as adding an index does) would
	 * deadlock with a writer that holds AccessShareLock and waits for it.
	 */
	StTable    *t = catalog_lookup_locked(name, false, AccessExclusiveLock);
	StIndex    *ix = catalog_find_index(t, index_name);
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		args[2];

	catalog_check_owner(t);
	if (ix == NULL || ix->is_local)
		st_error(ST_ERR_RESOURCE_NOT_FOUND,
				 "Requested resource not found: Index: %s not found in table %s", index_name, t->name);
	storage_drop_index(ix->pg_index);
	/* the table's own name: `name` may be its ARN */
	args[0] = CStringGetTextDatum(t->name);
	args[1] = CStringGetTextDatum(index_name);
	if (catalog_write("DELETE FROM stdesign.indexes WHERE table_name OPERATOR(pg_catalog.=) $1"
					  " AND index_name OPERATOR(pg_catalog.=) $2",
					  2, types, args, NULL) != 1)
		st_internal_error("could not remove index %s from the catalog", index_name);
	CommandCounterIncrement();
	if (t->distributed)
		storage_publish_catalog(t->name);
}

void
ops_table_publish(const char *name)
{
	StTable    *t = catalog_lookup(name, false);

	if (t->distributed)
		storage_publish_catalog(t->name);
}

/*
 * st_distribute_table: the table's relation distributed by pk over Citus's
 * workers (docs/citus.md).  Only with Citus installed; shard_count as
 * create_distributed_table takes it.
 */
int
ops_table_distribute(const char *name, int shard_count)
{
	StTable    *t = catalog_lookup(name, false);

	if (!catalog_citus_present())
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("st_distribute_table needs the Citus extension"),
				 errhint("CREATE EXTENSION citus on the coordinator and add the workers first.")));
	if (shard_count < 1 || shard_count > 64000)
		st_error(ST_ERR_VALIDATION, "shard_count must be between 1 and 64000, not %d", shard_count);
	return storage_distribute(t, shard_count);
}
