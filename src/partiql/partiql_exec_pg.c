/*-------------------------------------------------------------------------
 *
 * partiql_exec_pg.c
 *		Running one PartiQL statement on the operations layer: the parse
 *		cache, SELECT's pages and NextToken, and the single-item writes.
 *
 * Parsed statements are cached per backend by their text, like parsed
 * expressions (expr_ops.c): the tree is a pure function of the text, so a
 * statement repeated with other Parameters is not parsed again.  The cache
 * lives in one memory context that is replaced after PARTIQL_CACHE_MAX
 * parses, which bounds its memory however many distinct statements a
 * session sends.
 *
 * A SELECT reads as DynamoDB's ExecuteStatement does: a page ends when
 * Limit items have been read (before the filter) or when the items read
 * reach 1 MB.  NextToken then says where to resume: the partition (of an
 * IN list) and the key of the last item read.  It is opaque and checked:
 * an HMAC-SHA256 (keyed by the cluster's system identifier) covers it and
 * it is bound to the statement's text, so a token that was altered, or
 * that belongs to another statement, is a ValidationException ("Invalid
 * NextToken"), never a wrong page.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "common/hashfn.h"
#include "common/hmac.h"
#include "common/sha2.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

#include "item/av_jsonb.h"
#include "ops/expr_ops.h"
#include "ops/item_ops.h"
#include "partiql.h"

#define PARTIQL_CACHE_MAX 512

/* DynamoDB's page: a read returns at most 1 MB of items. */
#define PARTIQL_PAGE_BYTES (1024 * 1024)

/* The HMAC's bytes that go into a token (as hex). */
#define TOKEN_MAC_BYTES 16

typedef struct StmtCacheEntry
{
	uint32		hash;			/* hash key */
	char	   *text;
	int			len;
	PqlStmt    *stmt;
} StmtCacheEntry;

static HTAB *stmt_cache = NULL;
static MemoryContext stmt_cache_cxt = NULL;
static int	stmt_cache_parses = 0;
static int64 stmt_parses_total = 0;

/* ---------- the cache ---------- */

