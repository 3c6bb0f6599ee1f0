/*-------------------------------------------------------------------------
 *
 * expr.h
 *		DynamoDB's expression language: ConditionExpression, FilterExpression,
 *		UpdateExpression, ProjectionExpression and KeyConditionExpression.
 *
 * The life of an expression:
 *
 *	1. expr_parse() turns the text into an AST.  It is a pure function of
 *	   (kind, text): #name and :value placeholders stay unresolved in the
 *	   tree, so a parsed expression can be cached per backend keyed by the
 *	   kind and the text, and reused with any names/values maps.
 *	2. expr_bind() checks the tree against one request's
 *	   ExpressionAttributeNames / ExpressionAttributeValues: every
 *	   placeholder defined, operand types that can be checked without the
 *	   item, update and projection paths that overlap.  It marks which
 *	   names and values were used; after every expression of the request
 *	   was bound, expr_check_unused() reports the unused ones.
 *	3. The evaluators (condition, update, projection, key condition) read
 *	   the item and resolve placeholders through the same ExprParams.
 *
 * Memory: everything is palloc'd in the current memory context.  The tree
 * returned by expr_parse() never points into the caller's text and never
 * into the names/values maps, so parsing inside a dedicated memory context
 * makes that context the sole owner of the tree (that is how the cache is
 * meant to hold it); expr_copy() is not needed.  The AST is read-only after
 * parsing: binding and evaluation never modify it.
 *
 * Errors: every function that can fail fills an StErr (always a
 * ValidationException for bad input, with DynamoDB's wording) and returns
 * false or NULL.  Nothing here calls ereport().
 *
 * Pure C: no backend needed (see st_common.h).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_EXPR_H
#define ST_EXPR_H

#include "common/st_common.h"
#include "../item/av.h"

/* DynamoDB's limits on expressions. */
#define EXPR_MAX_BYTES 4096			/* expression string */
#define EXPR_MAX_IN_OPERANDS 100	/* right-hand side of IN */
#define EXPR_MAX_OPERATORS 300		/* operators and functions */
#define EXPR_MAX_PATH_DEPTH 32		/* elements in one document path */
/*
 * DynamoDB limits an expression by its operators and its size, not by how
 * deeply it nests: every nesting level but the first needs an operator of
 * its own (parentheses that only wrap parentheses are refused as
 * redundant), so the 300 operators bound the depth.  The parser still keeps
 * a guard of its own, far above anything DynamoDB accepts, so that its
 * recursion is bounded whatever the input (and checks the stack in the
 * backend).
 */
#define EXPR_MAX_NESTING 1000		/* parentheses / NOT / function nesting */
#define EXPR_MAX_LIST_INDEX 2147483647	/* a list index is a 32-bit integer */

typedef enum ExprKind
{
	EXPR_CONDITION,				/* ConditionExpression (and Filter: see below) */
	EXPR_UPDATE,
	EXPR_PROJECTION,
	EXPR_KEY_CONDITION,
	EXPR_FILTER					/* parses exactly as EXPR_CONDITION; only the
								 * "Invalid FilterExpression:" label differs */
} ExprKind;

/* ---------- the AST ---------- */

typedef enum ExprPathElemKind
{
	EXPR_PE_NAME,				/* a bare attribute name: a */
	EXPR_PE_PLACEHOLDER,		/* #name, resolved through ExpressionAttributeNames */
	EXPR_PE_INDEX				/* a list element: [3] */
} ExprPathElemKind;

typedef struct ExprPathElem
{
	ExprPathElemKind kind;
	char	   *name;			/* NAME: the name; PLACEHOLDER: "#name" */
	int			len;
	int			index;			/* INDEX */
} ExprPathElem;

/* A document path: a.b[2].#c -> NAME a, NAME b, INDEX 2, PLACEHOLDER #c. */
typedef struct ExprPath
{
	int			n;
	ExprPathElem *elems;		/* elems[0] is never an INDEX */
} ExprPath;

