/*-------------------------------------------------------------------------
 *
 * transact.c
 *		TransactWriteItems: up to 100 actions on distinct items, all or
 *		nothing, inside the caller's Postgres transaction.
 *
 * Three phases:
 *
 *	1. Lock every item, in one global order (table name, then key bytes), so
 *	   that two transactions over the same items can never deadlock, whatever
 *	   order their requests list them in.  An existing item is locked by a
 *	   locking read (as SELECT ... FOR UPDATE would), which in READ
 *	   COMMITTED also returns its latest committed version.  A missing item has no row to lock: a placeholder
 *	   row holding just its key is inserted, so that the unique index makes
 *	   every concurrent writer of that key wait for this transaction; if a
 *	   concurrent writer inserted the key first, the item is read again and
 *	   locked.
 *	2. Evaluate every condition (and every update) against the locked
 *	   versions.  If any fails, raise TransactionCanceledException with one
 *	   CancellationReason per action, in request order; the error undoes the
 *	   placeholders with everything else of the statement.
 *	3. Write: Put and Update replace the row (or the placeholder), Delete
 *	   deletes it, and a ConditionCheck or Delete of a missing item deletes
 *	   its placeholder — whose index entry keeps the key locked until commit,
 *	   so the checked absence holds until then.
 *
 * Row locks and index entries are the only locks taken: nothing piles up in
 * the lock table however many transactions one statement runs.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "item/av_jsonb.h"
#include "transact.h"

/* ---------- ordering ---------- */

static int
lock_key_cmp(const void *a, const void *b)
{
	const StTxAction *x = *(StTxAction *const *) a;
	const StTxAction *y = *(StTxAction *const *) b;

	return ops_key_bytes_cmp(x->lock_key, x->lock_key_len, y->lock_key, y->lock_key_len);
}

void
ops_transact_prepare(StTxAction *actions, int n)
{
	StTxAction **sorted = palloc(sizeof(StTxAction *) * Max(1, n));

	for (int i = 0; i < n; i++)
	{
		StTxAction *a = &actions[i];
		StTable    *t = a->table;
		StringInfoData buf;

		initStringInfo(&buf);
		appendBinaryStringInfo(&buf, t->name, strlen(t->name) + 1);
		ops_append_key_bytes(t, a->keymap, &buf);
		a->lock_key = buf.data;
		a->lock_key_len = buf.len;
		sorted[i] = a;
	}
	qsort(sorted, n, sizeof(StTxAction *), lock_key_cmp);
	for (int i = 1; i < n; i++)
	{
		if (lock_key_cmp(&sorted[i - 1], &sorted[i]) == 0)
			st_error(ST_ERR_VALIDATION,
					 "Transaction request cannot include multiple operations on one item");
	}
	pfree(sorted);
}

/* ---------- phase 1: locks ---------- */

/*
 * Lock one action's item; a missing one gets a placeholder row.  A Put
 * without a condition needs no old version: it is written at once (its row
 * lock or new index entry taken in the same order as every other lock), and
 * if the transaction is cancelled later the error undoes it.
 */
static void
lock_item(StTxAction *a, bool need_old)
{
	StTable    *t = a->table;
	Jsonb	   *placeholder = NULL;

	if (a->op == ST_TX_PUT && a->req.condition == NULL && !need_old)
	{
		storage_upsert(t, av_item_to_jsonb(a->item, true));
		a->written = true;
		return;
	}
	for (int attempt = 0; attempt < 100; attempt++)
	{
		Jsonb	   *old = storage_get_for_update(t, &a->key, &a->ctid);

		if (old)
		{
			a->old_item = av_item_from_stored(old);
			return;
		}
		if (placeholder == NULL)
			placeholder = av_item_to_jsonb(a->keymap, true);
		if (storage_insert(t, placeholder, &a->ctid))
		{
			a->old_item = NULL;	/* the item is absent; its key is ours */
			return;
		}
		/* a concurrent writer created the item first: read it again */
	}
	st_error(ST_ERR_TRANSACTION_CONFLICT,
			 "Transaction is ongoing for the item; the transaction could not acquire it");
}

/* ---------- phase 2: conditions ---------- */

typedef struct Reason
{
	const char *code;			/* None, ConditionalCheckFailed, ValidationError */
	char	   *message;
	const Av   *item;
} Reason;