static void
stmt_cache_reset(void)
{
	HASHCTL		ctl;

	/* a statement in flight may still use the old trees: they go with the caller's context */
	if (stmt_cache_cxt)
		MemoryContextSetParent(stmt_cache_cxt, CurrentMemoryContext);
	stmt_cache_cxt = AllocSetContextCreate(CacheMemoryContext, "stdesign PartiQL cache",
										   ALLOCSET_DEFAULT_SIZES);
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(uint32);
	ctl.entrysize = sizeof(StmtCacheEntry);
	ctl.hcxt = stmt_cache_cxt;
	stmt_cache = hash_create("stdesign PartiQL statements", 128, &ctl,
							 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	stmt_cache_parses = 0;
}

const PqlStmt *
partiql_prepare(const char *text)
{
	StErr		err;
	const PqlStmt *stmt = partiql_try_prepare(text, &err);

	if (stmt == NULL)
		st_raise(&err);
	return stmt;
}

const PqlStmt *
partiql_try_prepare(const char *text, StErr *err)
{
	int			len = strlen(text);
	uint32		hash;
	StmtCacheEntry *entry;
	bool		found;
	MemoryContext old;
	PqlStmt    *stmt;

	if (stmt_cache == NULL || stmt_cache_parses >= PARTIQL_CACHE_MAX)
		stmt_cache_reset();
	hash = hash_bytes((const unsigned char *) text, len);
	entry = hash_search(stmt_cache, &hash, HASH_FIND, &found);
	if (found && entry->len == len && memcmp(entry->text, text, len) == 0)
		return entry->stmt;

	stmt_cache_parses++;
	stmt_parses_total++;
	old = MemoryContextSwitchTo(stmt_cache_cxt);
	stmt = partiql_parse(text, len, err);
	MemoryContextSwitchTo(old);
	if (stmt == NULL)
		return NULL;
	/* a colliding hash keeps the newer statement */
	entry = hash_search(stmt_cache, &hash, HASH_ENTER, &found);
	entry->text = MemoryContextStrdup(stmt_cache_cxt, text);
	entry->len = len;
	entry->stmt = stmt;
	return stmt;
}

int
partiql_is_read(const char *statement)
{
	StErr		err;
	const PqlStmt *stmt = partiql_try_prepare(statement, &err);

	return stmt == NULL ? -1 : stmt->kind == PQL_SELECT;
}

int64
partiql_parse_count(void)
{
	return stmt_parses_total;
}

/* ---------- NextToken ---------- */

static void
token_mac(const char *payload, int len, uint8 *mac)
{
	uint64		sysid = GetSystemIdentifier();
	uint8		key[8 + 16];
	uint8		full[PG_SHA256_DIGEST_LENGTH];
	pg_hmac_ctx *ctx = pg_hmac_create(PG_SHA256);

	memcpy(key, &sysid, 8);
	memcpy(key + 8, "stdesign partiql", 16);
	if (ctx == NULL || pg_hmac_init(ctx, key, sizeof(key)) < 0 ||
		pg_hmac_update(ctx, (const uint8 *) payload, len) < 0 ||
		pg_hmac_final(ctx, full, sizeof(full)) < 0)
		st_internal_error("could not compute the HMAC of a NextToken");
	pg_hmac_free(ctx);
	memcpy(mac, full, TOKEN_MAC_BYTES);
}

/* "v1 <statement hash> <partition> <typed key JSON>", MAC'd and base64'd */
static char *
token_encode(uint32 stmt_hash, int part, const Av *key)
{
	StringInfoData payload;
	StringInfoData out;
	uint8		mac[TOKEN_MAC_BYTES];
	char	   *b64;
	int			b64len;

	initStringInfo(&payload);
	appendStringInfo(&payload, "v1 %08x %d ", stmt_hash, part);
	if (key)
	{
		Jsonb	   *jb = av_item_to_jsonb(key, true);

		appendStringInfoString(&payload, JsonbToCString(NULL, &jb->root, VARSIZE(jb)));
	}
	token_mac(payload.data, payload.len, mac);
	b64 = av_base64_encode(payload.data, payload.len, &b64len);
	initStringInfo(&out);
	for (int i = 0; i < TOKEN_MAC_BYTES; i++)
		appendStringInfo(&out, "%02x", mac[i]);
	appendBinaryStringInfo(&out, b64, b64len);
	return out.data;
}

static void
invalid_token(void)
{
	st_error(ST_ERR_VALIDATION, "Invalid NextToken");
}

/* The partition and key a token resumes at; raises "Invalid NextToken" on any doubt. */
static void
token_decode(const char *token, uint32 stmt_hash, int *part, Av **key)
{
	int			len = strlen(token);
	uint8		mac[TOKEN_MAC_BYTES];
	char	   *payload;
	int			plen;
	unsigned int hash;
	int			n = 0;
	int			p;

	if (len <= TOKEN_MAC_BYTES * 2)
		invalid_token();
	if (!av_base64_decode(token + TOKEN_MAC_BYTES * 2, len - TOKEN_MAC_BYTES * 2, &payload, &plen))
		invalid_token();
	token_mac(payload, plen, mac);
	for (int i = 0; i < TOKEN_MAC_BYTES; i++)
	{
		char		hex[3];

		snprintf(hex, sizeof(hex), "%02x", mac[i]);
		if (token[2 * i] != hex[0] || token[2 * i + 1] != hex[1])
			invalid_token();
	}
	/* ours, and unchanged: now it must belong to this statement */
	if (sscanf(payload, "v1 %8x %d %n", &hash, &p, &n) < 2 || n == 0 || hash != stmt_hash || p < 0)
		invalid_token();
	*part = p;
	*key = NULL;
	if (payload[n] != '\0')
	{
		Jsonb	   *jb = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(payload + n)));

		*key = av_map_from_jsonb(jb, true, "NextToken");
	}
}

/* ---------- planning against the catalog ---------- */

