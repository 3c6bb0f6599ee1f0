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
 *	   COMMITTED also returns its latest committed version.  A missing item
 *	   has no row to lock: its key is held by a lock of the transaction on
 *	   the key (storage_lock_absent_key), taken once no item with the key
 *	   exists or is being written, and which every stdesign write that could
 *	   create the item waits for; if an item with the key was committed
 *	   meanwhile, it is read again and locked.  Nothing is written to hold a
 *	   key: a ConditionCheck or a Delete of a missing item writes nothing at
 *	   all (no trigger fires, logical decoding sees nothing, no INSERT
 *	   privilege or policy is involved).
 *	   An item that row-level security hides from the role is, for the
 *	   role, missing, as for its statements (whatever the key index says):
 *	   nothing is held for it, and a Put or Update that would create it is
 *	   refused when it tries (storage_insert).
 *	2. Evaluate every condition (and every update) against the locked
 *	   versions.  If any fails, raise TransactionCanceledException with one
 *	   CancellationReason per action, in request order; the error undoes
 *	   what was written and releases the locks.
 *	3. Write: Put and Update replace the locked row, or insert the missing
 *	   item (whose index entry then holds the key: its lock is let go);
 *	   Delete deletes the locked row.  A ConditionCheck or Delete of a
 *	   missing item keeps its key's lock until the transaction ends, so the
 *	   checked absence holds until then.
 *
 * Row locks, index entries and the key locks of missing items of
 * ConditionChecks and Deletes are all that is held: writes of many items
 * pile nothing up in the lock table.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

#include "collection.h"
#include "item/av_jsonb.h"
#include "traffic.h"
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
 * Lock one action's item, or the key of a missing one.  A Put without a
 * condition needs no old version: it is written at once (its row lock or
 * new index entry taken in the same order as every other lock), and if the
 * transaction is cancelled later the error undoes it.
 */
static void
lock_item(StTxAction *a, bool need_old)
{
	StTable    *t = a->table;

	if (a->op == ST_TX_PUT && a->req.condition == NULL && !need_old)
	{
		storage_upsert(t, av_item_to_jsonb(a->item, true));
		ops_traffic_write(t, NULL, a->item, true);
		a->written = true;
		return;
	}
	/* a Delete of a missing item deletes nothing, but is a DELETE all the same */
	if (a->op == ST_TX_DELETE)
		storage_require_privilege(t, ACL_DELETE);
	for (int attempt = 0; attempt < 100; attempt++)
	{
		Jsonb	   *old = storage_get_for_update(t, &a->key, &a->ctid);

		if (old)
		{
			a->old_item = av_item_from_stored(old);
			return;
		}
		switch (storage_lock_absent_key(t, &a->key))
		{
			case ST_KEY_HELD:
				a->old_item = NULL; /* the item is absent; its key is ours */
				a->key_held = true;
				return;
			case ST_KEY_HIDDEN:
				/*
				 * Row-level security hides the item: for this role it is
				 * missing, as for a statement, and there is no absence to
				 * hold (a Put or Update creating it is refused).
				 */
				a->old_item = NULL;
				return;
			case ST_KEY_EXISTS:
				break;
		}
		/* a concurrent writer created the item first: read it again */
	}
	st_error(ST_ERR_TRANSACTION_CONFLICT,
			 "Transaction is ongoing for the item; the transaction could not acquire it");
}

/* ---------- phase 2: conditions ---------- */

/* Evaluate one action; false (with *r filled) when it cancels the transaction. */
static bool
check_action(StTxAction *a, StTxReason *r)
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
			r->code = a->failure_code ? a->failure_code : "ConditionalCheckFailed";
			r->message = a->failure_message ? (char *) a->failure_message : "The conditional request failed";
			r->item = a->return_old_on_failure ? a->old_item : NULL;
			return false;
		}
	}
	if (a->op == ST_TX_UPDATE && a->old_item == NULL && a->req.update &&
		!expr_update_creates(a->req.update))
		a->new_item = NULL;		/* only removes: a missing item stays missing */
	else if (a->op == ST_TX_UPDATE)
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

void
ops_transact_cancel(const StTxReason *reasons, int n, bool typed)
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

/* A missing item of a Put or Update: inserted, its key's lock let go. */
static void
insert_missing(StTxAction *a)
{
	/*
	 * Only a writer that does not respect key locks (a user's own INSERT)
	 * can have created the item since its key was locked.
	 */
	if (!storage_insert(a->table, av_item_to_jsonb(a->new_item, true), NULL))
		st_error(ST_ERR_TRANSACTION_CONFLICT,
				 "Transaction is ongoing for the item; the transaction could not acquire it");
	if (a->key_held)
		storage_unlock_absent_key(a->table, &a->key);
}

static void
write_action(StTxAction *a)
{
	if (a->written)
		return;
	ops_traffic_write(a->table, a->old_item,
					  a->op == ST_TX_DELETE ? NULL : a->new_item, true);
	switch (a->op)
	{
		case ST_TX_PUT:
		case ST_TX_UPDATE:
			if (a->old_item == NULL && a->new_item == NULL)
				break;			/* an update that only removes, of a missing item */
			if (a->old_item == NULL)
				insert_missing(a);
			else
				(void) storage_replace(a->table, &a->ctid, av_item_to_jsonb(a->new_item, true));
			break;
		case ST_TX_DELETE:
			if (a->old_item != NULL)
				storage_delete_ctid(a->table, &a->ctid, &a->key);
			break;
		case ST_TX_CONDITION_CHECK:
			/* an existing item stays locked, a missing one's key too */
			break;
	}
}

void
ops_transact_write(StTxAction *actions, int n, bool typed, bool need_old)
{
	StTxAction **order = palloc(sizeof(StTxAction *) * Max(1, n));
	StTxReason	   *reasons = palloc0(sizeof(StTxReason) * Max(1, n));
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
		ops_transact_cancel(reasons, n, typed);

	for (int i = 0; i < n; i++)
		write_action(&actions[i]);

	/* a write that took an item collection past its limit cancels them all */
	for (int i = 0; i < n; i++)
	{
		StErr		err;
		const Av   *written = actions[i].new_item ? actions[i].new_item :
			actions[i].op == ST_TX_PUT ? actions[i].item : NULL;

		reasons[i].code = "None";
		reasons[i].message = NULL;
		reasons[i].item = NULL;
		if ((actions[i].op == ST_TX_PUT || actions[i].op == ST_TX_UPDATE) && written &&
			!ops_item_collection_fits(actions[i].table, written, &err))
		{
			reasons[i].code = "ItemCollectionSizeLimitExceeded";
			reasons[i].message = pstrdup(err.message);
			cancelled = true;
		}
	}
	if (cancelled)
		ops_transact_cancel(reasons, n, typed);
}

/*
 * The write capacity of a transaction's actions (TransactWriteItems and
 * PartiQL's ExecuteTransaction): each counted as a transactional write of
 * what it changes; a ConditionCheck as the item as it is (no index changes).
 */
void
ops_transact_count_writes(StCapacity *cap, StTxAction *actions, int n)
{
	for (int i = 0; i < n; i++)
	{
		StTxAction *a = &actions[i];

		switch (a->op)
		{
			case ST_TX_PUT:
			case ST_TX_UPDATE:
				ops_capacity_write(cap, a->table, a->old_item, a->new_item, true);
				break;
			case ST_TX_DELETE:
				ops_capacity_write(cap, a->table, a->old_item, NULL, true);
				break;
			case ST_TX_CONDITION_CHECK:
				ops_capacity_write(cap, a->table, a->old_item, a->old_item, true);
				break;
		}
	}
}
