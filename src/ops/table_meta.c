/*-------------------------------------------------------------------------
 *
 * table_meta.c
 *		What DynamoDB keeps about a table besides its keys and indexes: its
 *		settings (DeletionProtectionEnabled, point-in-time recovery), kept in
 *		the stored definition, and its tags, kept in stdesign.tags.
 *
 * Every change locks the table's relation with ShareUpdateExclusiveLock
 * first (catalog_lookup_locked): it conflicts with itself and with
 * DeleteTable, not with reads and writes of items, so two TagResources of
 * one table count its tags one after the other, and a table being deleted
 * is waited for and then not found, never a foreign-key error.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"

#include "catalog/st_catalog.h"
#include "item/av_jsonb.h"
#include "storage/st_storage.h"
#include "table_admin.h"

/* DynamoDB's limits on tags (Tagging restrictions, DynamoDB developer guide). */
#define ST_MAX_TAGS 50
#define ST_TAG_KEY_MAX 128
#define ST_TAG_VALUE_MAX 256

/* Point-in-time recovery keeps 1 to 35 days, 35 unless told (UpdateContinuousBackups). */
#define ST_PITR_DAYS_DEFAULT 35

/*
 * One catalog statement with text/jsonb arguments, run as the catalog's
 * owner once the caller was found to own the table (docs/security.md);
 * returns SPI_processed.
 */
static uint64
meta_exec(const char *sql, int nargs, Oid *types, Datum *args)
{
	return catalog_write(sql, nargs, types, args, NULL);
}

/* ---------- settings ---------- */

void
ops_table_set_option(const char *name, const char *key, const Av *value)
{
	StTable    *t = catalog_lookup_locked(name, false, ShareUpdateExclusiveLock);
	Oid			types[3] = {TEXTOID, TEXTOID, JSONBOID};
	Datum		args[3];

	catalog_check_owner(t);
	args[0] = CStringGetTextDatum(t->name);
	args[1] = CStringGetTextDatum(key);
	args[2] = JsonbPGetDatum(av_value_to_jsonb(value, false));
	meta_exec("UPDATE stdesign.tables SET definition = definition OPERATOR(pg_catalog.||)"
			  " pg_catalog.jsonb_build_object($2, $3) WHERE table_name OPERATOR(pg_catalog.=) $1",
			  3, types, args);
}

Av *
ops_table_option(const char *name, const char *key)
{
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		args[2];
	MemoryContext caller = CurrentMemoryContext;
	Av		   *v = NULL;

	args[0] = CStringGetTextDatum(name);
	args[1] = CStringGetTextDatum(key);
	SPI_connect();
	/* wrapped in an object: the setting may be a scalar */
	if (SPI_execute_with_args("SELECT pg_catalog.jsonb_build_object('v', definition OPERATOR(pg_catalog.->) $2)"
							  " FROM stdesign.tables WHERE table_name OPERATOR(pg_catalog.=) $1",
							  2, types, args, NULL, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.tables");
	if (SPI_processed == 1)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);

		if (!isnull)
		{
			MemoryContext spi = MemoryContextSwitchTo(caller);
			Av		   *m = av_map_from_jsonb(DatumGetJsonbP(d), false, key);

			v = (Av *) av_map_get(m, "v", 1);
			if (v && v->type == AV_NULL)
				v = NULL;
			MemoryContextSwitchTo(spi);
		}
	}
	SPI_finish();
	return v;
}

/* ---------- tags ---------- */

/*
 * stdesign.tags comes with 0.2.0: between installing the library and ALTER
 * EXTENSION stdesign UPDATE a table has no tags and cannot get any.
 */
static bool
tags_catalog_exists(void)
{
	Oid			nsp = get_namespace_oid("stdesign", true);

	return OidIsValid(nsp) && OidIsValid(get_relname_relid("tags", nsp));
}

/* One code point of UTF-8 text (which jsonb's strings are); *len its bytes. */
static uint32
next_code_point(const unsigned char *c, int *len)
{
	*len = 1;
	if (c[0] < 0x80)
		return c[0];
	if ((c[0] & 0xE0) == 0xC0 && c[1])
	{
		*len = 2;
		return ((c[0] & 0x1F) << 6) | (c[1] & 0x3F);
	}
	if ((c[0] & 0xF0) == 0xE0 && c[1] && c[2])
	{
		*len = 3;
		return ((c[0] & 0x0F) << 12) | ((c[1] & 0x3F) << 6) | (c[2] & 0x3F);
	}
	if ((c[0] & 0xF8) == 0xF0 && c[1] && c[2] && c[3])
	{
		*len = 4;
		return ((c[0] & 0x07) << 18) | ((c[1] & 0x3F) << 12) | ((c[2] & 0x3F) << 6) | (c[3] & 0x3F);
	}
	return 0xFFFD;
}