/* Evaluate one action; false (with *r filled) when it cancels the transaction. */
static bool
check_action(StTxAction *a, Reason *r)
{
	StErr		err;
	const ExprParams *p = ops_expr_params(&a->req);

	r->code = "None";
	if (a->req.condition)
	{
		bool		holds;

		if (!expr_eval_condition(a->req.condition, a->old_item, p, &holds, &err))
		{
			r->code = "ValidationError";
			r->message = pstrdup(err.message);
			return false;
		}
		if (!holds)
		{
			r->code = "ConditionalCheckFailed";
			r->message = "The conditional request failed";
			r->item = a->return_old_on_failure ? a->old_item : NULL;
			return false;
		}
	}
	if (a->op == ST_TX_UPDATE)
	{
		a->new_item = a->old_item ? av_copy(a->old_item) : av_copy(a->keymap);
		if (a->req.update &&
			!expr_apply_update(a->req.update, a->new_item, ops_expr_params(&a->req), NULL, &err))
		{
			r->code = "ValidationError";
			r->message = pstrdup(err.message);
			return false;
		}
	}
	else if (a->op == ST_TX_PUT)
		a->new_item = a->item;
	if (a->new_item && !ops_validate_item(a->table, a->new_item, &err))
	{
		r->code = "ValidationError";
		r->message = pstrdup(err.message);
		return false;
	}
	return true;
}

static void
append_json_string(StringInfo buf, const char *s)
{
	Jsonb	   *jb = av_value_to_jsonb(av_new_str(AV_S, s, strlen(s)), false);

	appendStringInfoString(buf, JsonbToCString(NULL, &jb->root, VARSIZE(jb)));
}

/* Raise TransactionCanceledException with the reasons as DETAIL. */
static void
cancel(Reason *reasons, int n, bool typed)
{
	StringInfoData detail;
	StringInfoData codes;
	StErr		err;

	initStringInfo(&detail);
	initStringInfo(&codes);
	appendStringInfoString(&detail, "{\"CancellationReasons\": [");
	for (int i = 0; i < n; i++)
	{
		appendStringInfo(&detail, "%s{\"Code\": \"%s\"", i ? ", " : "", reasons[i].code);
		appendStringInfo(&codes, "%s%s", i ? ", " : "", reasons[i].code);
		if (reasons[i].message)
		{
			appendStringInfoString(&detail, ", \"Message\": ");
			append_json_string(&detail, reasons[i].message);
		}
		if (reasons[i].item)
		{
			Jsonb	   *jb = av_item_to_jsonb(reasons[i].item, typed);

			appendStringInfo(&detail, ", \"Item\": %s", JsonbToCString(NULL, &jb->root, VARSIZE(jb)));
		}
		appendStringInfoChar(&detail, '}');
	}
	appendStringInfoString(&detail, "]}");
	st_fail(&err, ST_ERR_TRANSACTION_CANCELED,
			"Transaction cancelled, please refer cancellation reasons for specific reasons [%s]",
			codes.data);
	err.detail = detail.data;
	st_raise(&err);
}

/* ---------- phase 3: writes ---------- */

static void
write_action(StTxAction *a)
{
	if (a->written)
		return;
	switch (a->op)
	{
		case ST_TX_PUT:
		case ST_TX_UPDATE:
			storage_replace(a->table, &a->ctid, av_item_to_jsonb(a->new_item, true));
			break;
		case ST_TX_DELETE:
			storage_delete_ctid(a->table, &a->ctid);
			break;
		case ST_TX_CONDITION_CHECK:
			/* an existing item stays locked; a placeholder goes, its index entry stays */
			if (a->old_item == NULL)
				storage_delete_ctid(a->table, &a->ctid);
			break;
	}
}

void
ops_transact_write(StTxAction *actions, int n, bool typed, bool need_old)
{
	StTxAction **order = palloc(sizeof(StTxAction *) * Max(1, n));
	Reason	   *reasons = palloc0(sizeof(Reason) * Max(1, n));
	bool		cancelled = false;

	for (int i = 0; i < n; i++)
		order[i] = &actions[i];
	qsort(order, n, sizeof(StTxAction *), lock_key_cmp);
	for (int i = 0; i < n; i++)
		lock_item(order[i], need_old);

	for (int i = 0; i < n; i++)
		if (!check_action(&actions[i], &reasons[i]))
			cancelled = true;
	if (cancelled)
		cancel(reasons, n, typed);

	for (int i = 0; i < n; i++)
		write_action(&actions[i]);
}
