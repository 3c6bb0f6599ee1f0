/*-------------------------------------------------------------------------
 *
 * transact.h
 *		TransactWriteItems and TransactGetItems.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_TRANSACT_H
#define ST_TRANSACT_H

#include "postgres.h"

#include "capacity.h"
#include "expr_ops.h"
#include "item_ops.h"

#define ST_TRANSACT_MAX_ACTIONS 100

typedef enum StTxOp
{
	ST_TX_CONDITION_CHECK,
	ST_TX_PUT,
	ST_TX_DELETE,
	ST_TX_UPDATE
} StTxOp;

/* One action of a TransactWriteItems request, validated. */
typedef struct StTxAction
{
	StTxOp		op;
	StTable    *table;
	Av		   *item;			/* Put: the new item */
	Av		   *keymap;			/* the item's key attributes */
	StKey		key;
	char	   *lock_key;		/* table and key as bytes: the lock order */
	int			lock_key_len;
	StExprRequest req;			/* its expressions */
	bool		return_old_on_failure;	/* ReturnValuesOnConditionCheckFailure ALL_OLD */
	/*
	 * The CancellationReason of a false condition: NULL for DynamoDB's
	 * ConditionalCheckFailed; PartiQL's INSERT of an existing item has its
	 * own code and message.
	 */
	const char *failure_code;
	const char *failure_message;

	/* filled while the transaction runs */
	bool		written;		/* already written while locking (unconditional Put) */
	ItemPointerData ctid;
	Av		   *old_item;		/* NULL when the item does not exist */
	bool		key_held;		/* a missing item's key held (storage_lock_absent_key) */
	Av		   *new_item;		/* Put/Update: what gets written */
} StTxAction;

/*
 * The lock-order key of an action: table name, then the key values' bytes
 * (fills lock_key).  Also rejects two actions on one item.
 */
extern void ops_transact_prepare(StTxAction *actions, int n);

/* The write capacity of the actions, into cap (after ops_transact_write). */
extern void ops_transact_count_writes(StCapacity *cap, StTxAction *actions, int n);

/*
 * Run the actions as one all-or-nothing write: lock every item in key
 * order, check every condition, then write.  On any failed condition raise
 * TransactionCanceledException with the CancellationReasons (items in typed
 * form, or plain when `typed` is false) as DETAIL.  With need_old, every
 * action reads its item's old version (ConsumedCapacity needs it); without,
 * a Put that has no condition is written without reading it.
 */
extern void ops_transact_write(StTxAction *actions, int n, bool typed, bool need_old);

/* One action's CancellationReason. */
typedef struct StTxReason
{
	const char *code;			/* None, ConditionalCheckFailed, ValidationError */
	char	   *message;
	const Av   *item;
} StTxReason;

/*
 * Raise TransactionCanceledException with one reason per action, in request
 * order, as DETAIL ({"CancellationReasons": [...]}; items typed or plain).
 */
extern pg_noreturn void ops_transact_cancel(const StTxReason *reasons, int n, bool typed);

#endif							/* ST_TRANSACT_H */