/*
 * The characters DynamoDB allows in tag keys and values: letters, digits
 * and white space of any script, and + - = . _ : / @ (Tagging restrictions,
 * DynamoDB developer guide; DynamoDB takes Cyrillic, CJK, accented letters,
 * no-break and ideographic spaces, and refuses emoji and other
 * punctuation).  ASCII and Latin-1 are checked exactly; beyond them the
 * blocks of symbols (arrows, dingbats, emoji and the like) are refused and
 * everything else is taken for a letter, digit or space, Postgres having no
 * Unicode character classes to ask.
 */
static bool
tag_char_ok(uint32 c)
{
	if (c < 0x80)
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			strchr(" \t\n\r+-=._:/@", (int) c) != NULL;
	if (c < 0xC0)				/* Latin-1 punctuation and signs; its letters, digits, NBSP */
		return c == 0xA0 || c == 0xAA || c == 0xB2 || c == 0xB3 || c == 0xB5 ||
			c == 0xB9 || c == 0xBA || (c >= 0xBC && c <= 0xBE);
	if (c == 0xD7 || c == 0xF7)	/* multiplication and division signs */
		return false;
	if ((c >= 0x2010 && c <= 0x2027) || (c >= 0x2030 && c <= 0x205E) ||	/* punctuation */
		(c >= 0x20A0 && c <= 0x20CF) ||	/* currency */
		(c >= 0x2190 && c <= 0x2BFF) ||	/* arrows, math, technical, shapes, dingbats */
		(c >= 0x3001 && c <= 0x3003) || (c >= 0x3008 && c <= 0x3011) ||	/* CJK punctuation */
		(c >= 0xFE10 && c <= 0xFE6F) || (c >= 0xFF01 && c <= 0xFF0F) ||	/* forms, fullwidth */
		(c >= 0x1F000 && c <= 0x1FAFF) ||	/* emoji and pictographs */
		c == 0xFFFD)
		return false;
	return true;
}

static bool
tag_text_ok(const char *s)
{
	for (const unsigned char *c = (const unsigned char *) s; *c;)
	{
		int			len;

		if (!tag_char_ok(next_code_point(c, &len)))
			return false;
		c += len;
	}
	return true;
}

/* A tag's Key or Value, or NULL when absent (a non-string is the request's error). */
static const char *
tag_member(const Av *tag, const char *field)
{
	const Av   *v = tag->type == AV_M ? av_map_get(tag, field, strlen(field)) : NULL;

	if (v == NULL || v->type == AV_NULL)
		return NULL;
	if (v->type != AV_S)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for %s: expected a string", field);
	return v->str;
}

/*
 * A tag key by DynamoDB's rules and in its words: 1 to 128 characters of
 * the allowed ones, not starting with aws: (AWS's own tags; any case).
 */
static void
check_tag_key(const char *key)
{
	if (key == NULL)
		st_error(ST_ERR_VALIDATION, "The Tag Key provided is invalid, Key: null");
	if (key[0] == '\0' || av_utf16_length(key, strlen(key)) > ST_TAG_KEY_MAX || !tag_text_ok(key))
		st_error(ST_ERR_VALIDATION, "The Tag Key provided is invalid, Key: %s", key);
}

void
ops_tags_check(const Av *tags)
{
	const char **keys;
	int			dup;

	if (tags->n == 0)
		st_error(ST_ERR_VALIDATION, "Atleast one Tag needs to be provided as Input.");
	keys = palloc(sizeof(char *) * tags->n);
	for (int i = 0; i < tags->n; i++)
	{
		const char *key = tag_member(tags->items[i], "Key");
		const char *value = tag_member(tags->items[i], "Value");

		check_tag_key(key);
		if (pg_strncasecmp(key, "aws:", 4) == 0)
			st_error(ST_ERR_VALIDATION, "Tag Key cannot be prefixed with aws:, Key: %s", key);
		if (value == NULL)
			st_error(ST_ERR_VALIDATION, "The Tag Value provided is invalid, Value: null");
		if (av_utf16_length(value, strlen(value)) > ST_TAG_VALUE_MAX || !tag_text_ok(value))
			st_error(ST_ERR_VALIDATION, "The Tag Value provided is invalid, Value: %s", value);
		keys[i] = key;
	}
	/* one tag per key in a request (sorted, not pairwise) */
	dup = st_first_duplicate(keys, tags->n);
	if (dup >= 0)
		st_error(ST_ERR_VALIDATION,
				 "Duplicate Tag Keys provided as input: Duplicate Tag Key found %s", keys[dup]);
	if (tags->n > ST_MAX_TAGS)
		st_error(ST_ERR_VALIDATION, "Number of Tags exceed the current limit for the provided ResourceArn");
}

