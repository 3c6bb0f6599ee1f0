/*-------------------------------------------------------------------------
 *
 * studio.h
 *		The single-table design studio: a model document stored with a
 *		table (entities with key templates, named access patterns), its
 *		checks, its cost, its page; what a design does with its items and
 *		its traffic; and its import and export formats.
 *
 * The studio sits between api and ops: it runs access patterns through the
 * same operations as st_query and st_get, counts capacity with the same
 * code as ConsumedCapacity, and reads tables through catalog and ops,
 * never storage.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_STUDIO_H
#define ST_STUDIO_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/pg_list.h"
#include "nodes/value.h"
#include "utils/jsonb.h"

#include "catalog/st_catalog.h"
#include "item/av.h"
#include "ops/item_ops.h"

/* model, patterns, checks, cost, page */

/* Limits of a model document (see docs/studio.md). */
#define STUDIO_TEMPLATE_MAX 2048	/* bytes of one key template */
#define STUDIO_MAX_PARAMS 32		/* placeholders in one template */
#define STUDIO_NAME_MAX 255		/* entity, pattern and placeholder names */
#define STUDIO_MAX_ENTITIES 256
#define STUDIO_MAX_PATTERNS 256
#define STUDIO_MODEL_MAX_BYTES (1024 * 1024)

/* One piece of a key template: literal text or a {placeholder}. */
typedef struct StudioPart
{
	bool		is_param;
	char	   *text;			/* literal bytes, or the placeholder's name */
	int			len;
} StudioPart;

/* A key template: "CUST#{customer_id}". */
typedef struct StudioTemplate
{
	char	   *source;			/* as written */
	int			nparts;
	StudioPart *parts;
	int			nparams;
} StudioTemplate;

/* A key attribute an entity forms from a template. */
typedef struct StudioKey
{
	char	   *attr;
	StudioTemplate tpl;
} StudioKey;

typedef struct StudioEntity
{
	char	   *name;
	char	   *type_attr;		/* the type attribute, or NULL for none */
	char	   *type_value;		/* its value for this entity */
	int			nkeys;
	StudioKey  *keys;
	int			nattrs;			/* -1: attributes not declared (any) */
	char	  **attr_names;
	int		   *attr_types;		/* an AvType, or -1 for "any" */
	int			nrequired;
	char	  **required;
} StudioEntity;

typedef enum StudioOp
{
	STUDIO_GET,
	STUDIO_QUERY,
	STUDIO_SCAN,
	STUDIO_PUT
} StudioOp;

/*
 * One key attribute's condition in a Query pattern of a multi-attribute GSI
 * key: = a template, or (the last one used) a sort key condition.
 */
typedef struct StudioKeyCond
{
	bool		has;			/* given */
	StSortOp	op;
	StudioTemplate *t1;
	StudioTemplate *t2;			/* between's upper bound */
} StudioKeyCond;

typedef struct StudioPattern
{
	char	   *name;
	StudioOp	op;
	char	   *index;			/* NULL: the table */
	StudioTemplate *pk;			/* GetItem, Query */
	StSortOp	sk_op;
	StudioTemplate *sk1;
	StudioTemplate *sk2;		/* between's upper bound */

	/*
	 * A Query of a multi-attribute GSI key: one condition per key attribute
	 * of the index (npk HASH, then nsk RANGE), and pk, sk1 and sk2 NULL;
	 * NULL for every other pattern.
	 */
	StudioKeyCond *mkeys;
	int			nmkeys;			/* the index's key attributes when parsed */
	int			nmkeys_pk;		/* of which HASH */
	char	   *filter;
	char	   *projection;
	Jsonb	   *names;
	Av		   *values;			/* plain; strings may hold templates */
	bool		forward;
	int64		limit;			/* -1: none */
	bool		consistent;
	double		rate;			/* expected calls per second, or -1 */
	char	   *entity;			/* PutItem: the entity written */
	int			nreturns;		/* entities the pattern is meant to read */
	char	  **returns;
	Av		   *example;		/* example parameters, or NULL */
} StudioPattern;

typedef struct StudioModel
{
	char	   *table;
	int			nentities;
	StudioEntity *entities;
	int			npatterns;
	StudioPattern *patterns;
	MemoryContext cxt;
} StudioModel;

/* studio_template.c: parse, format and match key templates */
extern void studio_template_parse(const char *text, int len, StudioTemplate *tpl,
								  const char *where);
/* The template's text with every placeholder's value from params (plain Av map). */
extern char *studio_template_format(const StudioTemplate *tpl, const Av *params,
									const char *where);
/* Does s match the template?  When so, captures[i] holds placeholder i's text. */
extern bool studio_template_match(const StudioTemplate *tpl, const char *s, int len,
								  char **captures);
/* Can two templates form the same value (conservatively: literal prefixes and suffixes)? */
extern bool studio_templates_overlap(const StudioTemplate *a, const StudioTemplate *b);
/* Can a value of template a begin with prefix p (itself a template)? */
extern bool studio_template_may_begin(const StudioTemplate *a, const StudioTemplate *p);
/* The literal text before the first placeholder. */
extern int	studio_template_prefix(const StudioTemplate *tpl, const char **prefix);

