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
 * has it with the wrong type, is refused with DynamoDB's message, and so is
 * one holding a number DynamoDB does not have ("NaN", "Infinity"), which
 * could not be read back as JSON.
 *
 * The function reads the relation it fires on as a table's relation: it
 * takes item to be jsonb, and writes the key columns as text, numeric or
 * bytea.  Before the first row of a relation it checks that this is so: the
 * relation is in stdesign_data, registered in stdesign.tables with the key
 * of the trigger's arguments, and has the columns pk[, sk], item of their
 * types; anything else (someone's own table with the trigger attached) is
 * refused.  The verdict is kept per relation until a relcache invalidation
 * of it (any ALTER) says to look again.
 *
 * On a Citus worker the trigger fires on the shards of a distributed table
 * (named after the table, "_<shard id>" appended; see catalog/citus.c):
 * Citus has already routed the row by the pk it was given, so there the
 * trigger checks that pk and sk are the item's key and refuses the row
 * otherwise, and never rewrites them.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "commands/trigger.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "access/genam.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_collation_d.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "common/st_common.h"
#include "item/av.h"
#include "item/av_jsonb.h"
#include "item/number.h"
#include "key_trigger.h"
#include "catalog/st_layout.h"
#include "st_storage.h"
#include "common/st_inval.h"

/*
 * Relations (by OID) this backend found to be tables' relations, or shards
 * of them, until invalidated.
 */
typedef struct VerifiedRelation
{
	Oid			relid;
	bool		shard;			/* a Citus shard: the key columns are checked, not set */
} VerifiedRelation;

static HTAB *verified_relations = NULL;

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
			{
				StNum		n;
				StErr		err;

				/* numeric_in would take "NaN" and "Infinity" */
				if (!st_num_parse(scalar->val.string.val, scalar->val.string.len, &n, &err))
					st_raise(&err);
			}
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

	/*
	 * An item written by plain SQL may be any JSON: only a map has
	 * attributes (getKeyJsonValueFromContainer reads any other container
	 * as if it were one, past its end).
	 */
	if (!JB_ROOT_IS_OBJECT(item))
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: An item must be a map of attribute names to values");
	for (int k = 0; k < nkeys; k++)
		values[k] = key_value(item, trigger->tgargs[2 * k], trigger->tgargs[2 * k + 1]);
}

static void
verified_invalidate(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	VerifiedRelation *entry;

	if (verified_relations == NULL)
		return;
	if (OidIsValid(relid))
	{
		hash_search(verified_relations, &relid, HASH_REMOVE, NULL);
		return;
	}
	hash_seq_init(&status, verified_relations);
	while ((entry = hash_seq_search(&status)) != NULL)
		hash_search(verified_relations, &entry->relid, HASH_REMOVE, NULL);
}

/* A key definition from the trigger's arguments k*2, k*2+1; false when they are not one. */
static bool
trigger_key(const Trigger *trigger, int k, StKeyDef *key)
{
	const char *type = trigger->tgargs[2 * k + 1];

	key->name = trigger->tgargs[2 * k];
	if (strcmp(type, "S") != 0 && strcmp(type, "N") != 0 && strcmp(type, "B") != 0)
		return false;
	key->type = av_type_from_name(type, 1);
	return true;
}

static bool
same_text(Datum d, bool isnull, const char *s)
{
	if (isnull || s == NULL)
		return isnull && s == NULL;
	return strcmp(TextDatumGetCString(d), s) == 0;
}

/*
 * Is relname (a copy: reading the catalog can rebuild the relation's cache
 * entry, and free the name it held) registered in stdesign.tables with
 * this key?  Read as
 * Postgres reads its own catalogs (through the unique index on
 * relation_name), so that a role writing the relation with plain SQL needs
 * no privilege on stdesign.tables.
 */
static bool
registered_with_key(const char *relname, const StKeyDef *pk, const StKeyDef *sk)
{
	Oid			nsp = get_namespace_oid("stdesign", false);
	Oid			tables = get_relname_relid("tables", nsp);
	Oid			by_relname = get_relname_relid("tables_relation_name_key", nsp);
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;
	bool		match = false;

	if (!OidIsValid(tables) || !OidIsValid(by_relname))
		st_internal_error("the catalog table stdesign.tables or its index is missing");
	rel = table_open(tables, AccessShareLock);
	ScanKeyInit(&key, 2, BTEqualStrategyNumber, F_TEXTEQ, CStringGetTextDatum(relname));
	key.sk_collation = C_COLLATION_OID;
	scan = systable_beginscan(rel, by_relname, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		TupleDesc	desc = RelationGetDescr(rel);
		bool		isnull[4];
		Datum		d[4];

		/* relation_name is column 2; pk_name, pk_type, sk_name, sk_type 3 to 6 */
		for (int i = 0; i < 4; i++)
			d[i] = heap_getattr(tup, 3 + i, desc, &isnull[i]);
		match = same_text(d[0], isnull[0], pk->name) &&
			same_text(d[1], isnull[1], av_type_name(pk->type)) &&
			same_text(d[2], isnull[2], sk->name) &&
			same_text(d[3], isnull[3], sk->name ? av_type_name(sk->type) : NULL);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return match;
}

static void
refuse(Relation rel, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("stdesign.set_keys() refuses to write relation \"%s\"", RelationGetRelationName(rel)),
			 errdetail("%s", why),
			 errhint("The trigger belongs to the relations of stdesign's tables (st_create_table).")));
}