static void
key_schema(StTable *t, StIndex *ix, PqlKeySchema *ks)
{
	const StKeyDef *pk = ix ? &ix->pk : &t->pk;
	const StKeyDef *sk = ix ? &ix->sk : &t->sk;

	ks->pk = pk->name;
	ks->pk_type = pk->type;
	ks->sk = sk->name;
	ks->sk_type = sk->type;
	ks->is_index = ix != NULL;
	ks->nkeys = 0;
	ks->npk = 0;
	ks->key_names = NULL;
	if (ix && ix->multi)
	{
		ks->nkeys = ix->npk + ix->nsk;
		ks->npk = ix->npk;
		ks->key_names = palloc(sizeof(char *) * ks->nkeys);
		for (int i = 0; i < ks->nkeys; i++)
			ks->key_names[i] = ix->keys[i].name;
	}
}

void
partiql_check_params(const PqlStmt *s, const Av *params)
{
	if (s->nparams != (params ? params->n : 0))
		st_error(ST_ERR_VALIDATION, "Number of parameters in request and statement don't match.");
}

Av *
partiql_value_of(const PqlNode *n, const Av *params)
{
	StErr		err;
	Av		   *v = partiql_value(n, params, &err);

	if (v == NULL)
		st_raise(&err);
	return v;
}

/* The plan's expressions, bound: filter and projection, or condition and update. */
void
partiql_bind_request(StExprRequest *req, const PqlPlan *plan, const Av *params)
{
	StErr		err;
	Av		   *values = partiql_plan_values(plan, params, &err);

	if (values == NULL && plan->nvalues > 0)
		st_raise(&err);
	ops_expr_init_maps(req, plan->names, values);
}

/* ---------- SELECT ---------- */

typedef struct ReadState
{
	PartiqlCall *call;
	StExprRequest *req;
	StTable    *table;
	StIndex    *index;
	bool		raw;			/* items go out as stored */
	int64		limit;
	int64		scanned;
	int64		bytes;
	bool		stopped;
	Av		   *last_key;
	MemoryContext keep_cxt;		/* the statement's context: what outlives a row */
} ReadState;


static StPosition *
key_position(StTable *t, StIndex *ix, const Av *key)
{
	StPosition *pos = palloc0(sizeof(StPosition));

	pos->table_pk = ops_start_key_datum(key, &t->pk);
	pos->table_sk = ops_start_key_datum(key, &t->sk);
	if (ix && ix->multi)
	{
		/* a multi-attribute key is positioned by all its attributes */
		for (int i = 0; i < ix->npk + ix->nsk; i++)
			(void) ops_start_key_datum(key, &ix->keys[i]);
		pos->key = key;
	}
	else if (ix)
	{
		pos->index_pk = ops_start_key_datum(key, &ix->pk);
		pos->index_sk = ops_start_key_datum(key, &ix->sk);
	}
	return pos;
}

static void
emit_item(ReadState *rs, const Av *item)
{
	if (!ops_expr_filter_passes(rs->req, item))
		return;
	/* a new tree in the statement's context: the row's may go with the row */
	if (rs->req->projection)
		item = ops_expr_project_item(rs->req, item);
	else
		item = av_copy(item);
	rs->call->emit(rs->call->arg, NULL, item);
}

static bool
read_row(Jsonb *stored, void *arg)
{
	ReadState  *rs = (ReadState *) arg;
	Av		   *item = NULL;
	MemoryContext old;
	bool		more = true;

	/* rows come in a context of their own; what is emitted must outlive it */
	rs->scanned++;
	if (rs->raw)
	{
		rs->bytes += av_stored_item_size(stored);
		old = MemoryContextSwitchTo(rs->keep_cxt);
		rs->call->emit(rs->call->arg, stored, NULL);
	}
	else
	{
		item = av_item_from_stored(stored);
		/* a KEYS_ONLY or INCLUDE index holds only part of the item */
		if (rs->index && rs->index->projection != ST_PROJECT_ALL)
			item = ops_index_entry(rs->table, rs->index, item);
		rs->bytes += av_item_size(item);
		old = MemoryContextSwitchTo(rs->keep_cxt);
		emit_item(rs, item);
	}
	if ((rs->limit > 0 && rs->scanned >= rs->limit) || rs->bytes >= PARTIQL_PAGE_BYTES)
	{
		rs->stopped = true;
		rs->last_key = ops_item_key(rs->table, rs->index, item ? item : av_item_from_stored(stored));
		more = false;
	}
	MemoryContextSwitchTo(old);
	return more;
}