typedef enum ExprNodeKind
{
	/* operands (produce a value) */
	EXPR_N_PATH,				/* path */
	EXPR_N_VALUE,				/* :value placeholder; name is ":value" */
	EXPR_N_SIZE,				/* size(operand) */
	EXPR_N_IF_NOT_EXISTS,		/* if_not_exists(path, operand) - update only */
	EXPR_N_LIST_APPEND,			/* list_append(operand, operand) - update only */
	EXPR_N_PLUS,				/* operand + operand - update only */
	EXPR_N_MINUS,				/* operand - operand - update only */
	/* conditions (produce true/false) */
	EXPR_N_CMP,					/* args[0] op args[1] */
	EXPR_N_BETWEEN,				/* args[0] BETWEEN args[1] AND args[2] */
	EXPR_N_IN,					/* args[0] IN (args[1..nargs)) */
	EXPR_N_AND,
	EXPR_N_OR,
	EXPR_N_NOT,
	EXPR_N_ATTR_EXISTS,			/* attribute_exists(path) */
	EXPR_N_ATTR_NOT_EXISTS,		/* attribute_not_exists(path) */
	EXPR_N_ATTR_TYPE,			/* attribute_type(path, operand) */
	EXPR_N_BEGINS_WITH,			/* begins_with(operand, operand) */
	EXPR_N_CONTAINS				/* contains(operand, operand) */
} ExprNodeKind;

typedef enum ExprCmpOp
{
	EXPR_EQ,
	EXPR_NE,
	EXPR_LT,
	EXPR_LE,
	EXPR_GT,
	EXPR_GE
} ExprCmpOp;

typedef struct ExprNode ExprNode;

struct ExprNode
{
	ExprNodeKind kind;
	ExprCmpOp	op;				/* EXPR_N_CMP */
	ExprPath   *path;			/* EXPR_N_PATH */
	char	   *name;			/* EXPR_N_VALUE: ":value" (NUL-terminated) */
	int			name_len;
	int			nargs;
	ExprNode  **args;
};

typedef enum ExprUpdateAction
{
	EXPR_UPD_SET,
	EXPR_UPD_REMOVE,
	EXPR_UPD_ADD,
	EXPR_UPD_DELETE
} ExprUpdateAction;

/* One action of an UpdateExpression: SET path = value, REMOVE path, ADD path :v, DELETE path :v. */
typedef struct ExprUpdateItem
{
	ExprUpdateAction action;
	ExprPath   *path;
	ExprNode   *value;			/* NULL for REMOVE */
} ExprUpdateItem;

typedef struct StExpr
{
	ExprKind	kind;
	ExprNode   *cond;			/* CONDITION, FILTER, KEY_CONDITION */
	int			nitems;			/* UPDATE: actions in text order */
	ExprUpdateItem *items;
	int			npaths;			/* PROJECTION */
	ExprPath  **paths;
} StExpr;

/* ---------- placeholders ---------- */

/*
 * One request's ExpressionAttributeNames (AV_M "#n" -> AV_S) and
 * ExpressionAttributeValues (AV_M ":v" -> any), either may be NULL.
 * names_used / values_used, when not NULL, have one slot per member of the
 * map (same index as map->members) and are set by expr_bind().
 */
typedef struct ExprParams
{
	const Av   *names;
	const Av   *values;
	bool	   *names_used;
	bool	   *values_used;
} ExprParams;

/* ---------- parsing and binding ---------- */

/*
 * Parse text (len bytes; need not be NUL-terminated) as an expression of
 * the given kind.  NULL and *err on a syntax error, a bare reserved word,
 * or a limit exceeded.  Pure function of (kind, text).
 */
extern StExpr *expr_parse(ExprKind kind, const char *text, int len, StErr *err);

/* "ConditionExpression", "UpdateExpression", ... (the label of messages). */
extern const char *expr_kind_label(ExprKind kind);

/*
 * Check the placeholder maps themselves (key syntax, attribute names not
 * empty).  Call once per request, before binding.
 */
extern bool expr_check_params(const ExprParams *p, StErr *err);

/*
 * Check e against p: placeholders defined, value operands of the right type,
 * update / projection paths distinct.  Marks used names and values.
 */
extern bool expr_bind(const StExpr *e, ExprParams *p, StErr *err);

/* After all expressions of a request were bound: error on unused names or values. */
extern bool expr_check_unused(const ExprParams *p, StErr *err);

/* ---------- evaluation ---------- */

/*
 * Evaluate a ConditionExpression / FilterExpression against item (an AV_M,
 * or NULL when the item does not exist).  Type mismatches make comparisons
 * false, not errors.  e must have been bound with p.
 */
extern bool expr_eval_condition(const StExpr *cond, const Av *item, const ExprParams *p,
								bool *result, StErr *err);

