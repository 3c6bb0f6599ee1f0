/*-------------------------------------------------------------------------
 *
 * layout.c
 *		Is a table's relation still what storage_create_relation and
 *		storage_create_index made it?
 *
 * It belongs to the catalog layer: loading a table's definition runs it
 * (and fills the definition's OIDs from it), and storage, whose set_keys
 * trigger and DDL use it too, may call the catalog but not the reverse.
 *
 * The direct paths read the item column by number, probe the key index
 * with scan keys of the key types, and write rows whose key columns the
 * set_keys trigger's function computes.  A relation altered behind
 * stdesign's back (a column of another type, a renamed item column and a
 * new one in its place, a key index replaced by a non-unique one or one
 * over other expressions) would make them read an integer as a jsonb
 * pointer, or miss items and write a second row with the same key.  The
 * catalog checks a table's relation here each time it (re)loads the
 * table's definition, which every relcache invalidation of the relation
 * (any ALTER, CREATE or DROP INDEX) forces, and refuses a relation that no
 * longer matches; the DDL event trigger checks it the same way to refuse
 * such an ALTER in the first place.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "commands/trigger.h"
#include "nodes/primnodes.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"

#include "st_layout.h"

/*
 * How deep this backend is in DDL statements of stdesign's own: storage
 * runs them (storage_create_relation, storage_drop_index, ...) between
 * catalog_own_ddl_enter and catalog_own_ddl_leave.
 */
static int	own_ddl_depth = 0;

void
catalog_own_ddl_enter(void)
{
	own_ddl_depth++;
}

void
catalog_own_ddl_leave(void)
{
	Assert(own_ddl_depth > 0);
	own_ddl_depth--;
}

bool
catalog_in_own_ddl(void)
{
	return own_ddl_depth > 0;
}

Oid
catalog_key_typoid(AvType type)
{
	switch (type)
	{
		case AV_N:
			return NUMERICOID;
		case AV_B:
			return BYTEAOID;
		default:
			return TEXTOID;
	}
}

Oid
catalog_set_keys_oid(void)
{
	return LookupFuncName(list_make2(makeString("stdesign"), makeString("set_keys")),
						  0, NULL, true);
}

/* The collation a key column of this type must have: "C" for S. */
static Oid
key_collation(AvType type)
{
	return type == AV_S ? C_COLLATION_OID : InvalidOid;
}

/* Why column attnum is not `name` of type `type`, or NULL. */
static char *
column_problem(TupleDesc desc, int attnum, const char *name, Oid type, Oid collation)
{
	Form_pg_attribute att;

	if (attnum > desc->natts)
		return psprintf("column %s is missing", name);
	att = TupleDescAttr(desc, attnum - 1);
	if (att->attisdropped || strcmp(NameStr(att->attname), name) != 0)
		return psprintf("column %d is not %s", attnum, name);
	if (att->atttypid != type)
		return psprintf("column %s is of type %s, not %s", name,
						format_type_be(att->atttypid), format_type_be(type));
	if (att->attcollation != collation)
		return psprintf("column %s does not have the collation of a key of its type", name);
	return NULL;
}

char *
catalog_columns_problem(TupleDesc desc, const StKeyDef *pk, const StKeyDef *sk)
{
	char	   *problem;
	int			nkeys = sk->name ? 2 : 1;

	problem = column_problem(desc, 1, "pk", catalog_key_typoid(pk->type), key_collation(pk->type));
	if (problem == NULL && sk->name)
		problem = column_problem(desc, 2, "sk", catalog_key_typoid(sk->type), key_collation(sk->type));
	if (problem == NULL)
		problem = column_problem(desc, nkeys + 1, "item", JSONBOID, InvalidOid);
	return problem;
}

/* The btree key type of a partition key: key_ix's bytea, or the number. */
static Oid
partition_typoid(AvType type)
{
	return type == AV_N ? NUMERICOID : BYTEAOID;
}

/* Index column i's type, opclass (the type's default btree class) and collation. */
static char *
index_column_problem(Relation idx, int i, Oid type, Oid collation)
{
	Oid			opclass;

	if (TupleDescAttr(RelationGetDescr(idx), i)->atttypid != type)
		return psprintf("column %d of index %s is not of type %s", i + 1,
						RelationGetRelationName(idx), format_type_be(type));
	opclass = GetDefaultOpClass(type, BTREE_AM_OID);
	if (!OidIsValid(opclass) || idx->rd_opfamily[i] != get_opclass_family(opclass))
		return psprintf("column %d of index %s does not use the default operator class",
						i + 1, RelationGetRelationName(idx));
	if (idx->rd_indcollation[i] != collation)
		return psprintf("column %d of index %s does not have the collation of a key of its type",
						i + 1, RelationGetRelationName(idx));
	return NULL;
}

