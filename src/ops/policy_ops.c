/*-------------------------------------------------------------------------
 *
 * policy_ops.c
 *		Resource-based policies of tables and streams: checked as DynamoDB
 *		checks them, stored in stdesign.resource_policies with a revision
 *		id, returned, deleted.  Never evaluated (policy_ops.h).
 *
 * DynamoDB's rules (Developer Guide, "DynamoDB resource-based policy
 * considerations"; API reference, PutResourcePolicy, GetResourcePolicy,
 * DeleteResourcePolicy), and its answers where the reference gives no
 * words (observed against DynamoDB, as public conformance notes and
 * AWS-verified tests record them):
 * - a document of at most 20480 bytes, whitespace counted: "Maximum policy
 *   size of 20480 bytes exceeded"; text that is no JSON: "This policy
 *   contains invalid Json"; an empty Statement list: "Could not parse the
 *   policy: Statement is empty!"; a statement without Resource: "Missing
 *   required field Resource" (the same words for the other required
 *   fields are stdesign's, by analogy);
 * - the revision id is the time of the change in epoch milliseconds, so
 *   later revisions compare greater; putting an equal document again (as
 *   JSON: whitespace and member order aside) is no change and keeps it;
 * - ExpectedRevisionId that is not the current revision, or NO_POLICY
 *   while a policy is there: PolicyNotFoundException with DynamoDB's
 *   sentences; DeleteResourcePolicy of a resource without a policy is no
 *   error (and has no RevisionId).
 * Changes are serialized per table by the relation's ShareUpdateExclusiveLock
 * (as tags are, table_meta.c); DynamoDB's 15 s between two changes of one
 * policy is not imitated (docs/differences.md).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"

#include "catalog/st_catalog.h"
#include "item/av_jsonb.h"
#include "policy_ops.h"
#include "storage/st_storage.h"

#define INVALID_PREFIX "One or more parameter values were invalid: "
#define INVALID_DOCUMENT INVALID_PREFIX "Invalid policy document: "
#define NOT_FOUND_PREFIX "Resource-based policy not found for the provided ResourceArn: "

/* ---------- the document ---------- */

/*
 * The document as jsonb, or NULL when it is not JSON.  jsonb_in raises on
 * bad input: it runs in a subtransaction, and only its syntax errors are
 * taken as "not JSON" (anything else, a cancel included, goes on up).
 */
static Jsonb *
parse_document(const char *policy, int len)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	char	   *text = pnstrdup(policy, len);
	Jsonb	   *volatile result = NULL;

	if (len == 0 || strlen(text) != (size_t) len || st_json_has_nul_escape(text, len))
		return NULL;
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		result = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (edata->sqlerrcode != ERRCODE_INVALID_TEXT_REPRESENTATION &&
			edata->sqlerrcode != ERRCODE_UNTRANSLATABLE_CHARACTER &&
			edata->sqlerrcode != ERRCODE_CHARACTER_NOT_IN_REPERTOIRE)
			ReThrowError(edata);
		FreeErrorData(edata);
		result = NULL;
	}
	PG_END_TRY();
	return result;
}

/* Member `key` of an object container, or NULL. */
static JsonbValue *
member(JsonbContainer *c, const char *key, JsonbValue *buf)
{
	if (!JsonContainerIsObject(c))
		return NULL;
	return getKeyJsonValueFromContainer(c, key, strlen(key), buf);
}

/* Does the statement have field a (or b, its negation)? */
static bool
has_field(JsonbContainer *stmt, const char *a, const char *b)
{
	JsonbValue	buf;

	return member(stmt, a, &buf) != NULL || (b && member(stmt, b, &buf) != NULL);
}