void
ops_tag_keys_check(const Av *keys)
{
	if (keys->n == 0)
		st_error(ST_ERR_VALIDATION, "Atleast one Tag Key needs to be provided as Input.");
	for (int i = 0; i < keys->n; i++)
	{
		if (keys->items[i]->type != AV_S && keys->items[i]->type != AV_NULL)
			st_error(ST_ERR_SERIALIZATION, "Unexpected value type for TagKeys: expected a string");
		check_tag_key(keys->items[i]->type == AV_S ? keys->items[i]->str : NULL);
	}
	/* DynamoDB counts the keys of an UntagResource against the limit too */
	if (keys->n > ST_MAX_TAGS)
		st_error(ST_ERR_VALIDATION, "Number of Tags exceed the current limit for the provided ResourceArn");
}

void
ops_tags_add(const char *name, const Av *tags)
{
	StTable    *t;
	Oid			types[3] = {TEXTOID, TEXTOID, TEXTOID};
	Datum		args[3];
	uint64		count;

	ops_tags_check(tags);
	t = catalog_lookup_locked(name, false, ShareUpdateExclusiveLock);
	catalog_check_owner(t);
	if (!tags_catalog_exists())
		st_error_hint(ST_ERR_VALIDATION, "Run ALTER EXTENSION stdesign UPDATE.",
					  "Tags need the catalog of stdesign 0.2.0");
	args[0] = CStringGetTextDatum(t->name);
	for (int i = 0; i < tags->n; i++)
	{
		args[1] = CStringGetTextDatum(av_map_get(tags->items[i], "Key", 3)->str);
		args[2] = CStringGetTextDatum(av_map_get(tags->items[i], "Value", 5)->str);
		/* a key tagged again takes the new value, as DynamoDB documents */
		meta_exec("INSERT INTO stdesign.tags (table_name, tag_key, tag_value) VALUES ($1, $2, $3)"
				  " ON CONFLICT (table_name, tag_key) DO UPDATE SET tag_value = EXCLUDED.tag_value",
				  3, types, args);
	}
	/* read as the rows were written: stdesign.tags is granted to nobody */
	count = meta_exec("SELECT FROM stdesign.tags WHERE table_name OPERATOR(pg_catalog.=) $1",
					  1, types, args);
	/* at most 50 per table, counted after the update */
	if (count > ST_MAX_TAGS)
		st_error(ST_ERR_VALIDATION, "Number of Tags exceed the current limit for the provided ResourceArn");
}

void
ops_tags_remove(const char *name, const Av *keys)
{
	StTable    *t;
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		args[2];

	ops_tag_keys_check(keys);
	t = catalog_lookup_locked(name, false, ShareUpdateExclusiveLock);
	catalog_check_owner(t);

	args[0] = CStringGetTextDatum(t->name);
	if (!tags_catalog_exists())
		return;
	for (int i = 0; i < keys->n; i++)
	{
		args[1] = CStringGetTextDatum(keys->items[i]->str);
		meta_exec("DELETE FROM stdesign.tags WHERE table_name OPERATOR(pg_catalog.=) $1"
				  " AND tag_key OPERATOR(pg_catalog.=) $2", 2, types, args);
	}
}

Av *
ops_tags_list(const char *name, const char *start_after, int limit, bool *more)
{
	StTable    *t = catalog_lookup(name, false);
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		args[2];
	char		nulls[2] = {' ', start_after ? ' ' : 'n'};
	MemoryContext caller = CurrentMemoryContext;
	Av		   *list = av_new(AV_L);
	CatalogAsOwner save;

	*more = false;
	/* a table's tags are for those who may read it; stdesign.tags is granted to nobody */
	storage_require_privilege(t, ACL_SELECT);
	if (!tags_catalog_exists())
		return list;
	args[0] = CStringGetTextDatum(t->name);
	args[1] = start_after ? CStringGetTextDatum(start_after) : (Datum) 0;
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT tag_key, tag_value FROM stdesign.tags"
							  " WHERE table_name OPERATOR(pg_catalog.=) $1"
							  " AND ($2 IS NULL OR tag_key OPERATOR(pg_catalog.>) $2)"
							  " ORDER BY tag_key",
							  2, types, args, nulls, false, limit > 0 ? limit + 1 : 0) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.tags");
	*more = limit > 0 && SPI_processed > (uint64) limit;
	for (uint64 i = 0; i < SPI_processed && (limit <= 0 || i < (uint64) limit); i++)
	{
		char	   *k = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1);
		char	   *v = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2);
		MemoryContext spi = MemoryContextSwitchTo(caller);
		Av		   *tag = av_new(AV_M);

		av_map_put_nocheck(tag, "Key", 3, av_new_str(AV_S, k, strlen(k)));
		av_map_put_nocheck(tag, "Value", 5, av_new_str(AV_S, v, strlen(v)));
		av_append(list, tag);
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	catalog_as_owner_end(&save);
	return list;
}