/* What any index of the layout must be: a valid btree of rel, partial or not. */
static char *
btree_problem(Relation idx, Oid relid, int ncols, bool partial)
{
	Form_pg_index ix = idx->rd_index;
	const char *name = RelationGetRelationName(idx);

	if (ix->indrelid != relid)
		return psprintf("index %s belongs to another relation", name);
	if (idx->rd_rel->relam != BTREE_AM_OID)
		return psprintf("index %s is not a btree", name);
	if (!ix->indisvalid || !ix->indisready || !ix->indislive)
		return psprintf("index %s is not valid", name);
	if (ix->indnatts != ncols || ix->indnkeyatts != ncols)
		return psprintf("index %s does not have %d columns", name, ncols);
	if ((RelationGetIndexPredicate(idx) != NIL) != partial)
		return psprintf(partial ? "index %s is not partial" : "index %s is partial", name);
	return NULL;
}

/*
 * The key index: unique on (stdesign.key_ix(pk), sk), or (pk, sk) for a
 * numeric partition key, checked at once.
 */
static char *
key_index_problem(Relation idx, Oid relid, const StKeyDef *pk, const StKeyDef *sk)
{
	Form_pg_index ix = idx->rd_index;
	int			ncols = sk->name ? 2 : 1;
	char	   *problem = btree_problem(idx, relid, ncols, false);
	List	   *exprs;

	if (problem)
		return problem;
	if (!ix->indisunique || !ix->indimmediate)
		return pstrdup("the key index is not unique, or checks at commit");
	exprs = RelationGetIndexExpressions(idx);
	if (pk->type == AV_N)
	{
		if (ix->indkey.values[0] != 1 || exprs != NIL)
			return pstrdup("the key index is not on pk");
	}
	else
	{
		Oid			argtype = catalog_key_typoid(pk->type);
		Oid			key_ix = LookupFuncName(list_make2(makeString("stdesign"), makeString("key_ix")),
											1, &argtype, true);
		FuncExpr   *f = list_length(exprs) == 1 && IsA(linitial(exprs), FuncExpr) ? linitial(exprs) : NULL;

		if (ix->indkey.values[0] != 0 || f == NULL || f->funcid != key_ix ||
			list_length(f->args) != 1 || !IsA(linitial(f->args), Var) ||
			((Var *) linitial(f->args))->varattno != 1)
			return pstrdup("the key index is not on stdesign.key_ix(pk)");
	}
	if (sk->name && ix->indkey.values[1] != 2)
		return pstrdup("the key index is not on sk");
	problem = index_column_problem(idx, 0, partition_typoid(pk->type), InvalidOid);
	if (problem == NULL && sk->name)
		problem = index_column_problem(idx, 1, catalog_key_typoid(sk->type), key_collation(sk->type));
	return problem;
}

/*
 * A GSI or LSI btree: partial, not unique, over the index's partition key,
 * its sort key, then the table's key, with their types (its expressions
 * are those of storage_create_index; the event trigger keeps anyone else
 * from changing them).
 */
static char *
secondary_index_problem(Relation idx, Oid relid, const StIndex *si,
						const StKeyDef *tpk, const StKeyDef *tsk)
{
	Oid			types[3 + ST_MAX_INDEX_RANGE_KEYS];
	Oid			collations[3 + ST_MAX_INDEX_RANGE_KEYS];
	int			n = 0;
	char	   *problem;

	if (si->multi)
	{
		/* a multi-attribute key: key_ix of its HASH attributes, then each RANGE one */
		types[n] = BYTEAOID;
		collations[n++] = InvalidOid;
		for (int i = si->npk; i < si->npk + si->nsk; i++)
		{
			types[n] = catalog_key_typoid(si->keys[i].type);
			collations[n++] = key_collation(si->keys[i].type);
		}
	}
	else
	{
		types[n] = partition_typoid(si->pk.type);
		collations[n++] = InvalidOid;
		if (si->sk.name)
		{
			types[n] = catalog_key_typoid(si->sk.type);
			collations[n++] = key_collation(si->sk.type);
		}
	}
	types[n] = partition_typoid(tpk->type);
	collations[n++] = InvalidOid;
	if (tsk->name)
	{
		types[n] = catalog_key_typoid(tsk->type);
		collations[n++] = key_collation(tsk->type);
	}
	problem = btree_problem(idx, relid, n, true);
	if (problem)
		return problem;
	if (idx->rd_index->indisunique)
		return psprintf("index %s is unique", RelationGetRelationName(idx));
	for (int i = 0; i < n && problem == NULL; i++)
		problem = index_column_problem(idx, i, types[i], collations[i]);
	return problem;
}