/* One attribute path an update touched, with placeholders resolved. */
typedef struct ExprResolvedPath
{
	int			n;
	ExprPathElem *elems;		/* kinds NAME and INDEX only */
} ExprResolvedPath;

/*
 * What an update touched: the resolved target path of every action (in
 * action order) and the distinct top-level attribute names among them.
 * All strings are palloc'd copies.
 */
typedef struct ExprUpdateInfo
{
	int			npaths;
	ExprResolvedPath *paths;
	int			nnames;
	char	  **names;
	int		   *name_lens;
} ExprUpdateInfo;

/*
 * Apply an UpdateExpression to item (an AV_M: the existing item, or an empty
 * map for an item that does not exist yet) IN PLACE.  Every operand is
 * evaluated against the item as it was before the update, as DynamoDB does.
 * On error item may be partly modified: work on a copy (av_copy) when the
 * original must survive.  info may be NULL.
 */
extern bool expr_apply_update(const StExpr *upd, Av *item, const ExprParams *p,
							  ExprUpdateInfo *info, StErr *err);

/*
 * Does the update write anything into an item that does not exist?  Only
 * SET and ADD do: an update that only REMOVEs or DELETEs (an expression,
 * or AttributeUpdates with DELETE actions) leaves a missing item missing.
 */
extern bool expr_update_creates(const StExpr *upd);

/*
 * Does the update touch top-level attribute name (len bytes)?  For the
 * caller's "key attributes cannot be updated" check; e bound with p.
 */
extern bool expr_update_touches_attr(const StExpr *upd, const ExprParams *p,
									 const char *name, int len);

/*
 * Project item through a ProjectionExpression: a new AV_M holding only the
 * requested paths, nested as DynamoDB returns them (a.b -> {"a":{"b":..}},
 * a[1] -> {"a":[elem]}); missing paths are omitted.  item may be NULL
 * (result NULL).  The result shares nothing with item.
 */
extern Av  *expr_project(const StExpr *proj, const Av *item, const ExprParams *p);

/* Project item through resolved paths (e.g. ExprUpdateInfo.paths, for UPDATED_OLD/NEW). */
extern Av  *expr_project_resolved(const ExprResolvedPath *paths, int npaths, const Av *item);

/* ---------- KeyConditionExpression ---------- */

typedef enum ExprKeyOp
{
	EXPR_KEY_EQ,
	EXPR_KEY_LT,
	EXPR_KEY_LE,
	EXPR_KEY_GT,
	EXPR_KEY_GE,
	EXPR_KEY_BETWEEN,
	EXPR_KEY_BEGINS_WITH
} ExprKeyOp;

/* One condition of a key condition, as parsed (placeholders unresolved). */
typedef struct ExprKeyTerm
{
	ExprKeyOp	op;
	const ExprPath *path;		/* a single-element path (attribute or #name) */
	const char *value1;			/* ":v" */
	const char *value2;			/* ":hi" for BETWEEN, else NULL */
} ExprKeyTerm;

/* The one or two conditions of a parsed key condition, in text order; returns the count. */
extern int	expr_key_terms(const StExpr *kc, ExprKeyTerm *terms);

/* A key condition resolved against a table's (or index's) key schema. */
typedef struct ExprKeyCondition
{
	const Av   *pk_value;		/* partition key = this */
	bool		has_sk;			/* is there a sort-key condition? */
	ExprKeyOp	sk_op;
	const Av   *sk_value1;
	const Av   *sk_value2;		/* BETWEEN upper bound */
} ExprKeyCondition;

/*
 * Resolve a bound key condition against the key schema: pk (and sk, or
 * NULL for a hash-only key) are the key attribute names.  Errors follow
 * DynamoDB ("Query condition missed key schema element: pk", ...).  The Av
 * pointers point into p->values.
 */
extern bool expr_key_condition(const StExpr *kc, const ExprParams *p,
							   const char *pk, int pk_len, const char *sk, int sk_len,
							   ExprKeyCondition *out, StErr *err);

/*
 * A key condition against a multi-attribute key (a GSI's, up to 4 HASH and
 * 4 RANGE attributes): names[0..nkeys-1] are the key attributes in key
 * order; out gets, per key attribute, the term on it (has[i], op[i],
 * value1[i], value2[i] for BETWEEN), unchecked against the roles of the
 * attributes (the caller knows them); other_attribute: a term is on an
 * attribute outside the key.  Two terms on one attribute are an error.
 */