/*
 * Is the relation a table's relation with the trigger's key (see the
 * banner), or a Citus shard of one?  Raises if not; returns whether it is
 * a shard.
 */
static bool
verify_relation(Relation rel, const Trigger *trigger)
{
	Oid			relid = RelationGetRelid(rel);
	StKeyDef	pk = {0};
	StKeyDef	sk = {0};
	char	   *problem;
	char	   *relname;
	VerifiedRelation *entry;
	bool		shard = false;

	if (verified_relations &&
		(entry = hash_search(verified_relations, &relid, HASH_FIND, NULL)) != NULL)
		return entry->shard;
	if ((trigger->tgnargs != 2 && trigger->tgnargs != 4) || !trigger_key(trigger, 0, &pk) ||
		(trigger->tgnargs == 4 && !trigger_key(trigger, 1, &sk)))
		refuse(rel, "Its arguments must be the key's attribute names and types (S, N or B).");
	if (RelationGetNamespace(rel) != get_namespace_oid(ST_DATA_SCHEMA, true))
		refuse(rel, "It is not in schema " ST_DATA_SCHEMA ".");
	problem = catalog_columns_problem(RelationGetDescr(rel), &pk, &sk);
	if (problem)
		refuse(rel, psprintf("Its columns are not those of a table of its key: %s.", problem));
	relname = pstrdup(RelationGetRelationName(rel));
	if (!registered_with_key(relname, &pk, &sk))
	{
		/* a shard, on a Citus worker, is named after its table */
		char	   *parent_name = catalog_citus_shard_table_name(relid);

		if (parent_name == NULL || !registered_with_key(parent_name, &pk, &sk))
			refuse(rel, "It is not the relation of a table in stdesign.tables with the key of the trigger's arguments.");
		shard = true;
	}

	if (verified_relations == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(VerifiedRelation);
		ctl.hcxt = CacheMemoryContext;
		verified_relations = hash_create("stdesign set_keys relations", 16, &ctl,
										 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		st_relcache_callback(verified_invalidate, (Datum) 0);
	}
	entry = hash_search(verified_relations, &relid, HASH_ENTER, NULL);
	entry->shard = shard;
	return shard;
}

/* Equality of two key column values of one type letter (numbers numerically, others by bytes). */
static bool
key_column_equal(const char *type, Datum a, Datum b)
{
	struct varlena *x;
	struct varlena *y;

	if (type[0] == 'N')
		return DatumGetBool(DirectFunctionCall2(numeric_eq, a, b));
	x = PG_DETOAST_DATUM_PACKED(a);
	y = PG_DETOAST_DATUM_PACKED(b);
	return VARSIZE_ANY_EXHDR(x) == VARSIZE_ANY_EXHDR(y) &&
		memcmp(VARDATA_ANY(x), VARDATA_ANY(y), VARSIZE_ANY_EXHDR(x)) == 0;
}

/*
 * On a shard, Citus has routed the row by the pk it was given: a pk
 * rewritten here would put the item on the wrong shard.  The key columns
 * must already be the item's key (stdesign's statements on a distributed
 * table name them); otherwise the row is refused.
 */
static void
check_shard_keys(Relation rel, HeapTuple tuple, TupleDesc desc, const Trigger *trigger,
				 const Datum *values)
{
	int			nkeys = trigger->tgnargs / 2;

	for (int k = 0; k < nkeys; k++)
	{
		bool		isnull;
		Datum		d = heap_getattr(tuple, k + 1, desc, &isnull);

		if (isnull || !key_column_equal(trigger->tgargs[2 * k + 1], d, values[k]))
			ereport(ERROR,
					(errcode(ERRCODE_INTEGRITY_CONSTRAINT_VIOLATION),
					 errmsg("the %s column of a row of distributed table \"%s\" is not its item's key attribute %s",
							k == 0 ? "pk" : "sk", RelationGetRelationName(rel), trigger->tgargs[2 * k]),
					 errdetail("Rows of a distributed table are routed by pk: its key columns are given with the item, never computed."),
					 errhint("Write items through stdesign's functions, or give pk and sk equal to the item's key.")));
	}
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
	Jsonb	   *jb;
	StErr		err;
	bool		shard;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BEFORE(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("stdesign.set_keys() must be a BEFORE ... FOR EACH ROW trigger")));
	if (td->tg_trigger->tgnargs != 2 && td->tg_trigger->tgnargs != 4)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("stdesign.set_keys() takes the key names and types")));

	if (!TRIGGER_FIRED_BY_INSERT(td->tg_event) && !TRIGGER_FIRED_BY_UPDATE(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("stdesign.set_keys() must be an INSERT or UPDATE trigger")));
	shard = verify_relation(td->tg_relation, td->tg_trigger);

	desc = RelationGetDescr(td->tg_relation);
	tuple = TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? td->tg_newtuple : td->tg_trigtuple;
	nkeys = td->tg_trigger->tgnargs / 2;

	/* pk, [sk,] item */
	item = heap_getattr(tuple, nkeys + 1, desc, &isnull);
	if (isnull)
		st_validation_null("item");
	jb = DatumGetJsonbP(item);
	storage_set_keys_values(td->tg_trigger, jb, values);
	if (!av_stored_numbers_ok(jb, &err))
		st_raise(&err);
	if (shard)
	{
		check_shard_keys(td->tg_relation, tuple, desc, td->tg_trigger, values);
		return PointerGetDatum(tuple);
	}
	return PointerGetDatum(heap_modify_tuple_by_cols(tuple, desc, nkeys, cols, values, nulls));
}
