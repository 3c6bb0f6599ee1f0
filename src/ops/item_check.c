/*-------------------------------------------------------------------------
 *
 * item_check.c
 *		Keys and items against a table's schema, with DynamoDB's messages.
 *
 * The messages are DynamoDB's own ("One or more parameter values were
 * invalid: Missing the key PK in the item", "The provided key element does
 * not match the schema", ...), so that code written against DynamoDB can
 * match on them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "item/number.h"
#include "lib/stringinfo.h"
#include "item_ops.h"

StReturnValues
ops_return_values(const char *text, const char *param)
{
	static const char *const names[] = {"NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"};

	if (text == NULL)
		return ST_RV_NONE;
	for (int i = 0; i < (int) lengthof(names); i++)
		if (strcmp(text, names[i]) == 0)
			return (StReturnValues) i;
	st_error(ST_ERR_VALIDATION,
			 "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]",
			 text, param);
}

Av *
ops_key_value_from_text(const char *text, AvType type, const char *keyname)
{
	int			len = strlen(text);

	if (type == AV_N)
	{
		char		buf[NUM_TEXT_MAX];
		StErr		err;
		int			n = st_num_canonical(text, len, buf, &err);

		if (n < 0)
			st_raise(&err);
		return av_new_str(AV_N, buf, n);
	}
	if (type == AV_B)
	{
		char	   *bytes;
		int			n;

		if (!av_base64_decode(text, len, &bytes, &n))
			st_error(ST_ERR_VALIDATION,
					 "One or more parameter values were invalid: the value of key %s is not valid base64",
					 keyname);
		return av_new_str(AV_B, bytes, n);
	}
	return av_new_str(AV_S, text, len);
}

/*
 * A key attribute's value: type, emptiness, length.  `index` names a
 * secondary index or is NULL.  Fills *err and returns false on a problem.
 */
static bool
key_value_ok(const Av *v, const StKeyDef *def, bool is_partition, const char *index, StErr *err)
{
	int			max = is_partition ? ST_PK_MAX_BYTES : ST_SK_MAX_BYTES;

	if (v->type != def->type)
	{
		if (index)
			return st_fail(err, ST_ERR_VALIDATION,
						   "One or more parameter values were invalid: Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s",
						   def->name, av_type_name(def->type), av_type_name(v->type), index);
		return st_fail(err, ST_ERR_VALIDATION,
					   "One or more parameter values were invalid: Type mismatch for key %s expected: %s actual: %s",
					   def->name, av_type_name(def->type), av_type_name(v->type));
	}
	if (v->len == 0 && v->type != AV_N)
	{
		const char *what = v->type == AV_S ? "string" : "binary";

		if (index)
			return st_fail(err, ST_ERR_VALIDATION,
						   "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s",
						   what, index, def->name);
		return st_fail(err, ST_ERR_VALIDATION,
					   "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty %s value. Key: %s",
					   what, def->name);
	}
	if (v->len > max)
	{
		if (index)
			return st_fail(err, ST_ERR_VALIDATION,
						   "One or more parameter values were invalid: Size limit exceeded for Index Key %s Actual Size: %d bytes Max Size: %d bytes IndexName: %s",
						   def->name, v->len, max, index);
		if (is_partition)
			return st_fail(err, ST_ERR_VALIDATION,
						   "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes");
		return st_fail(err, ST_ERR_VALIDATION,
					   "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes");
	}
	return true;
}

void
ops_check_key_value(const Av *v, const StKeyDef *def, bool is_partition, const char *index)
{
	StErr		err;

	if (!key_value_ok(v, def, is_partition, index, &err))
		st_raise(&err);
}

bool
ops_key_valid(StTable *t, const Av *keymap, StErr *err)
{
	int			nkeys = t->sk.name ? 2 : 1;
	Av		   *pk = av_map_get(keymap, t->pk.name, strlen(t->pk.name));
	Av		   *sk = t->sk.name ? av_map_get(keymap, t->sk.name, strlen(t->sk.name)) : NULL;

	if (keymap->n != nkeys || pk == NULL || (t->sk.name && sk == NULL) ||
		pk->type != t->pk.type || (sk && sk->type != t->sk.type))
		return st_fail(err, ST_ERR_VALIDATION, "The provided key element does not match the schema");
	return key_value_ok(pk, &t->pk, true, NULL, err) &&
		(sk == NULL || key_value_ok(sk, &t->sk, false, NULL, err));
}