static StSortOp
sort_op(PqlSortOp op)
{
	switch (op)
	{
		case PQL_SK_EQ:
			return ST_SORT_EQ;
		case PQL_SK_LT:
			return ST_SORT_LT;
		case PQL_SK_LE:
			return ST_SORT_LE;
		case PQL_SK_GT:
			return ST_SORT_GT;
		case PQL_SK_GE:
			return ST_SORT_GE;
		case PQL_SK_BETWEEN:
			return ST_SORT_BETWEEN;
		case PQL_SK_BEGINS_WITH:
			return ST_SORT_BEGINS_WITH;
		default:
			return ST_SORT_NONE;
	}
}

/*
 * The sort-key range of a Query plan; false when no item can match (a
 * value of another type than the key's, BETWEEN with its bounds reversed):
 * the WHERE is then false for every item, so nothing is read.
 */
static bool
sort_range(const PqlPlan *plan, const StKeyDef *sk, const Av *params, StQuerySpec *q)
{
	if (plan->sk_op == PQL_SK_NONE)
		return true;
	q->sort_op = sort_op(plan->sk_op);
	q->sort1 = partiql_value_of(plan->sk1, params);
	if (q->sort1->type != sk->type)
		return false;
	if (plan->sk_op == PQL_SK_BEGINS_WITH && sk->type == AV_N)
		return false;
	if (plan->sk_op == PQL_SK_BETWEEN)
	{
		q->sort2 = partiql_value_of(plan->sk2, params);
		if (q->sort2->type != sk->type || av_compare_scalar(q->sort1, q->sort2) > 0)
			return false;
	}
	return true;
}

/* The distinct partition-key values of the plan, in statement order (NULL: another type). */
static Av **
partition_values(const PqlPlan *plan, const StKeyDef *pk, const Av *params)
{
	Av		  **vals = palloc0(sizeof(Av *) * Max(1, plan->npk));

	for (int i = 0; i < plan->npk; i++)
	{
		Av		   *v = partiql_value_of(plan->pk_values[i], params);

		if (v->type != pk->type)
			continue;
		for (int j = 0; j < i && v; j++)
			if (vals[j] && av_equal(vals[j], v))
				v = NULL;
		vals[i] = v;
	}
	return vals;
}

/*
 * The key condition of a Query plan on a multi-attribute key, set on q by
 * the Query operation's own code (ops_query_set_multi_condition); false
 * when no item can match (a value of another type than its attribute's, a
 * range that sort_range finds empty).
 */
static bool
multi_range(const PqlPlan *plan, StIndex *ix, const Av *params, StQuerySpec *q)
{
	ExprKeyConditionMulti m;

	memset(&m, 0, sizeof(m));
	for (int i = 0; i < plan->nmulti; i++)
	{
		Av		   *v = partiql_value_of(plan->multi_values[i], params);

		if (v->type != ix->keys[i].type)
			return false;
		m.has[i] = true;
		m.op[i] = EXPR_KEY_EQ;
		m.value1[i] = v;
	}
	if (plan->sk_op != PQL_SK_NONE)
	{
		int			k = plan->nmulti;
		StQuerySpec bounded;

		memset(&bounded, 0, sizeof(bounded));
		if (!sort_range(plan, &ix->keys[k], params, &bounded))
			return false;
		m.has[k] = true;
		m.op[k] = ops_query_key_op(bounded.sort_op);
		m.value1[k] = bounded.sort1;
		m.value2[k] = bounded.sort2;
	}
	ops_query_set_multi_condition(q, &m);
	return true;
}

