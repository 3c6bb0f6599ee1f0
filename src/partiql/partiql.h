/*-------------------------------------------------------------------------
 *
 * partiql.h
 *		PartiQL for DynamoDB: ExecuteStatement, BatchExecuteStatement and
 *		ExecuteTransaction's statement language.
 *
 * The life of a statement:
 *
 *	1. partiql_parse() (partiql_lex.c, partiql_parse.c) turns the text
 *	   into a PqlStmt: a hand-written lexer and recursive-descent parser,
 *	   pure C like the expression parser, so that it is unit tested and
 *	   fuzzed without a backend.  The tree is a pure function of the text:
 *	   `?` parameters stay numbered slots, so a parsed statement is cached
 *	   per backend by its text (partiql_exec_pg.c) and reused with any
 *	   Parameters.
 *	2. partiql_plan() (partiql_plan.c, pure too) looks at the statement
 *	   against the key schema it addresses, the way DynamoDB plans it: a
 *	   WHERE that fixes the partition key (= or IN) is a Query in key
 *	   order, one that fixes the whole key a GetItem, anything else a Scan;
 *	   a write's WHERE must fix the whole key.  What is left of the WHERE,
 *	   the SET / REMOVE clauses and the projection are written out as
 *	   DynamoDB expressions (#name and :value placeholders), so that the
 *	   expression language's own evaluator (src/expr, through the cache of
 *	   src/ops) filters, checks conditions and applies updates: there is
 *	   one evaluator, not two.
 *	3. partiql_execute() and partiql_transact() (partiql_exec_pg.c,
 *	   partiql_txn_pg.c) run the plan on the operations layer: ops_get,
 *	   ops_query, ops_scan_range, ops_put, ops_update, ops_delete and
 *	   ops_transact_write, the same code as GetItem ... TransactWriteItems.
 *
 * Errors of the pure parts fill an StErr (ValidationException with
 * DynamoDB's wording); the backend parts raise them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_PARTIQL_H
#define ST_PARTIQL_H

#include "common/st_common.h"
#include "item/av.h"

/* DynamoDB's limits (PartiQLStatement: 1..8192 characters). */
#define PARTIQL_MAX_STATEMENT 8192
#define PARTIQL_MAX_BATCH 25
#define PARTIQL_MAX_TRANSACTION 100

/*
 * Nesting guard of the recursive-descent parser.  An 8 KB statement
 * cannot nest deeper than about 4000 levels ("((((..."); DynamoDB refuses
 * such statements long before (its expression limits), so the guard only
 * bounds the recursion whatever the input (the backend also checks the
 * stack).
 */
#define PARTIQL_MAX_NESTING 1000

/* ---------- the statement tree ---------- */

/* One step of a document path: an attribute name, or a list index (name NULL). */
typedef struct PqlPathElem
{
	char	   *name;
	int			len;
	int			index;
} PqlPathElem;

typedef struct PqlPath
{
	int			n;
	PqlPathElem *elems;			/* elems[0] is always a name */
} PqlPath;

typedef enum PqlNodeKind
{
	/* values */
	PQL_N_LIT,					/* a literal scalar: value */
	PQL_N_PARAM,				/* ?: param (0-based) */
	PQL_N_MAP,					/* {'k': v, ...}: keys, args */
	PQL_N_LIST,					/* [v, ...] */
	PQL_N_SET,					/* <<v, ...>> */
	/* operands */
	PQL_N_PATH,					/* path */
	PQL_N_FUNC,					/* func(args): size, list_append, set_add, ... */
	PQL_N_PLUS,					/* args[0] + args[1] (SET only) */
	PQL_N_MINUS,				/* args[0] - args[1] (SET only) */
	/* conditions */
	PQL_N_CMP,					/* args[0] op args[1] */
	PQL_N_BETWEEN,				/* args[0] BETWEEN args[1] AND args[2] */
	PQL_N_IN,					/* args[0] IN [args[1..]] */
	PQL_N_AND,
	PQL_N_OR,
	PQL_N_NOT,
	PQL_N_IS					/* args[0] IS [NOT] MISSING | NULL */
} PqlNodeKind;

typedef enum PqlCmpOp
{
	PQL_EQ,
	PQL_NE,
	PQL_LT,
	PQL_LE,
	PQL_GT,
	PQL_GE
} PqlCmpOp;

typedef enum PqlFunc
{
	PQL_F_BEGINS_WITH,
	PQL_F_CONTAINS,
	PQL_F_ATTRIBUTE_EXISTS,
	PQL_F_ATTRIBUTE_NOT_EXISTS,
	PQL_F_ATTRIBUTE_TYPE,
	PQL_F_SIZE,
	PQL_F_LIST_APPEND,
	PQL_F_SET_ADD,
	PQL_F_SET_DELETE,
	PQL_F_IF_NOT_EXISTS
} PqlFunc;