/* studio_model.c: the model document, parsed, validated, stored, cached */
extern StudioModel *studio_model_parse(StTable *t, Jsonb *doc);
/* The model of table t (cached per backend), or NULL when it has none. */
extern StudioModel *studio_model_get(StTable *t);
extern StudioEntity *studio_find_entity(StudioModel *m, const char *name);
extern StudioPattern *studio_find_pattern(StudioModel *m, const char *name);
/* The key attribute names of the table (ix NULL) or an index. */
extern const StKeyDef *studio_pk_def(StTable *t, StIndex *ix);
extern const StKeyDef *studio_sk_def(StTable *t, StIndex *ix);
/* The key definition of a key attribute of the table or of an index, or NULL. */
extern const StKeyDef *studio_key_attribute(StTable *t, const char *name);
/*
 * A multi-attribute GSI Query pattern's key condition, its templates filled
 * from params (NULL: the shape only, no values), for
 * ops_query_set_multi_condition.
 */
struct ExprKeyConditionMulti;
extern void studio_multi_condition(StIndex *ix, const StudioKeyCond *mkeys, const Av *params,
								   struct ExprKeyConditionMulti *m, const char *where);
/* The key template an entity has for attribute name, or NULL. */
extern StudioTemplate *studio_entity_key(StudioEntity *e, const char *attr);
/* Raise SELECT (or ownership) errors as Postgres does for the table's relation. */
extern void studio_check_select(StTable *t);

/* studio_entity.c: which entity an item is; the item an entity forms */
extern StudioEntity *studio_entity_of(StudioModel *m, StTable *t, const Av *item);
/* attrs checked against e, its keys formed from the templates, its type added */
extern Av  *studio_form_item(StTable *t, StudioEntity *e, Av *attrs);

/* studio_pattern.c: running a pattern, and measuring what it reads */
typedef struct StudioMeasure
{
	int64		calls;			/* parameter sets measured */
	int64		items_read;		/* summed over the calls */
	int64		items_returned;
	double		read_units;		/* summed over the calls */
	double		write_units;
	List	   *params;			/* the parameter sets measured with (plain Av
								 * maps), one per call; NIL: none */
	bool		sampled;		/* a Scan extrapolated from a sample */
	char	   *note;			/* what the numbers do not say, or NULL */
} StudioMeasure;

extern void studio_measure_pattern(StudioModel *m, StTable *t, StudioPattern *p,
								   StudioMeasure *out);
/* The attribute names a pattern returns (its projection, or its entities' attributes). */
extern List *studio_pattern_returns(StudioModel *m, StTable *t, StudioPattern *p, bool *all);
/* Does pattern p read items of entity e (their keys can meet its key condition)? */
extern bool studio_pattern_reads(StTable *t, StudioPattern *p, StudioEntity *e);
/*
 * Parse and check a pattern's filter and projection as a call would, and
 * its projection against a KEYS_ONLY or INCLUDE GSI: "Invalid model" errors.
 */
extern void studio_pattern_check_expressions(StTable *t, StudioPattern *p, const char *where);
/*
 * In a PG_CATCH block, back in the caller's memory context: the error
 * raised again, a ValidationException's message as "Invalid model:
 * <where>: " and its own, with hint when not NULL.
 */
extern pg_noreturn void studio_rethrow_model_error(const char *where, const char *hint);
/* Attributes its filter (or projection) names that no entity it reads declares. */
extern List *studio_pattern_unknown_attrs(StudioModel *m, StTable *t, StudioPattern *p,
										  bool projection);
/* The index a pattern names, or NULL for the table; raises when unknown. */
extern StIndex *studio_pattern_index(StTable *t, StudioPattern *p);

/* traffic, partitions, import/export */

/* A text argument as a C string, or NULL when SQL NULL. */
extern char *studio_io_arg_text(FunctionCallInfo fcinfo, int n);

/* The same for an argument that must be given (ValidationException naming it). */
extern char *studio_io_arg_required(FunctionCallInfo fcinfo, int n, const char *name);

/*
 * The items of one key space (the table, or one of its global secondary
 * indexes), grouped by partition key value: studio_partitions.c.
 */
typedef struct StudioPartition
{
	char	   *key;			/* the partition key value as text (B base64) */
	int64		items;
	int64		bytes;			/* DynamoDB size of the items (the index's projection) */
} StudioPartition;

typedef struct StudioKeySpace
{
	StIndex    *index;			/* NULL: the table */
	int			n;				/* partitions, sorted by bytes, largest first */
	StudioPartition *parts;
	int64		items;
	int64		bytes;
} StudioKeySpace;

typedef struct StudioPartitions
{
	int			nspaces;		/* the table, then each global secondary index */
	StudioKeySpace *spaces;
	bool		sampled;		/* counts are scaled up from a sample */
	int64		items_read;		/* items read (the sample's size when sampled) */
} StudioPartitions;

/*
 * Group the items of table t (at most about sample_items of them, sampled
 * evenly when the table holds more, the counts then scaled up).
 */
extern StudioPartitions *studio_partitions(StTable *t, int64 sample_items);

#endif							/* ST_STUDIO_H */