/* One statement: an object with the fields every statement needs, once its Sid. */
static void
check_statement(JsonbValue *s, List **sids)
{
	JsonbContainer *stmt;
	JsonbValue	buf;
	JsonbValue *v;

	if (s->type != jbvBinary || !JsonContainerIsObject(s->val.binary.data))
		st_error(ST_ERR_VALIDATION, INVALID_DOCUMENT "Could not parse the policy: a statement is not a JSON object");
	stmt = s->val.binary.data;
	v = member(stmt, "Effect", &buf);
	if (v == NULL)
		st_error(ST_ERR_VALIDATION, INVALID_DOCUMENT "Missing required field Effect");
	if (v->type != jbvString ||
		!((v->val.string.len == 5 && pg_strncasecmp(v->val.string.val, "Allow", 5) == 0) ||
		  (v->val.string.len == 4 && pg_strncasecmp(v->val.string.val, "Deny", 4) == 0)))
		st_error(ST_ERR_VALIDATION, INVALID_DOCUMENT "Invalid effect: the Effect of a statement must be Allow or Deny");
	/* a resource-based policy names its principals */
	if (!has_field(stmt, "Principal", "NotPrincipal"))
		st_error(ST_ERR_VALIDATION, INVALID_DOCUMENT "Missing required field Principal");
	if (!has_field(stmt, "Action", "NotAction"))
		st_error(ST_ERR_VALIDATION, INVALID_DOCUMENT "Missing required field Action");
	if (!has_field(stmt, "Resource", "NotResource"))
		st_error(ST_ERR_VALIDATION, INVALID_DOCUMENT "Missing required field Resource");
	v = member(stmt, "Sid", &buf);
	if (v && v->type == jbvString)
	{
		char	   *sid = pnstrdup(v->val.string.val, v->val.string.len);
		ListCell   *lc;

		/* IAM's rule and words for every policy document */
		foreach(lc, *sids)
			if (strcmp(lfirst(lc), sid) == 0)
				st_error(ST_ERR_VALIDATION, INVALID_DOCUMENT "Statement IDs (SID) in a single policy must be unique.");
		*sids = lappend(*sids, sid);
	}
}

void
ops_policy_check(const char *policy, int len)
{
	Jsonb	   *doc;
	JsonbValue	buf;
	JsonbValue *st;
	List	   *sids = NIL;

	if (len > OPS_POLICY_MAX_BYTES)
		st_error(ST_ERR_VALIDATION, INVALID_PREFIX "Maximum policy size of %d bytes exceeded", OPS_POLICY_MAX_BYTES);
	doc = parse_document(policy, len);
	if (doc == NULL || !JB_ROOT_IS_OBJECT(doc))
		st_error(ST_ERR_VALIDATION, INVALID_DOCUMENT "This policy contains invalid Json");
	st = member(&doc->root, "Statement", &buf);
	if (st == NULL)
		st_error(ST_ERR_VALIDATION, INVALID_DOCUMENT "Missing required field Statement");
	if (st->type == jbvBinary && JsonContainerIsArray(st->val.binary.data))
	{
		JsonbContainer *list = st->val.binary.data;
		int			n = JsonContainerSize(list);

		if (n == 0)
			st_error(ST_ERR_VALIDATION, INVALID_DOCUMENT "Could not parse the policy: Statement is empty!");
		for (int i = 0; i < n; i++)
		{
			JsonbValue *s = getIthJsonbValueFromContainer(list, i);

			check_statement(s, &sids);
		}
	}
	else
		check_statement(st, &sids);
	list_free_deep(sids);
}

char *
ops_policy_text(const Av *value)
{
	if (value->type == AV_M)
	{
		/* CloudFormation's ResourcePolicy: {"PolicyDocument": a JSON object or its text} */
		const Av   *doc = av_map_get(value, "PolicyDocument", 14);

		if (doc == NULL)
			st_error(ST_ERR_VALIDATION, INVALID_DOCUMENT "Missing required field PolicyDocument");
		if (doc->type == AV_S)
			return pnstrdup(doc->str, doc->len);
		return JsonbToCString(NULL, &av_item_to_jsonb(doc, false)->root, 0);
	}
	if (value->type != AV_S)
		st_error(ST_ERR_SERIALIZATION, "Unexpected value type for ResourcePolicy: expected a string");
	return pnstrdup(value->str, value->len);
}

/* ---------- the catalog ---------- */

static bool
policy_catalog_exists(void)
{
	Oid			nsp = get_namespace_oid("stdesign", true);

	return OidIsValid(nsp) && OidIsValid(get_relname_relid("resource_policies", nsp));
}

/*
 * The table, and the stream when one is named; ResourceNotFoundException in
 * DynamoDB's words otherwise.  For a change, the table is locked against
 * other changes of its policies and its deletion (ShareUpdateExclusiveLock
 * conflicts with itself and with DeleteTable).
 */