typedef struct PqlNode PqlNode;

struct PqlNode
{
	PqlNodeKind kind;
	int			op;				/* CMP: PqlCmpOp; FUNC: PqlFunc; IS: true for NULL, false for MISSING */
	bool		negated;		/* IS NOT */
	PqlPath    *path;			/* PATH */
	Av		   *value;			/* LIT */
	int			param;			/* PARAM */
	int			nargs;
	PqlNode   **args;
	char	  **keys;			/* MAP: member names, one per arg */
	int		   *key_lens;
	int			pos;			/* byte offset in the statement, for messages */
};

typedef enum PqlStmtKind
{
	PQL_SELECT,
	PQL_INSERT,
	PQL_UPDATE,
	PQL_DELETE,
	PQL_EXISTS					/* EXISTS(SELECT ...): a transaction's condition check */
} PqlStmtKind;

typedef enum PqlReturning
{
	PQL_RET_NONE,
	PQL_RET_ALL_OLD,
	PQL_RET_MODIFIED_OLD,
	PQL_RET_ALL_NEW,
	PQL_RET_MODIFIED_NEW
} PqlReturning;

typedef enum PqlUpdateAction
{
	PQL_UPD_SET,
	PQL_UPD_REMOVE
} PqlUpdateAction;

typedef struct PqlUpdateItem
{
	PqlUpdateAction action;
	PqlPath    *path;
	PqlNode    *value;			/* SET's value; NULL for REMOVE */
} PqlUpdateItem;

typedef struct PqlStmt
{
	PqlStmtKind kind;
	char	   *table;
	char	   *index;			/* SELECT ... FROM "T"."I", or NULL */
	int			nproj;			/* 0: SELECT * */
	PqlPath   **proj;
	PqlNode    *where;			/* NULL: none */
	PqlPath    *order_by;		/* NULL: none */
	bool		order_desc;
	PqlNode    *value;			/* INSERT's VALUE */
	int			nupdates;
	PqlUpdateItem *updates;
	PqlReturning returning;
	int			nparams;		/* how many ? it holds */
} PqlStmt;

/*
 * Parse a statement of len bytes (need not be NUL-terminated).  NULL and
 * *err (ValidationException) on a syntax error, an unsupported construct
 * or a limit.  Pure function of the text; the tree never points into it.
 */
extern PqlStmt *partiql_parse(const char *text, int len, StErr *err);

/* Is word (len bytes) one of the statement language's keywords? */
extern bool partiql_is_keyword(const char *word, int len);

/* ---------- planning ---------- */

/* The key schema a statement addresses: the table's, or the index's. */
typedef struct PqlKeySchema
{
	const char *pk;
	AvType		pk_type;
	const char *sk;				/* NULL: no sort key */
	AvType		sk_type;
	bool		is_index;		/* a secondary index: keys are not unique */
	/*
	 * A GSI key of several attributes (nkeys 0 otherwise): npk partition-key
	 * attributes, then the sort-key ones, in key schema order.
	 */
	int			nkeys;
	int			npk;
	const char **key_names;
} PqlKeySchema;

#define PQL_MAX_KEYS 8

typedef enum PqlAccess
{
	PQL_ACCESS_GET,				/* the whole key: GetItem */
	PQL_ACCESS_QUERY,			/* the partition key (= or IN): Query */
	PQL_ACCESS_SCAN				/* anything else */
} PqlAccess;

typedef enum PqlSortOp
{
	PQL_SK_NONE,
	PQL_SK_EQ,
	PQL_SK_LT,
	PQL_SK_LE,
	PQL_SK_GT,
	PQL_SK_GE,
	PQL_SK_BETWEEN,
	PQL_SK_BEGINS_WITH
} PqlSortOp;

typedef struct PqlPlan
{
	PqlAccess	access;
	int			npk;			/* partition-key values (IN: several) */
	PqlNode   **pk_values;
	PqlSortOp	sk_op;
	PqlNode    *sk1;
	PqlNode    *sk2;			/* BETWEEN's upper bound */
	/*
	 * A Query of a multi-attribute key: the first nmulti key attributes
	 * with =, the next one bounded by sk_op (PQL_SK_NONE: none).
	 */
	bool		multi;
	int			nmulti;
	PqlNode    *multi_values[PQL_MAX_KEYS];
	bool		forward;		/* ORDER BY ... ASC (the default) */
	/* expressions, NULL when there is none */
	char	   *filter;			/* SELECT: what the key range leaves of the WHERE */
	char	   *condition;		/* writes and EXISTS: the condition */
	char	   *update;			/* UPDATE: SET / REMOVE as an UpdateExpression */
	char	   *projection;		/* SELECT a, b.c: a ProjectionExpression */
	Av		   *names;			/* "#n0" -> attribute name (AV_M), or NULL */
	int			nvalues;		/* ":v0".. and the nodes that give them */
	PqlNode   **values;
} PqlPlan;