#define EXPR_MAX_KEY_ATTRIBUTES 8
typedef struct ExprKeyConditionMulti
{
	bool		has[EXPR_MAX_KEY_ATTRIBUTES];
	ExprKeyOp	op[EXPR_MAX_KEY_ATTRIBUTES];
	const Av   *value1[EXPR_MAX_KEY_ATTRIBUTES];
	const Av   *value2[EXPR_MAX_KEY_ATTRIBUTES];
	bool		other_attribute;
} ExprKeyConditionMulti;

extern bool expr_key_condition_multi(const StExpr *kc, const ExprParams *p,
									 int nkeys, const char *const *names,
									 ExprKeyConditionMulti *out, StErr *err);

/* ---------- legacy parameters (expr_legacy.c) ---------- */

/*
 * DynamoDB's parameters from before expressions - Expected, QueryFilter,
 * ScanFilter, KeyConditions, AttributeUpdates, AttributesToGet - are
 * translated into the same trees as the expressions, and then bound,
 * evaluated and applied by the same code.
 *
 * Input: the parameter as an Av tree in plain form (JSON object -> AV_M,
 * string -> AV_S, boolean -> AV_BOOL, array -> AV_L), except that each
 * element of an AttributeValueList and each Value is the typed
 * AttributeValue it stands for.  Attribute names go into paths as NAME
 * steps: a legacy name is always one whole top-level attribute, whatever
 * characters or reserved words it holds.  Each value is added to `values`
 * (an AV_M: the request's ExpressionAttributeValues, or a new map) under a
 * generated placeholder that no request can spell (":legacy.0", ...), and
 * the tree refers to it like any :value.
 *
 * Validation follows DynamoDB, with its messages: operator names, the
 * number and types of values each operator takes, Exists / Value rules,
 * update actions.  Each builder needs a non-empty map (list) and returns
 * NULL with *err on bad input.
 */
typedef enum ExprLegacyParam
{
	EXPR_LEGACY_EXPECTED,		/* -> EXPR_CONDITION */
	EXPR_LEGACY_QUERY_FILTER,	/* -> EXPR_FILTER */
	EXPR_LEGACY_SCAN_FILTER		/* -> EXPR_FILTER */
} ExprLegacyParam;

/* Expected / QueryFilter / ScanFilter; `or`: ConditionalOperator OR. */
extern StExpr *expr_legacy_condition(ExprLegacyParam param, const Av *conditions, bool or,
									 Av *values, StErr *err);

/*
 * KeyConditions, checked against the key schema it queries (sk NULL for a
 * hash-only key): an EXPR_KEY_CONDITION tree that expr_key_condition()
 * resolves like a KeyConditionExpression.
 */
extern StExpr *expr_legacy_key_conditions(const Av *conditions,
										  const char *pk, int pk_len,
										  const char *sk, int sk_len,
										  Av *values, StErr *err);

/*
 * KeyConditions on a multi-attribute GSI's key (names: its nkeys HASH then
 * RANGE attributes): a tree that expr_key_condition_multi() resolves like
 * a KeyConditionExpression.
 */
extern StExpr *expr_legacy_key_conditions_multi(const Av *conditions, int nkeys,
												const char *const *names,
												Av *values, StErr *err);

/* AttributeUpdates: PUT / ADD / DELETE as SET / ADD / DELETE / REMOVE actions. */
extern StExpr *expr_legacy_update(const Av *updates, Av *values, StErr *err);

/*
 * expr_apply_update() for a tree of expr_legacy_update(): the same
 * application, with the legacy wording of a type mismatch.
 */
extern bool expr_legacy_apply_update(const StExpr *upd, Av *item, const ExprParams *p,
									 ExprUpdateInfo *info, StErr *err);

/* AttributesToGet (an AV_L of AV_S): a projection of top-level attributes. */
extern StExpr *expr_legacy_projection(const Av *names, StErr *err);

/*
 * A request that holds both legacy parameters and expressions: fill err
 * with DynamoDB's message naming both lists (the names present, in order).
 */
extern bool expr_legacy_mix_error(const char *const *legacy, int nlegacy,
								  const char *const *expressions, int nexpressions,
								  StErr *err);

/* ---------- helpers shared with the SQL layer ---------- */

/* Is word (len bytes) one of DynamoDB's reserved words (case-insensitive)? */
extern bool expr_is_reserved_word(const char *word, int len);

#endif							/* ST_EXPR_H */