static StTable *
resource_lookup(const char *table_name, const char *stream_label, bool change)
{
	StTable    *t = change
		? catalog_lookup_locked(table_name, true, ShareUpdateExclusiveLock)
		: catalog_lookup(table_name, true);

	if (t == NULL)
		st_error(ST_ERR_RESOURCE_NOT_FOUND, "Requested resource not found: Table: %s not found", table_name);
	if (stream_label)
	{
		Oid			nsp = get_namespace_oid("stdesign", true);
		Oid			types[2] = {TEXTOID, TEXTOID};
		Datum		args[2];
		CatalogAsOwner save;
		bool		found;

		if (!OidIsValid(nsp) || !OidIsValid(get_relname_relid("streams", nsp)))
			found = false;
		else
		{
			args[0] = CStringGetTextDatum(t->name);
			args[1] = CStringGetTextDatum(stream_label);
			/* stdesign.streams is granted to nobody */
			catalog_as_owner_begin(&save);
			SPI_connect();
			if (SPI_execute_with_args("SELECT FROM stdesign.streams WHERE table_name OPERATOR(pg_catalog.=) $1"
									  " AND label OPERATOR(pg_catalog.=) $2 AND table_deleted_at IS NULL",
									  2, types, args, NULL, true, 1) != SPI_OK_SELECT)
				st_internal_error("could not read stdesign.streams");
			found = SPI_processed > 0;
			SPI_finish();
			catalog_as_owner_end(&save);
		}
		if (!found)
			st_error(ST_ERR_RESOURCE_NOT_FOUND, "Requested resource not found: Stream: %s not found for Table: %s",
					 stream_label, t->name);
	}
	return t;
}

/*
 * The stored policy of the resource: true and its text and revision when
 * there is one; *same tells whether `compare` (or NULL) is the same JSON.
 */
static bool
read_policy(const char *table_name, const char *stream_label, const char *compare,
			char **policy, char **revision_id, bool *same)
{
	Oid			types[3] = {TEXTOID, TEXTOID, TEXTOID};
	Datum		args[3];
	char		nulls[3] = {' ', ' ', compare ? ' ' : 'n'};
	MemoryContext caller = CurrentMemoryContext;
	CatalogAsOwner save;
	bool		found = false;

	if (!policy_catalog_exists())
		return false;
	args[0] = CStringGetTextDatum(table_name);
	args[1] = CStringGetTextDatum(stream_label ? stream_label : "");
	args[2] = compare ? CStringGetTextDatum(compare) : (Datum) 0;
	/* stdesign.resource_policies is granted to nobody */
	catalog_as_owner_begin(&save);
	SPI_connect();
	if (SPI_execute_with_args("SELECT policy, revision_id,"
							  " COALESCE(policy::pg_catalog.jsonb OPERATOR(pg_catalog.=) $3::pg_catalog.jsonb, false)"
							  " FROM stdesign.resource_policies"
							  " WHERE table_name OPERATOR(pg_catalog.=) $1 AND stream_label OPERATOR(pg_catalog.=) $2",
							  3, types, args, nulls, false, 1) != SPI_OK_SELECT)
		st_internal_error("could not read stdesign.resource_policies");
	if (SPI_processed == 1)
	{
		HeapTuple	row = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *p = SPI_getvalue(row, desc, 1);
		char	   *r = SPI_getvalue(row, desc, 2);
		bool		isnull;
		bool		eq = DatumGetBool(SPI_getbinval(row, desc, 3, &isnull));
		MemoryContext spi = MemoryContextSwitchTo(caller);

		*policy = pstrdup(p);
		*revision_id = pstrdup(r);
		*same = eq;
		found = true;
		MemoryContextSwitchTo(spi);
	}
	SPI_finish();
	catalog_as_owner_end(&save);
	return found;
}

/*
 * A new revision id: now in epoch milliseconds, and after `previous` (the
 * revision it replaces, or NULL) even when the clock has not moved on.
 */
static char *
new_revision_id(const char *previous)
{
	TimestampTz now = GetCurrentTimestamp();
	int64		ms = now / 1000 + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000;

	if (previous)
	{
		char	   *end;
		long long	prev = strtoll(previous, &end, 10);

		if (*end == '\0' && prev >= ms && prev < PG_INT64_MAX)
			ms = prev + 1;
	}
	return psprintf(INT64_FORMAT, ms);
}