/*
 * Plan a parsed statement against the key schema it addresses.  false and
 * *err (ValidationException) when the statement cannot run: an ORDER BY
 * that is not the sort key, a write whose WHERE does not fix the whole
 * key, a RETURNING that the statement does not allow.
 */
extern bool partiql_plan(const PqlStmt *s, const PqlKeySchema *keys, PqlPlan *plan,
						 StErr *err);

/*
 * The value of a value node (literal, parameter, map, list, set) with the
 * statement's parameters (params: an AV_L, or NULL).  A fresh tree.  NULL
 * and *err when a set is empty, mixes types or repeats a member.
 */
extern Av  *partiql_value(const PqlNode *n, const Av *params, StErr *err);

/* The plan's ExpressionAttributeValues (":v0" -> value), or NULL when it has none. */
extern Av  *partiql_plan_values(const PqlPlan *plan, const Av *params, StErr *err);

/* Is a value node constant (no path or function inside)? */
extern bool partiql_is_value(const PqlNode *n);

#ifndef ST_STANDALONE

#include "utils/jsonb.h"

#include "ops/capacity.h"
#include "ops/expr_ops.h"
#include "ops/item_ops.h"

/* ---------- execution (partiql_exec_pg.c) ---------- */

/*
 * Shared by single statements and transactions: the parameter count
 * checked against the statement's ?s; a value node's value (raising its
 * error); the plan's names and values bound into an expression request;
 * the full key a write statement fixes, as a key map of table t.
 */
extern void partiql_check_params(const PqlStmt *s, const Av *params);
extern Av  *partiql_value_of(const PqlNode *n, const Av *params);
extern void partiql_bind_request(StExprRequest *req, const PqlPlan *plan, const Av *params);
extern Av  *partiql_write_keymap(StTable *t, const PqlPlan *plan, const Av *params);

/*
 * Where the items of a statement go: a stored item as it is (stored not
 * NULL: a SELECT * without a filter), or an item (item not NULL).
 */
typedef void (*PartiqlEmit) (void *arg, Jsonb *stored, const Av *item);

typedef enum PartiqlMode
{
	PARTIQL_MODE_STATEMENT,		/* ExecuteStatement, st_partiql */
	PARTIQL_MODE_BATCH			/* one statement of BatchExecuteStatement */
} PartiqlMode;

typedef struct PartiqlCall
{
	/* in */
	const char *statement;
	const Av   *params;			/* an AV_L of the Parameters, or NULL */
	PartiqlMode mode;
	bool		consistent;
	int64		limit;			/* items to read at most, or -1 */
	const char *next_token;		/* NextToken, or NULL */
	StCapacity *cap;			/* ConsumedCapacity, or NULL */
	bool		return_old_on_failure;	/* ReturnValuesOnConditionCheckFailure ALL_OLD */
	PartiqlEmit emit;
	void	   *arg;
	/* out */
	const char *table_name;		/* the table the statement addressed */
	bool		is_read;		/* a SELECT */
	char	   *next_token_out; /* more to read: the NextToken, else NULL */
	Av		   *last_key;		/* and the key of the last item read */
} PartiqlCall;

/* The parsed statement, from the per-backend cache or parsed now; raises on error. */
extern const PqlStmt *partiql_prepare(const char *statement);

/* The same, or NULL with *err (a statement that does not parse, or is too long). */
extern const PqlStmt *partiql_try_prepare(const char *statement, StErr *err);

/* Is the statement a read (SELECT): 1, 0, or -1 when it does not parse. */
extern int	partiql_is_read(const char *statement);

/* Run one statement; raises DynamoDB's errors. */
extern void partiql_execute(PartiqlCall *call);

/*
 * The item one statement of a batch addresses (a SELECT of one whole key,
 * an INSERT, UPDATE or DELETE): its table's name and its key's bytes
 * (ops_append_key_bytes) appended to out, true; false, out unchanged, when
 * the statement does not get as far as an item (its error is then the
 * statement's own, when it runs).  Runs in a subtransaction of its own.
 */
extern bool partiql_statement_key(const char *statement, const Av *params, StringInfo out);

/* How many statements this backend parsed (cache misses), for tests. */
extern int64 partiql_parse_count(void);

/* ---------- transactions (partiql_txn_pg.c) ---------- */

/*
 * ExecuteTransaction's statements: all reads (each a SELECT of one whole
 * key; emit gets each item, or item NULL and stored NULL for a miss, in
 * order) or all writes (INSERT, UPDATE, DELETE, EXISTS), run all or
 * nothing by ops_transact_write.
 */
extern void partiql_transact(const char *const *statements, const Av *const *params, int n,
							 StCapacity *cap, bool typed, PartiqlEmit emit, void *arg);

#endif							/* ST_STANDALONE */

#endif							/* ST_PARTIQL_H */