static void
run_get(PartiqlCall *call, ReadState *rs, const PqlPlan *plan, StTable *t)
{
	Av		   *keymap = av_new(AV_M);
	Av		   *pk = partiql_value_of(plan->pk_values[0], call->params);
	Jsonb	   *stored = NULL;
	int64		bytes = 0;

	av_map_put_nocheck(keymap, t->pk.name, strlen(t->pk.name), pk);
	if (t->sk.name)
		av_map_put_nocheck(keymap, t->sk.name, strlen(t->sk.name), partiql_value_of(plan->sk1, call->params));
	/* a key value of another type than the key's matches nothing */
	if (pk->type == t->pk.type &&
		(t->sk.name == NULL || av_map_get(keymap, t->sk.name, strlen(t->sk.name))->type == t->sk.type))
		stored = ops_get(t, keymap);
	if (stored && rs->raw)
	{
		/* as stored: no need to decode it */
		bytes = av_stored_item_size(stored);
		call->emit(call->arg, stored, NULL);
	}
	else if (stored)
	{
		Av		   *item = av_item_from_stored(stored);

		bytes = av_item_size(item);
		emit_item(rs, item);
	}
	if (call->cap)
		ops_capacity_read(call->cap, t, NULL, bytes, call->consistent, false);
}

static void
run_select(PartiqlCall *call, const PqlStmt *s, uint32 hash)
{
	StTable    *t = ops_table_lookup(s->table);
	StIndex    *ix = s->index ? ops_index_lookup(t, s->index) : NULL;
	PqlKeySchema ks;
	PqlPlan		plan;
	StErr		err;
	StExprRequest req;
	ReadState	rs;
	int			start_part = 0;
	Av		   *start_key = NULL;

	call->table_name = t->name;
	call->is_read = true;
	if (ix && !ix->is_local && call->consistent)
		st_error(ST_ERR_VALIDATION, "Consistent reads are not supported on global secondary indexes");
	key_schema(t, ix, &ks);
	if (!partiql_plan(s, &ks, &plan, &err))
		st_raise(&err);
	if (call->mode == PARTIQL_MODE_BATCH && plan.access != PQL_ACCESS_GET)
		st_error(ST_ERR_VALIDATION, "Only single item select is supported");
	partiql_bind_request(&req, &plan, call->params);
	ops_expr_add_filter(&req, plan.filter, NULL);
	ops_expr_add_projection(&req, plan.projection);
	ops_expr_finish(&req);
	if (call->next_token)
		token_decode(call->next_token, hash, &start_part, &start_key);

	memset(&rs, 0, sizeof(rs));
	rs.call = call;
	rs.req = &req;
	rs.table = t;
	rs.index = ix;
	rs.raw = req.filter == NULL && req.projection == NULL &&
		(ix == NULL || ix->projection == ST_PROJECT_ALL);
	rs.limit = call->limit;
	rs.keep_cxt = CurrentMemoryContext;

	if (plan.access == PQL_ACCESS_GET)
	{
		if (start_part == 0 && start_key == NULL)
			run_get(call, &rs, &plan, t);
		return;
	}
	if (plan.access == PQL_ACCESS_QUERY && plan.multi)
	{
		StQuerySpec q;

		if (start_part != 0)
			invalid_token();
		memset(&q, 0, sizeof(q));
		q.table = t;
		q.index = ix;
		q.forward = plan.forward;
		if (multi_range(&plan, ix, call->params, &q))
		{
			q.limit = rs.limit > 0 ? rs.limit : -1;
			q.start = start_key ? key_position(t, ix, start_key) : NULL;
			if (q.start)
				ops_query_check_multi_start(&q);
			ops_query(&q, read_row, &rs);
			if (rs.stopped)
			{
				call->next_token_out = token_encode(hash, 0, rs.last_key);
				call->last_key = rs.last_key;
			}
		}
	}
	else if (plan.access == PQL_ACCESS_QUERY)
	{
		const StKeyDef *pkdef = ix ? &ix->pk : &t->pk;
		const StKeyDef *skdef = ix ? &ix->sk : &t->sk;
		Av		  **parts = partition_values(&plan, pkdef, call->params);
		StQuerySpec q;

		memset(&q, 0, sizeof(q));
		q.table = t;
		q.index = ix;
		q.forward = plan.forward;
		if (sort_range(&plan, skdef, call->params, &q))
		{
			for (int p = start_part; p < plan.npk && !rs.stopped; p++)
			{
				if (parts[p] == NULL)
					continue;
				q.pk = parts[p];
				q.limit = rs.limit > 0 ? rs.limit - rs.scanned : -1;
				q.start = (p == start_part && start_key) ? key_position(t, ix, start_key) : NULL;
				ops_query(&q, read_row, &rs);
				if (rs.stopped)
				{
					call->next_token_out = token_encode(hash, p, rs.last_key);
					call->last_key = rs.last_key;
				}
			}
		}
	}
	else
	{
		StScanRange r;

		if (start_part != 0)
			invalid_token();
		memset(&r, 0, sizeof(r));
		r.limit = rs.limit;
		r.start = start_key ? key_position(t, ix, start_key) : NULL;
		r.segment = 0;
		r.total_segments = 1;
		ops_scan_range(t, ix, &r, read_row, &rs);
		if (rs.stopped)
		{
			call->next_token_out = token_encode(hash, 0, rs.last_key);
			call->last_key = rs.last_key;
		}
	}
	if (call->cap)
		ops_capacity_read(call->cap, t, ix, rs.bytes, call->consistent, false);
}