/* The index named `name` in the data schema, checked by check(); InvalidOid when absent. */
static Oid
named_index(const char *name, Oid nsp, char **problem)
{
	Oid			oid = get_relname_relid(name, nsp);

	if (OidIsValid(oid) && get_rel_relkind(oid) != RELKIND_INDEX)
		*problem = psprintf("%s is not an index", name);
	return oid;
}

/* The set_keys trigger: one, enabled, BEFORE INSERT OR UPDATE FOR EACH ROW, with the key's arguments. */
static char *
trigger_problem(Relation rel, const StKeyDef *pk, const StKeyDef *sk, bool complete)
{
	Oid			fn = catalog_set_keys_oid();
	TriggerDesc *td;
	Trigger    *found = NULL;
	int			nkeys = sk->name ? 2 : 1;

	/*
	 * Read the trigger descriptor only now, and keep a copy: looking the
	 * function up can open pg_proc and process invalidations, and a
	 * rebuild of the relation's cache entry (another session's GRANT is
	 * enough) frees the descriptor it had.
	 */
	td = rel->trigdesc ? CopyTriggerDesc(rel->trigdesc) : NULL;
	for (int i = 0; td && i < td->numtriggers; i++)
	{
		if (td->triggers[i].tgfoid != fn)
			continue;
		if (found)
			return pstrdup("it has more than one set_keys trigger");
		found = &td->triggers[i];
	}
	if (found == NULL)
		return complete ? pstrdup("its set_keys trigger is missing") : NULL;
	if (found->tgenabled != TRIGGER_FIRES_ON_ORIGIN && found->tgenabled != TRIGGER_FIRES_ALWAYS)
		return pstrdup("its set_keys trigger is disabled");
	if (!TRIGGER_FOR_ROW(found->tgtype) || !TRIGGER_FOR_BEFORE(found->tgtype) ||
		!TRIGGER_FOR_INSERT(found->tgtype) || !TRIGGER_FOR_UPDATE(found->tgtype) ||
		found->tgqual != NULL)
		return pstrdup("its set_keys trigger does not fire BEFORE every INSERT and UPDATE of each row");
	if (found->tgnargs != 2 * nkeys ||
		strcmp(found->tgargs[0], pk->name) != 0 ||
		strcmp(found->tgargs[1], av_type_name(pk->type)) != 0 ||
		(sk->name && (strcmp(found->tgargs[2], sk->name) != 0 ||
					  strcmp(found->tgargs[3], av_type_name(sk->type)) != 0)))
		return pstrdup("the arguments of its set_keys trigger are not the table's key");
	return NULL;
}

char *
catalog_layout_problem(StTable *t, bool complete)
{
	Relation	rel = relation_open(t->relid, NoLock);
	Oid			nsp = RelationGetNamespace(rel);
	char	   *problem = NULL;

	if (rel->rd_rel->relkind != RELKIND_RELATION)
		problem = pstrdup("it is not a table");
	if (problem == NULL)
		problem = catalog_columns_problem(RelationGetDescr(rel), &t->pk, &t->sk);
	t->item_attnum = t->sk.name ? 3 : 2;

	if (problem == NULL)
		t->key_index = named_index(t->key_index_name, nsp, &problem);
	if (problem == NULL && !OidIsValid(t->key_index) && complete)
		problem = pstrdup("its key index is missing");
	if (problem == NULL && OidIsValid(t->key_index))
	{
		Relation	idx = index_open(t->key_index, AccessShareLock);

		problem = key_index_problem(idx, t->relid, &t->pk, &t->sk);
		index_close(idx, NoLock);
	}

	for (int i = 0; i < t->nindexes && problem == NULL; i++)
	{
		StIndex    *si = &t->indexes[i];

		si->index_oid = named_index(si->pg_index, nsp, &problem);
		if (problem == NULL && !OidIsValid(si->index_oid) && complete)
			problem = psprintf("the btree of index %s is missing", si->name);
		if (problem == NULL && OidIsValid(si->index_oid))
		{
			Relation	idx = index_open(si->index_oid, AccessShareLock);

			problem = secondary_index_problem(idx, t->relid, si, &t->pk, &t->sk);
			index_close(idx, NoLock);
		}
	}

	if (problem == NULL)
		problem = trigger_problem(rel, &t->pk, &t->sk, complete);
	relation_close(rel, NoLock);
	return problem;
}
