/*-------------------------------------------------------------------------
 *
 * api_model.h
 *		DynamoDB's API model as C tables (generated into api_model.c by
 *		gen_api_model.py from botocore's service-2.json): the shapes that
 *		operations' inputs reach, their members, types and constraints.
 *
 * api_validate.c walks a request against these tables, so every operation
 * is checked alike, as DynamoDB checks it, before its own code runs.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_API_MODEL_H
#define ST_API_MODEL_H

#include "postgres.h"

/* A shape's type in the model. */
typedef enum ApiKind
{
	API_STRUCT,
	API_LIST,
	API_MAP,
	API_STRING,
	API_INTEGER,
	API_LONG,
	API_DOUBLE,
	API_BOOLEAN,
	API_BLOB,
	API_TIMESTAMP
} ApiKind;

/* The model's patterns, each with a matcher in api_validate.c. */
typedef enum ApiPattern
{
	API_PATTERN_NONE,
	API_PATTERN_NAME,			/* [a-zA-Z0-9_.-]+ */
	API_PATTERN_HEX16,			/* ([0-9a-f]{16})+ */
	API_PATTERN_RULE_NAME,		/* [A-Za-z0-9][A-Za-z0-9\-\_\.]{0,126}[A-Za-z0-9] */
	API_PATTERN_XML_TEXT,		/* XML 1.0 characters */
	API_PATTERN_ACCOUNT,		/* [0-9]{12} */
	API_PATTERN_BUCKET,			/* ^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$ */
	API_PATTERN_UUID,			/* 8-4-4-4-12 lower-case hex */
	API_PATTERN_PRINT,			/* \p{Print}+ */
	API_PATTERN_CSV_HEADER,		/* [\x20-\x21\x23-\x2B\x2D-\x7E]* */
	API_PATTERN_NO_DOLLAR,		/* ^[^\$]+$ */
	API_PATTERN_CSV_DELIMITER,	/* [,;:|\t ] */
	API_PATTERN_TABLE_NAME_OR_ARN	/* a table name ([a-zA-Z0-9_.-]+), or "arn:..." of at most 1024 */
} ApiPattern;

typedef struct ApiShape
{
	const char *name;			/* the model's shape name */
	ApiKind		kind;
	bool		has_min;
	bool		has_max;
	int64		min;			/* length (string, list, map) or value (numbers) */
	int64		max;
	ApiPattern	pattern;
	const char *pattern_text;	/* as DynamoDB quotes it */
	const char *const *enum_values; /* in the order DynamoDB lists them */
	int			nenum;
	int			first_member;	/* structure: its members in api_model_members, in the order DynamoDB lists their violations */
	int			nmembers;
	int			element;		/* list: member shape; map: value shape; else -1 */
	int			key;			/* map: key shape; else -1 */
} ApiShape;

typedef struct ApiMember
{
	const char *wire;			/* the JSON field name ("TableName") */
	int			wire_len;		/* its length (the message name's too) */
	const char *message_name;	/* the name DynamoDB's messages use ("tableName") */
	int			shape;
	bool		required;
} ApiMember;

typedef struct ApiOperationModel
{
	const char *name;			/* "PutItem" */
	int			input;			/* its input shape, or -1 */
} ApiOperationModel;

extern const ApiShape api_model_shapes[];
extern const ApiMember api_model_members[];
extern const ApiOperationModel api_model_operations[];
extern const int api_model_noperations;

/* The most members a structure of the model has (the generator checks it). */
#define API_MODEL_MAX_MEMBERS 32

#endif							/* ST_API_MODEL_H */