/* ---------- writes ---------- */

/* INSERT's condition: DynamoDB's own exception when the key is taken. */
static bool
insert_absent(StCondition *cond, const Av *item)
{
	if (item != NULL)
		st_error(ST_ERR_DUPLICATE_ITEM, "Duplicate primary key exists in table");
	return true;
}

Av *
partiql_write_keymap(StTable *t, const PqlPlan *plan, const Av *params)
{
	Av		   *keymap = av_new(AV_M);

	av_map_put_nocheck(keymap, t->pk.name, strlen(t->pk.name), partiql_value_of(plan->pk_values[0], params));
	if (t->sk.name)
		av_map_put_nocheck(keymap, t->sk.name, strlen(t->sk.name), partiql_value_of(plan->sk1, params));
	return keymap;
}

static StReturnValues
returning(PqlReturning r)
{
	switch (r)
	{
		case PQL_RET_ALL_OLD:
			return ST_RV_ALL_OLD;
		case PQL_RET_MODIFIED_OLD:
			return ST_RV_UPDATED_OLD;
		case PQL_RET_ALL_NEW:
			return ST_RV_ALL_NEW;
		case PQL_RET_MODIFIED_NEW:
			return ST_RV_UPDATED_NEW;
		default:
			return ST_RV_NONE;
	}
}

static void
emit_returned(PartiqlCall *call, const Av *item)
{
	if (item && item->type == AV_M && item->n > 0)
		call->emit(call->arg, NULL, item);
}

static void
run_insert(PartiqlCall *call, const PqlStmt *s, StTable *t)
{
	Av		   *item = partiql_value_of(s->value, call->params);
	StCondition cond;
	StWriteResult res;

	if (item->type != AV_M)
		st_error(ST_ERR_VALIDATION, "The VALUE of an INSERT must be a tuple of attributes");
	ops_check_item(t, item);
	memset(&cond, 0, sizeof(cond));
	cond.holds = insert_absent;
	memset(&res, 0, sizeof(res));
	ops_put(t, item, &cond, ST_RV_NONE, call->cap ? &res : NULL);
	if (call->cap)
		ops_capacity_write(call->cap, t, res.old_item, res.new_item ? res.new_item : item, false);
}