/* PolicyNotFoundException for an ExpectedRevisionId that is not the revision. */
static void
check_expected(const char *table_name, const char *arn, const char *expected,
			   bool found, const char *revision_id, bool put)
{
	if (expected == NULL)
		return;
	/* NO_POLICY is a Put's expectation; to a delete it is a revision like any */
	if (put && strcmp(expected, OPS_POLICY_NO_POLICY) == 0)
	{
		if (found)
			st_error(ST_ERR_POLICY_NOT_FOUND,
					 NOT_FOUND_PREFIX "Requested policy update expecting none to be present for table %s, but a policy exists with revision id %s.",
					 table_name, revision_id);
		return;
	}
	if (!found)
		st_error(ST_ERR_POLICY_NOT_FOUND, NOT_FOUND_PREFIX "%s", arn);
	if (strcmp(expected, revision_id) != 0)
		st_error(ST_ERR_POLICY_NOT_FOUND,
				 NOT_FOUND_PREFIX "Requested update for policy with revision id %s, but the policy associated to target table %s has revision id %s.",
				 expected, table_name, revision_id);
}

char *
ops_policy_put(const char *table_name, const char *stream_label, const char *arn,
			   const char *policy, const char *expected_revision_id)
{
	StTable    *t;
	char	   *old_policy = NULL;
	char	   *old_revision = NULL;
	bool		same = false;
	bool		found;
	char	   *revision;
	Oid			types[4] = {TEXTOID, TEXTOID, TEXTOID, TEXTOID};
	Datum		args[4];

	ops_policy_check(policy, strlen(policy));
	t = resource_lookup(table_name, stream_label, true);
	catalog_check_owner(t);
	if (!policy_catalog_exists())
		st_error_hint(ST_ERR_VALIDATION, "Run ALTER EXTENSION stdesign UPDATE.",
					  "Resource-based policies need the catalog of stdesign 0.2.0");
	found = read_policy(t->name, stream_label, policy, &old_policy, &old_revision, &same);
	check_expected(t->name, arn, expected_revision_id, found, old_revision, true);
	/* the same document again is no change: its revision stays */
	if (found && same)
		return old_revision;
	revision = new_revision_id(found ? old_revision : NULL);
	args[0] = CStringGetTextDatum(t->name);
	args[1] = CStringGetTextDatum(stream_label ? stream_label : "");
	args[2] = CStringGetTextDatum(policy);
	args[3] = CStringGetTextDatum(revision);
	catalog_write("INSERT INTO stdesign.resource_policies (table_name, stream_label, policy, revision_id)"
				  " VALUES ($1, $2, $3, $4) ON CONFLICT (table_name, stream_label)"
				  " DO UPDATE SET policy = EXCLUDED.policy, revision_id = EXCLUDED.revision_id",
				  4, types, args, NULL);
	return revision;
}

void
ops_policy_get(const char *table_name, const char *stream_label, const char *arn,
			   char **policy, char **revision_id)
{
	StTable    *t = resource_lookup(table_name, stream_label, false);
	bool		same;

	/* a table's policies are for those who may read it, as its tags are */
	storage_require_privilege(t, ACL_SELECT);
	if (!read_policy(t->name, stream_label, NULL, policy, revision_id, &same))
		st_error(ST_ERR_POLICY_NOT_FOUND, NOT_FOUND_PREFIX "%s", arn);
}

char *
ops_policy_delete(const char *table_name, const char *stream_label, const char *arn,
				  const char *expected_revision_id)
{
	StTable    *t = resource_lookup(table_name, stream_label, true);
	char	   *policy = NULL;
	char	   *revision = NULL;
	bool		same;
	bool		found;
	Oid			types[2] = {TEXTOID, TEXTOID};
	Datum		args[2];

	catalog_check_owner(t);
	found = read_policy(t->name, stream_label, NULL, &policy, &revision, &same);
	check_expected(t->name, arn, expected_revision_id, found, revision, false);
	if (!found)
		return NULL;
	args[0] = CStringGetTextDatum(t->name);
	args[1] = CStringGetTextDatum(stream_label ? stream_label : "");
	catalog_write("DELETE FROM stdesign.resource_policies"
				  " WHERE table_name OPERATOR(pg_catalog.=) $1 AND stream_label OPERATOR(pg_catalog.=) $2",
				  2, types, args, NULL);
	return new_revision_id(revision);
}