void
ops_key_from_map(StTable *t, const Av *keymap, StKey *key)
{
	StErr		err;
	Av		   *sk;

	if (!ops_key_valid(t, keymap, &err))
		st_raise(&err);
	key->pk = storage_key_datum(av_map_get(keymap, t->pk.name, strlen(t->pk.name)));
	sk = t->sk.name ? av_map_get(keymap, t->sk.name, strlen(t->sk.name)) : NULL;
	if (sk)
		key->sk = storage_key_datum(sk);
}

Av *
ops_key_map_from_text(StTable *t, const char *pk, const char *sk)
{
	Av		   *map = av_new(AV_M);

	if (pk == NULL || (t->sk.name && sk == NULL) || (!t->sk.name && sk != NULL))
		st_error(ST_ERR_VALIDATION, "The provided key element does not match the schema");
	av_map_put_nocheck(map, t->pk.name, strlen(t->pk.name),
					   ops_key_value_from_text(pk, t->pk.type, t->pk.name));
	if (sk)
		av_map_put_nocheck(map, t->sk.name, strlen(t->sk.name),
						   ops_key_value_from_text(sk, t->sk.type, t->sk.name));
	return map;
}

bool
ops_validate_item(StTable *t, const Av *item, StErr *err)
{
	const StKeyDef *keys[2] = {&t->pk, &t->sk};

	/*
	 * "Attribute names must be at least one character long" (Developer
	 * Guide, "Supported data types and naming rules").
	 */
	for (int i = 0; i < item->n; i++)
	{
		if (item->members[i].name_len == 0)
			return st_fail(err, ST_ERR_VALIDATION, "Empty attribute name");
	}
	for (int k = 0; k < 2; k++)
	{
		Av		   *v;

		if (keys[k]->name == NULL)
			continue;
		v = av_map_get(item, keys[k]->name, strlen(keys[k]->name));
		if (v == NULL)
			return st_fail(err, ST_ERR_VALIDATION,
						   "One or more parameter values were invalid: Missing the key %s in the item",
						   keys[k]->name);
		if (!key_value_ok(v, keys[k], k == 0, NULL, err))
			return false;
	}
	for (int i = 0; i < t->nindexes; i++)
	{
		StIndex    *ix = &t->indexes[i];
		int			range_bytes = 0;
		bool		complete = true;

		/*
		 * Every key attribute the item has must have the index's type (a
		 * multi-attribute key's each of its own, DynamoDB Developer Guide,
		 * "Multi-attribute keys pattern"); an item without all of them is
		 * not in the index (sparse).
		 */
		for (int k = 0; k < ix->npk + ix->nsk; k++)
		{
			const StKeyDef *def = &ix->keys[k];
			Av		   *v = av_map_get(item, def->name, strlen(def->name));

			if (v == NULL)
			{
				complete = false;
				continue;
			}
			if (!key_value_ok(v, def, k < ix->npk, ix->name, err))
				return false;
			if (k >= ix->npk && v->type != AV_N)
				range_bytes += v->len;
		}
		/*
		 * The RANGE attributes of a multi-attribute key together: DynamoDB's
		 * sort-key limit is on the "Aggregated size of all range keys"
		 * (its message), and the index's btree entry has room for that.
		 */
		if (ix->multi && complete && range_bytes > ST_SK_MAX_BYTES)
			return st_fail(err, ST_ERR_VALIDATION,
						   "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of %d bytes IndexName: %s",
						   ST_SK_MAX_BYTES, ix->name);
	}
	return av_check_item_size(item, err);
}

void
ops_check_item(StTable *t, const Av *item)
{
	StErr		err;

	if (!ops_validate_item(t, item, &err))
		st_raise(&err);
}

/*
 * Append the key of an item (or key map) of t as bytes: for each key
 * attribute its type letter, its length and its bytes (numbers canonical).
 * Equal keys give equal bytes, and every writer of many items (transactions,
 * batches, st_put_all) orders its locks by these bytes, so they take the
 * locks of a table's items in one order.
 */
void
ops_append_key_bytes(StTable *t, const Av *item, StringInfo buf)
{
	const StKeyDef *keys[2] = {&t->pk, &t->sk};

	for (int k = 0; k < 2; k++)
	{
		const Av   *v;

		if (keys[k]->name == NULL)
			continue;
		v = av_map_get(item, keys[k]->name, strlen(keys[k]->name));
		appendBinaryStringInfo(buf, av_type_name(v->type), 1);
		appendBinaryStringInfo(buf, (const char *) &v->len, sizeof(int));
		appendBinaryStringInfo(buf, v->str, v->len);
	}
}

int
ops_key_bytes_cmp(const char *a, int alen, const char *b, int blen)
{
	int			c = memcmp(a, b, Min(alen, blen));

	return c != 0 ? c : (alen > blen) - (alen < blen);
}