/* ---------- point-in-time recovery ---------- */

static Av  *
s_av(const char *s)
{
	return av_new_str(AV_S, s, strlen(s));
}

static Av  *
n_av(double v)
{
	char	   *s = psprintf("%.3f", v);

	return av_new_str(AV_N, s, strlen(s));
}

static double
now_epoch(void)
{
	return (double) (GetCurrentTimestamp() / 1000) / 1000.0 + 946684800.0;
}

/*
 * The ContinuousBackupsDescription: continuous backups are always ENABLED
 * for a DynamoDB table; point-in-time recovery as set, with its window
 * (from when it was enabled, at most RecoveryPeriodInDays back, to five
 * minutes ago, as DynamoDB describes it).
 */
Av *
ops_continuous_backups(const char *name)
{
	StTable    *t = catalog_lookup(name, false);
	Av		   *spec = ops_table_option(t->name, "PointInTimeRecoverySpecification");
	const Av   *enabled = spec && spec->type == AV_M ? av_map_get(spec, "PointInTimeRecoveryEnabled", 26) : NULL;
	Av		   *d = av_new(AV_M);
	Av		   *pitr = av_new(AV_M);

	av_map_put_nocheck(d, "ContinuousBackupsStatus", 23, s_av("ENABLED"));
	if (enabled && enabled->type == AV_BOOL && enabled->boolval)
	{
		const Av   *days = av_map_get(spec, "RecoveryPeriodInDays", 20);
		const Av   *since = av_map_get(spec, "EnabledDateTime", 15);
		int			ndays = days && days->type == AV_N ? atoi(days->str) : ST_PITR_DAYS_DEFAULT;
		double		now = now_epoch();
		double		earliest = now - ndays * 86400.0;
		double		latest = now - 300.0;

		if (since && since->type == AV_N && strtod(since->str, NULL) > earliest)
			earliest = strtod(since->str, NULL);
		if (latest < earliest)
			latest = earliest;
		av_map_put_nocheck(pitr, "PointInTimeRecoveryStatus", 25, s_av("ENABLED"));
		av_map_put_nocheck(pitr, "RecoveryPeriodInDays", 20,
						   av_new_str(AV_N, psprintf("%d", ndays), strlen(psprintf("%d", ndays))));
		av_map_put_nocheck(pitr, "EarliestRestorableDateTime", 26, n_av(earliest));
		av_map_put_nocheck(pitr, "LatestRestorableDateTime", 24, n_av(latest));
	}
	else
		av_map_put_nocheck(pitr, "PointInTimeRecoveryStatus", 25, s_av("DISABLED"));
	av_map_put_nocheck(d, "PointInTimeRecoveryDescription", 30, pitr);
	return d;
}

void
ops_set_point_in_time_recovery(const char *name, bool enabled, int recovery_days)
{
	StTable    *t = catalog_lookup_locked(name, false, ShareUpdateExclusiveLock);
	Av		   *old = ops_table_option(t->name, "PointInTimeRecoverySpecification");
	const Av   *was = old && old->type == AV_M ? av_map_get(old, "PointInTimeRecoveryEnabled", 26) : NULL;
	const Av   *since = old && old->type == AV_M ? av_map_get(old, "EnabledDateTime", 15) : NULL;
	Av		   *spec = av_new(AV_M);

	av_map_put_nocheck(spec, "PointInTimeRecoveryEnabled", 26, av_new_bool(enabled));
	if (enabled)
	{
		char	   *days = psprintf("%d", recovery_days > 0 ? recovery_days : ST_PITR_DAYS_DEFAULT);

		av_map_put_nocheck(spec, "RecoveryPeriodInDays", 20, av_new_str(AV_N, days, strlen(days)));
		/* enabled again while enabled: the window keeps its start */
		if (was && was->type == AV_BOOL && was->boolval && since)
			av_map_put_nocheck(spec, "EnabledDateTime", 15, av_copy(since));
		else
			av_map_put_nocheck(spec, "EnabledDateTime", 15, n_av(now_epoch()));
	}
	ops_table_set_option(t->name, "PointInTimeRecoverySpecification", spec);
}