static void
run_write(PartiqlCall *call, const PqlStmt *s)
{
	StTable    *t = ops_table_lookup(s->table);
	PqlKeySchema ks;
	PqlPlan		plan;
	StErr		err;
	StExprRequest req;
	StCondition *cond;
	StWriteResult res;
	Av		   *keymap;
	Av		   *result;

	call->table_name = t->name;
	if (s->kind == PQL_EXISTS)
		st_error(ST_ERR_VALIDATION, "EXISTS can only be used in ExecuteTransaction write requests.");
	if (s->kind == PQL_INSERT)
	{
		run_insert(call, s, t);
		return;
	}
	key_schema(t, NULL, &ks);
	if (!partiql_plan(s, &ks, &plan, &err))
		st_raise(&err);
	keymap = partiql_write_keymap(t, &plan, call->params);
	partiql_bind_request(&req, &plan, call->params);
	memset(&res, 0, sizeof(res));
	if (s->kind == PQL_UPDATE)
	{
		StUpdate   *upd;

		ops_expr_add_update(&req, plan.update);
		upd = ops_expr_write_update(&req, t);
		ops_expr_add_condition(&req, plan.condition, "ConditionExpression");
		ops_expr_finish(&req);
		cond = ops_expr_write_condition(&req);
		if (cond)
			cond->return_item_on_failure = call->return_old_on_failure;
		result = ops_update(t, keymap, upd, cond, returning(s->returning), call->cap ? &res : NULL);
	}
	else
	{
		ops_expr_add_condition(&req, plan.condition, "ConditionExpression");
		ops_expr_finish(&req);
		cond = ops_expr_write_condition(&req);
		if (cond)
			cond->return_item_on_failure = call->return_old_on_failure;
		result = ops_delete(t, keymap, cond, returning(s->returning), call->cap ? &res : NULL);
	}
	emit_returned(call, result);
	if (call->cap)
		ops_capacity_write(call->cap, t, res.old_item, res.new_item, false);
}

void
partiql_execute(PartiqlCall *call)
{
	const PqlStmt *s = partiql_prepare(call->statement);

	call->next_token_out = NULL;
	call->last_key = NULL;
	call->is_read = s->kind == PQL_SELECT;
	call->table_name = s->table;
	partiql_check_params(s, call->params);
	if (s->kind == PQL_SELECT)
		run_select(call, s, hash_bytes((const unsigned char *) call->statement,
									   strlen(call->statement)));
	else
		run_write(call, s);
}

/* The key bytes of a statement's item into out, raising when it has none (see below). */
static void
statement_key(const char *statement, const Av *params, StringInfo out)
{
	const PqlStmt *s = partiql_prepare(statement);
	StTable    *t;
	Av		   *keymap;
	PqlKeySchema ks;
	PqlPlan		plan;
	StErr		err;

	partiql_check_params(s, params);
	if (s->index || s->kind == PQL_EXISTS)
		st_error(ST_ERR_VALIDATION, "no single item");
	t = ops_table_lookup(s->table);
	if (s->kind == PQL_INSERT)
	{
		keymap = partiql_value_of(s->value, params);
		if (keymap->type != AV_M || av_map_get(keymap, t->pk.name, strlen(t->pk.name)) == NULL ||
			(t->sk.name && av_map_get(keymap, t->sk.name, strlen(t->sk.name)) == NULL))
			st_error(ST_ERR_VALIDATION, "no whole key");
	}
	else
	{
		key_schema(t, NULL, &ks);
		if (!partiql_plan(s, &ks, &plan, &err))
			st_raise(&err);
		if (s->kind == PQL_SELECT && plan.access != PQL_ACCESS_GET)
			st_error(ST_ERR_VALIDATION, "no single item");
		keymap = partiql_write_keymap(t, &plan, params);
	}
	appendStringInfoString(out, t->name);
	appendStringInfoChar(out, '\0');
	ops_append_key_bytes(t, keymap, out);
}

bool
partiql_statement_key(const char *statement, const Av *params, StringInfo out)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	StringInfoData key;
	bool		found = true;

	initStringInfo(&key);
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		statement_key(statement, params, &key);
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
		/* a cancel or a lost connection is not the statement's error */
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED || edata->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN)
			ReThrowError(edata);
		found = false;
	}
	PG_END_TRY();
	if (found)
		appendBinaryStringInfo(out, key.data, key.len);
	return found;
}
