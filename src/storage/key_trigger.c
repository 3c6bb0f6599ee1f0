/*-------------------------------------------------------------------------
 *
 * key_trigger.c
 *		stdesign.set_keys(): the BEFORE INSERT OR UPDATE trigger that keeps a
 *		row's pk and sk columns equal to the key attributes of its item,
 *		whichever path wrote it (the st_* functions, plain INSERT, UPDATE,
 *		COPY).
 *
 * The key columns could be GENERATED columns; a trigger does the same job
 * for much less: a generated column's expression is read back from its
 * stored text and planned again each time a statement starts, which for
 * one-item statements (st_put) costs more than the write itself.
 *
 * Trigger arguments: pk name, pk type (S, N or B), then sk name and sk type
 * for a table with a sort key.  A row whose item lacks a key attribute, or
 * has it with the wrong type, is refused with DynamoDB's message.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "commands/trigger.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "common/st_common.h"
#include "item/av.h"
#include "key_trigger.h"

/* The key column's value of attribute `name` (type letter `type`) of item. */
static Datum
key_value(Jsonb *item, const char *name, const char *type)
{
	JsonbValue	vbuf;
	JsonbValue *attr;
	JsonbValue *scalar;
	JsonbValue	sbuf;

	attr = getKeyJsonValueFromContainer(&item->root, name, strlen(name), &vbuf);
	if (attr == NULL)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: Missing the key %s in the item", name);
	scalar = (attr->type == jbvBinary && JsonContainerIsObject(attr->val.binary.data))
		? getKeyJsonValueFromContainer(attr->val.binary.data, type, 1, &sbuf) : NULL;
	if (scalar == NULL || scalar->type != jbvString)
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: Type mismatch for key %s expected: %s",
				 name, type);
	switch (type[0])
	{
		case 'N':
			return DirectFunctionCall3(numeric_in,
									   CStringGetDatum(pnstrdup(scalar->val.string.val, scalar->val.string.len)),
									   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
		case 'B':
			{
				char	   *bytes;
				int			n;
				bytea	   *b;

				if (!av_base64_decode(scalar->val.string.val, scalar->val.string.len, &bytes, &n))
					st_error(ST_ERR_SERIALIZATION, "the binary key %s is not valid base64", name);
				b = palloc(VARHDRSZ + n);
				SET_VARSIZE(b, VARHDRSZ + n);
				memcpy(VARDATA(b), bytes, n);
				return PointerGetDatum(b);
			}
		default:
			return PointerGetDatum(cstring_to_text_with_len(scalar->val.string.val,
															scalar->val.string.len));
	}
}

void
storage_set_keys_values(const Trigger *trigger, Jsonb *item, Datum *values)
{
	int			nkeys = trigger->tgnargs / 2;

	for (int k = 0; k < nkeys; k++)
		values[k] = key_value(item, trigger->tgargs[2 * k], trigger->tgargs[2 * k + 1]);
}

PG_FUNCTION_INFO_V1(st_set_keys);
Datum
st_set_keys(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TupleDesc	desc;
	HeapTuple	tuple;
	int			nkeys;
	int			cols[2] = {1, 2};
	Datum		values[2];
	bool		nulls[2] = {false, false};
	bool		isnull;
	Datum		item;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BEFORE(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("stdesign.set_keys() must be a BEFORE ... FOR EACH ROW trigger")));
	if (td->tg_trigger->tgnargs != 2 && td->tg_trigger->tgnargs != 4)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("stdesign.set_keys() takes the key names and types")));

	desc = RelationGetDescr(td->tg_relation);
	tuple = TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? td->tg_newtuple : td->tg_trigtuple;
	nkeys = td->tg_trigger->tgnargs / 2;

	/* pk, [sk,] item */
	item = heap_getattr(tuple, nkeys + 1, desc, &isnull);
	if (isnull)
		st_validation_null("item");
	storage_set_keys_values(td->tg_trigger, DatumGetJsonbP(item), values);
	return PointerGetDatum(heap_modify_tuple_by_cols(tuple, desc, nkeys, cols, values, nulls));
}
