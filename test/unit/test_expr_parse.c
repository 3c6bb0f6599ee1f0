/*-------------------------------------------------------------------------
 *
 * test_expr_parse.c
 *		Unit tests of the expression lexer, parser and binder: grammar,
 *		precedence, DynamoDB's error messages, reserved words, limits,
 *		placeholders, overlapping paths and key conditions.
 *
 *-------------------------------------------------------------------------
 */
#include "expr/expr.h"
#include "unit.h"

#include <stdarg.h>
#include <stdio.h>

static StErr err;

static StExpr *
parse(ExprKind kind, const char *text)
{
	return expr_parse(kind, text, strlen(text), &err);
}

/* "OK" when text parses, else the error message. */
static const char *
perr(ExprKind kind, const char *text)
{
	if (parse(kind, text) != NULL)
		return "OK";
	CHECK(err.code == ST_ERR_VALIDATION);
	return err.message;
}

#define OKC(text) CHECK_STR(perr(EXPR_CONDITION, text), "OK")
#define OKU(text) CHECK_STR(perr(EXPR_UPDATE, text), "OK")

/* A map from NULL-terminated (name, value) pairs. */
static Av *
map(const char *name,...)
{
	Av		   *m = av_new(AV_M);
	va_list		args;

	va_start(args, name);
	while (name != NULL)
	{
		Av		   *v = va_arg(args, Av *);

		av_map_put_nocheck(m, name, strlen(name), v);
		name = va_arg(args, const char *);
	}
	va_end(args);
	return m;
}

static Av *
S(const char *s)
{
	return av_new_str(AV_S, s, strlen(s));
}

static Av *
N(const char *s)
{
	return av_new_str(AV_N, s, strlen(s));
}

static Av *
set_of(AvType type, const char *a, const char *b)
{
	Av		   *s = av_new(type);

	av_append(s, av_new_str(av_set_member_type(type), a, strlen(a)));
	if (b)
		av_append(s, av_new_str(av_set_member_type(type), b, strlen(b)));
	return s;
}

/*
 * Parse, check the maps, bind and check for unused placeholders: "OK" or
 * the first error message.
 */
static const char *
bind(ExprKind kind, const char *text, Av *names, Av *values)
{
	ExprParams	p;
	StExpr	   *e = parse(kind, text);

	if (e == NULL)
		return err.message;
	p.names = names;
	p.values = values;
	p.names_used = names ? palloc0(sizeof(bool) * Max(names->n, 1)) : NULL;
	p.values_used = values ? palloc0(sizeof(bool) * Max(values->n, 1)) : NULL;
	if (!expr_check_params(&p, &err) || !expr_bind(e, &p, &err) ||
		!expr_check_unused(&p, &err))
		return err.message;
	return "OK";
}

/* A string of n copies of unit followed by tail. */
static char *
repeat(const char *unit, int n, const char *head, const char *tail)
{
	size_t		ul = strlen(unit);
	char	   *s = palloc(strlen(head) + ul * n + strlen(tail) + 1);
	char	   *p = s;

	strcpy(p, head);
	p += strlen(head);
	for (int i = 0; i < n; i++, p += ul)
		memcpy(p, unit, ul);
	strcpy(p, tail);
	return s;
}

static void
test_conditions_ok(void)
{
	static const char *const ok[] = {
		"a = :v", "a <> :v", "a < :v", "a <= :v", "a > :v", "a >= :v",
		"a BETWEEN :lo AND :hi", "a between :lo and :hi",
		"a IN (:x)", "a IN (:x, :y, :z)", "a in(:x,:y)",
		"attribute_exists(a)", "attribute_not_exists(#a.b[2])",
		"attribute_type(a, :t)", "begins_with(a, :p)", "contains(a, :x)",
		"size(a) > :n", ":n < size(a.b)", "size(:v) = :n",
		"NOT a = :v", "not not a = :v", "a = :v AND b = :w", "a = :v OR b = :w",
		"(a = :v)", "(a = :v) AND (b = :w)", "((a = :v AND b = :w) AND c = :x)",
		"a = :v AND (b = :w OR c = :x)", "a.b.c[0][1].#d = :v",
		"#a = #b", ":a = :b", "a=:v", "a\t=\n:v\r", "a_1 = :v_2", "_x = :Y9",
		"a[0] = :v", "a[123456789] = :v",
	};

	for (int i = 0; i < (int) lengthof(ok); i++)
		CHECK_STR(perr(EXPR_CONDITION, ok[i]), "OK");
}

static void
test_precedence(void)
{
	StExpr	   *e;

	/* AND binds tighter than OR */
	e = parse(EXPR_CONDITION, "a = :v OR b = :v AND c = :v");
	CHECK(e && e->cond->kind == EXPR_N_OR && e->cond->args[1]->kind == EXPR_N_AND);
	e = parse(EXPR_CONDITION, "a = :v AND b = :v OR c = :v");
	CHECK(e && e->cond->kind == EXPR_N_OR && e->cond->args[0]->kind == EXPR_N_AND);
	/* NOT binds tighter than AND, looser than comparisons */
	e = parse(EXPR_CONDITION, "NOT a = :v AND b = :v");
	CHECK(e && e->cond->kind == EXPR_N_AND && e->cond->args[0]->kind == EXPR_N_NOT &&
		  e->cond->args[0]->args[0]->kind == EXPR_N_CMP);
	/* parentheses */
	e = parse(EXPR_CONDITION, "(a = :v OR b = :v) AND c = :v");
	CHECK(e && e->cond->kind == EXPR_N_AND && e->cond->args[0]->kind == EXPR_N_OR);
	/* BETWEEN's AND is not the logical AND */
	e = parse(EXPR_CONDITION, "a BETWEEN :x AND :y AND b = :v");
	CHECK(e && e->cond->kind == EXPR_N_AND && e->cond->args[0]->kind == EXPR_N_BETWEEN);
	/* left associativity */
	e = parse(EXPR_CONDITION, "a = :v OR b = :v OR c = :v");
	CHECK(e && e->cond->kind == EXPR_N_OR && e->cond->args[0]->kind == EXPR_N_OR);
	/* IN list */
	e = parse(EXPR_CONDITION, "a IN (:x, :y, :z)");
	CHECK(e && e->cond->kind == EXPR_N_IN && e->cond->nargs == 4);
}

static void
test_paths(void)
{
	StExpr	   *e = parse(EXPR_CONDITION, "a.#b[3][0].c = :v");
	ExprPath   *p;

	CHECK(e != NULL);
	if (e == NULL)
		return;
	p = e->cond->args[0]->path;
	CHECK(p->n == 5);
	CHECK(p->elems[0].kind == EXPR_PE_NAME && strcmp(p->elems[0].name, "a") == 0);
	CHECK(p->elems[1].kind == EXPR_PE_PLACEHOLDER && strcmp(p->elems[1].name, "#b") == 0);
	CHECK(p->elems[2].kind == EXPR_PE_INDEX && p->elems[2].index == 3);
	CHECK(p->elems[3].kind == EXPR_PE_INDEX && p->elems[3].index == 0);
	CHECK(p->elems[4].kind == EXPR_PE_NAME && p->elems[4].len == 1);
	CHECK(e->cond->args[1]->kind == EXPR_N_VALUE && strcmp(e->cond->args[1]->name, ":v") == 0);

	/* 32 steps are fine, 33 are not */
	CHECK_STR(perr(EXPR_CONDITION, repeat(".a", 31, "a", " = :v")), "OK");
	CHECK_STR(perr(EXPR_CONDITION, repeat("[0]", 31, "a", " = :v")), "OK");
	CHECK_STR(perr(EXPR_CONDITION, repeat(".a", 32, "a", " = :v")),
			  "Invalid ConditionExpression: The document path has too many nesting levels; nesting levels: 33");
	/* the message counts the whole path, as DynamoDB's does */
	CHECK_STR(perr(EXPR_PROJECTION, repeat("[1]", 40, "a", "")),
			  "Invalid ProjectionExpression: The document path has too many nesting levels; nesting levels: 41");
	CHECK_STR(perr(EXPR_UPDATE, repeat(".a", 39, "SET a", " = :v")),
			  "Invalid UpdateExpression: The document path has too many nesting levels; nesting levels: 40");
}

static void
test_syntax_errors(void)
{
	CHECK_STR(perr(EXPR_UPDATE, "ADD hits : incr"),
			  "Invalid UpdateExpression: Syntax error; token: \":\", near: \"hits : incr\"");
	CHECK_STR(perr(EXPR_UPDATE, "INVALID SYNTAX HERE"),
			  "Invalid UpdateExpression: Syntax error; token: \"INVALID\", near: \"INVALID SYNTAX\"");
	CHECK_STR(perr(EXPR_CONDITION, "a ="),
			  "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"=\"");
	CHECK_STR(perr(EXPR_CONDITION, "a = :v b"),
			  "Invalid ConditionExpression: Syntax error; token: \"b\", near: \":v b\"");
	CHECK_STR(perr(EXPR_CONDITION, "a = 5"),
			  "Invalid ConditionExpression: Syntax error; token: \"5\", near: \"= 5\"");
	CHECK_STR(perr(EXPR_CONDITION, "a = :v!"),
			  "Invalid ConditionExpression: Syntax error; token: \"!\", near: \":v!\"");
	CHECK_STR(perr(EXPR_CONDITION, "a = 'x'"),
			  "Invalid ConditionExpression: Syntax error; token: \"'\", near: \"= 'x\"");
	CHECK_STR(perr(EXPR_FILTER, "a = :v AND"),
			  "Invalid FilterExpression: Syntax error; token: \"<EOF>\", near: \"AND\"");
	CHECK_STR(perr(EXPR_CONDITION, "a"),
			  "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"a\"");
	CHECK_STR(perr(EXPR_CONDITION, "(a = :v"),
			  "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \":v\"");
	CHECK_STR(perr(EXPR_CONDITION, "a = :v)"),
			  "Invalid ConditionExpression: Syntax error; token: \")\", near: \":v)\"");
	CHECK_STR(perr(EXPR_CONDITION, "a[x] = :v"),
			  "Invalid ConditionExpression: Syntax error; token: \"x\", near: \"[x]\"");
	CHECK_STR(perr(EXPR_CONDITION, "a[-1] = :v"),
			  "Invalid ConditionExpression: Syntax error; token: \"-\", near: \"[-1\"");
	OKC("a[2147483647] = :v");
	CHECK_STR(perr(EXPR_CONDITION, "a[2147483648] = :v"),
			  "Invalid ConditionExpression: List index is not within the allowable range; index: [2147483648]");
	CHECK_STR(perr(EXPR_PROJECTION, "a[99999999999999999999999]"),
			  "Invalid ProjectionExpression: List index is not within the allowable range; index: [99999999999999999999999]");
	CHECK_STR(perr(EXPR_CONDITION, "[0] = :v"),
			  "Invalid ConditionExpression: Syntax error; token: \"[\", near: \"[0\"");
	CHECK_STR(perr(EXPR_CONDITION, "a. = :v"),
			  "Invalid ConditionExpression: Syntax error; token: \"=\", near: \". = :v\"");
	CHECK_STR(perr(EXPR_CONDITION, "# = :v"),
			  "Invalid ConditionExpression: Syntax error; token: \"#\", near: \"# =\"");
	CHECK_STR(perr(EXPR_CONDITION, "a = :"),
			  "Invalid ConditionExpression: Syntax error; token: \":\", near: \"= :\"");
	CHECK_STR(perr(EXPR_CONDITION, "1a = :v"),
			  "Invalid ConditionExpression: Syntax error; token: \"1a\", near: \"1a =\"");
	CHECK_STR(perr(EXPR_CONDITION, "a = :v = :w"),
			  "Invalid ConditionExpression: Syntax error; token: \"=\", near: \":v = :w\"");
	CHECK_STR(perr(EXPR_CONDITION, "a BETWEEN :x"),
			  "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \":x\"");
	CHECK_STR(perr(EXPR_CONDITION, "a BETWEEN :x OR :y"),
			  "Invalid ConditionExpression: Syntax error; token: \"OR\", near: \":x OR :y\"");
	CHECK_STR(perr(EXPR_CONDITION, "a IN :x"),
			  "Invalid ConditionExpression: Syntax error; token: \":x\", near: \"IN :x\"");
	CHECK_STR(perr(EXPR_CONDITION, "a IN ()"),
			  "Invalid ConditionExpression: Syntax error; token: \")\", near: \"()\"");
	CHECK_STR(perr(EXPR_CONDITION, "a IN (:x,)"),
			  "Invalid ConditionExpression: Syntax error; token: \")\", near: \",)\"");
	CHECK_STR(perr(EXPR_CONDITION, "NOT"),
			  "Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"NOT\"");
	CHECK_STR(perr(EXPR_CONDITION, "a = AND"),
			  "Invalid ConditionExpression: Syntax error; token: \"AND\", near: \"= AND\"");
	CHECK_STR(perr(EXPR_CONDITION, "a = :v AND OR b = :v"),
			  "Invalid ConditionExpression: Syntax error; token: \"OR\", near: \"AND OR b\"");
	CHECK_STR(perr(EXPR_CONDITION, "a + :v = :w"),
			  "Invalid ConditionExpression: Syntax error; token: \"+\", near: \"a + :v\"");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "pk == :v"),
			  "Invalid KeyConditionExpression: Syntax error; token: \"=\", near: \"== :v\"");
	CHECK_STR(perr(EXPR_CONDITION, "a = :v\x01"),
			  "Invalid ConditionExpression: Syntax error; token: \"\x01\", near: \":v\x01\"");
	/* a NUL byte is just another bad character */
	CHECK(expr_parse(EXPR_CONDITION, "a = \0:v", 7, &err) == NULL);
}

static void
test_empty_and_size(void)
{
	char	   *big;

	CHECK_STR(perr(EXPR_UPDATE, ""), "Invalid UpdateExpression: The expression can not be empty;");
	CHECK_STR(perr(EXPR_CONDITION, "  \t\n"), "Invalid ConditionExpression: The expression can not be empty;");
	CHECK_STR(perr(EXPR_PROJECTION, ""), "Invalid ProjectionExpression: The expression can not be empty;");
	CHECK_STR(perr(EXPR_KEY_CONDITION, " "), "Invalid KeyConditionExpression: The expression can not be empty;");
	CHECK(expr_parse(EXPR_CONDITION, NULL, 0, &err) == NULL);

	/* exactly 4096 bytes is allowed, 4097 is not */
	big = repeat(" ", 4096 - 6, "a = :v", "");
	CHECK_STR(perr(EXPR_CONDITION, big), "OK");
	big = repeat(" ", 4097 - 6, "a = :v", "");
	CHECK_STR(perr(EXPR_FILTER, big),
			  "Invalid FilterExpression: Expression size has exceeded the maximum allowed size; expression size: 4097");
	big = repeat("(", 10000, "", "a = :v");
	CHECK_STR(perr(EXPR_CONDITION, big),
			  "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 10006");
}

static void
test_nesting(void)
{
	char	   *s;

	/* deep nesting without redundant parentheses: a = :v AND (a = :v AND (... */
	s = repeat("a = :v AND (", 20, "", "a = :v");
	s = repeat(")", 20, s, "");
	CHECK_STR(perr(EXPR_CONDITION, s), "OK");
	/* DynamoDB limits operators, not depth: 149 nested ORs are valid */
	s = repeat("(a=:v OR ", 149, "", "a=:v");
	s = repeat(")", 149, s, "");
	CHECK_STR(perr(EXPR_CONDITION, s), "OK");
	s = repeat("(a=:v OR ", 150, "", "a=:v");
	s = repeat(")", 150, s, "");
	CHECK_STR(perr(EXPR_CONDITION, s),
			  "Invalid ConditionExpression: The expression contains too many operators; operator count: 301");
	/* NOT NOT NOT ... */
	CHECK_STR(perr(EXPR_CONDITION, repeat("NOT ", 299, "", "a = :v")), "OK");
	CHECK_STR(perr(EXPR_CONDITION, repeat("NOT ", 1000, "", "a = :v")),
			  "Invalid ConditionExpression: The expression contains too many operators; operator count: 301");
	/* nested functions in an update */
	s = repeat("list_append(", 100, "SET a = ", ":v");
	s = repeat(", :v)", 100, s, "");
	CHECK_STR(perr(EXPR_UPDATE, s), "OK");
	s = repeat("if_not_exists(a,", 200, "SET a = ", ":v");
	s = repeat(")", 200, s, "");
	CHECK_STR(perr(EXPR_UPDATE, s), "OK");
	/* thousands of parentheses within 4 KB: never a crash */
	CHECK(parse(EXPR_CONDITION, repeat("(", 4000, "", "a=:v")) == NULL);
	CHECK(parse(EXPR_CONDITION, repeat(")", 4000, "a=:v", "")) == NULL);
	CHECK(parse(EXPR_CONDITION, repeat("(a=:v) AND ", 300, "", "a=:v")) == NULL);
}

static void
test_redundant_parentheses(void)
{
	CHECK_STR(perr(EXPR_CONDITION, "((a = :v))"),
			  "Invalid ConditionExpression: The expression has redundant parentheses;");
	CHECK_STR(perr(EXPR_CONDITION, "((a = :v AND b = :v))"),
			  "Invalid ConditionExpression: The expression has redundant parentheses;");
	CHECK_STR(perr(EXPR_FILTER, "a = :v AND ((b = :v OR c = :v))"),
			  "Invalid FilterExpression: The expression has redundant parentheses;");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "((pk = :v))"),
			  "Invalid KeyConditionExpression: The expression has redundant parentheses;");
	OKC("((a = :v AND b = :v) AND c = :v)");
	OKC("((a = :v) AND (b = :v))");
	OKC("(a = :v)");
	OKC("(a = :v) OR (b = :v)");
}

static void
test_reserved_words(void)
{
	CHECK_STR(perr(EXPR_CONDITION, "status = :v"),
			  "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status");
	CHECK_STR(perr(EXPR_UPDATE, "SET a.Name = :v"),
			  "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: Name");
	CHECK_STR(perr(EXPR_PROJECTION, "a, b, Date"),
			  "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: Date");
	CHECK_STR(perr(EXPR_CONDITION, "size = :v"),
			  "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: size");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "KEY = :v"),
			  "Invalid KeyConditionExpression: Attribute name is a reserved keyword; reserved keyword: KEY");
	CHECK(expr_is_reserved_word("abort", 5));
	CHECK(expr_is_reserved_word("ZONE", 4));
	CHECK(expr_is_reserved_word("FlAtTeRn", 8));
	CHECK(expr_is_reserved_word("inntER", 6));
	CHECK(expr_is_reserved_word("ttl", 3));
	CHECK(!expr_is_reserved_word("statuses", 8));
	CHECK(!expr_is_reserved_word("pk", 2));
	CHECK(!expr_is_reserved_word("", 0));
	CHECK(!expr_is_reserved_word("remove", 6));
	CHECK(!expr_is_reserved_word("abortabortabortabortabortabort", 30));
	/* placeholders are how reserved words are used */
	OKC("#status = :v");
	OKU("SET #name = :v REMOVE #date");
	/* an update clause keyword is not reserved when it is not one */
	OKU("SET remove = :v");
}

static void
test_functions(void)
{
	CHECK_STR(perr(EXPR_CONDITION, "foo(a)"),
			  "Invalid ConditionExpression: Invalid function name; function: foo");
	CHECK_STR(perr(EXPR_CONDITION, "SIZE(a) = :v"),
			  "Invalid ConditionExpression: Invalid function name; function: SIZE");
	CHECK_STR(perr(EXPR_CONDITION, "attribute_exists(a, b)"),
			  "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 2");
	CHECK_STR(perr(EXPR_CONDITION, "begins_with(a)"),
			  "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 1");
	CHECK_STR(perr(EXPR_CONDITION, "contains(a, :x, :y)"),
			  "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: contains, number of operands: 3");
	CHECK_STR(perr(EXPR_CONDITION, "attribute_exists()"),
			  "Invalid ConditionExpression: Syntax error; token: \")\", near: \"()\"");
	CHECK_STR(perr(EXPR_CONDITION, "attribute_exists(:v)"),
			  "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists");
	CHECK_STR(perr(EXPR_CONDITION, "attribute_type(:v, :t)"),
			  "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_type");
	CHECK_STR(perr(EXPR_CONDITION, "size(a)"),
			  "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size");
	CHECK_STR(perr(EXPR_CONDITION, "attribute_exists(a) = :v"),
			  "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists");
	CHECK_STR(perr(EXPR_CONDITION, ":v = contains(a, :v)"),
			  "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: contains");
	CHECK_STR(perr(EXPR_CONDITION, "if_not_exists(a, :v) = :v"),
			  "Invalid ConditionExpression: The function is not allowed in a condition expression; function: if_not_exists");
	CHECK_STR(perr(EXPR_CONDITION, "a = list_append(a, :v)"),
			  "Invalid ConditionExpression: The function is not allowed in a condition expression; function: list_append");
	CHECK_STR(perr(EXPR_UPDATE, "SET a = size(b)"),
			  "Invalid UpdateExpression: The function is not allowed in an update expression; function: size");
	CHECK_STR(perr(EXPR_UPDATE, "SET a = attribute_exists(b)"),
			  "Invalid UpdateExpression: The function is not allowed in an update expression; function: attribute_exists");
	CHECK_STR(perr(EXPR_UPDATE, "SET a = if_not_exists(:v, :w)"),
			  "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists");
	CHECK_STR(perr(EXPR_UPDATE, "SET a = list_append(:v)"),
			  "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1");
	OKC("contains(:v, a)");
	OKC("begins_with(a.b[1], :p) AND contains(#c, :x)");
	OKC("size(a) BETWEEN :x AND :y");
	OKC("size(a) IN (:x, :y)");
	OKU("SET a = list_append(if_not_exists(a, :empty), :v)");
	OKU("SET a = if_not_exists(a, :zero) + :one");
	OKU("SET a = list_append(:v, a)");
}

static void
test_in_and_operator_limits(void)
{
	char	   *s;

	s = repeat(", :v", 99, "a IN (:v", ")");
	CHECK_STR(perr(EXPR_CONDITION, s), "OK");
	s = repeat(", :v", 100, "a IN (:v", ")");
	CHECK_STR(perr(EXPR_CONDITION, s),
			  "Invalid ConditionExpression: The IN operator is provided with too many operands; number of operands: 101");
	s = repeat(",:v", 1300, "a IN (:v", ")");
	CHECK_STR(perr(EXPR_FILTER, s),
			  "Invalid FilterExpression: The IN operator is provided with too many operands; number of operands: 1301");

	/* 150 comparisons + 149 ANDs = 299 operators; one more pair is 301 */
	s = repeat(" AND a=:v", 149, "a=:v", "");
	CHECK_STR(perr(EXPR_CONDITION, s), "OK");
	s = repeat(" AND a=:v", 150, "a=:v", "");
	CHECK_STR(perr(EXPR_CONDITION, s),
			  "Invalid ConditionExpression: The expression contains too many operators; operator count: 301");
}

static void
test_update_grammar(void)
{
	StExpr	   *e;

	e = parse(EXPR_UPDATE, "SET a = :v, b.c[1] = b + :n, d = :x - e REMOVE f, g[2] ADD h :one DELETE s :rm");
	CHECK(e != NULL);
	if (e != NULL)
	{
		CHECK(e->nitems == 7);
		CHECK(e->items[0].action == EXPR_UPD_SET && e->items[0].value->kind == EXPR_N_VALUE);
		CHECK(e->items[1].value->kind == EXPR_N_PLUS && e->items[1].path->n == 3);
		CHECK(e->items[2].value->kind == EXPR_N_MINUS);
		CHECK(e->items[3].action == EXPR_UPD_REMOVE && e->items[3].value == NULL);
		CHECK(e->items[4].action == EXPR_UPD_REMOVE && e->items[4].path->elems[1].index == 2);
		CHECK(e->items[5].action == EXPR_UPD_ADD);
		CHECK(e->items[6].action == EXPR_UPD_DELETE);
	}
	OKU("set a = :v remove b add c :n delete d :s");
	OKU("REMOVE a SET b = :v");
	OKU("DELETE s :v ADD n :one REMOVE x SET y = :v");
	CHECK_STR(perr(EXPR_UPDATE, "SET a = :v SET b = :v"),
			  "Invalid UpdateExpression: The \"SET\" section can only be used once in an update expression;");
	CHECK_STR(perr(EXPR_UPDATE, "REMOVE a remove b"),
			  "Invalid UpdateExpression: The \"REMOVE\" section can only be used once in an update expression;");
	CHECK_STR(perr(EXPR_UPDATE, "ADD a :v ADD b :v"),
			  "Invalid UpdateExpression: The \"ADD\" section can only be used once in an update expression;");
	CHECK_STR(perr(EXPR_UPDATE, "DELETE a :v DELETE b :v"),
			  "Invalid UpdateExpression: The \"DELETE\" section can only be used once in an update expression;");
	CHECK_STR(perr(EXPR_UPDATE, "SET a"),
			  "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \"a\"");
	CHECK_STR(perr(EXPR_UPDATE, "SET a = :v,"),
			  "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \",\"");
	CHECK_STR(perr(EXPR_UPDATE, "SET a = :v + :w + :x"),
			  "Invalid UpdateExpression: Syntax error; token: \"+\", near: \":w + :x\"");
	CHECK_STR(perr(EXPR_UPDATE, "SET a := :v"),
			  "Invalid UpdateExpression: Syntax error; token: \":\", near: \"a :=\"");
	CHECK_STR(perr(EXPR_UPDATE, "ADD a b"),
			  "Invalid UpdateExpression: Syntax error; token: \"b\", near: \"a b\"");
	CHECK_STR(perr(EXPR_UPDATE, "DELETE a"),
			  "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \"a\"");
	CHECK_STR(perr(EXPR_UPDATE, "REMOVE a = :v"),
			  "Invalid UpdateExpression: Syntax error; token: \"=\", near: \"a = :v\"");
	CHECK_STR(perr(EXPR_UPDATE, "SET"),
			  "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \"SET\"");
	CHECK_STR(perr(EXPR_UPDATE, "a = :v"),
			  "Invalid UpdateExpression: Syntax error; token: \"a\", near: \"a =\"");
	CHECK_STR(perr(EXPR_UPDATE, "SET a = :v WHERE b = :w"),
			  "Invalid UpdateExpression: Syntax error; token: \"WHERE\", near: \":v WHERE b\"");
	CHECK_STR(perr(EXPR_UPDATE, "SET :v = a"),
			  "Invalid UpdateExpression: Syntax error; token: \":v\", near: \"SET :v =\"");
	/* parentheses: one pair around each operand and one around the value */
	OKU("SET a = (b)");
	OKU("SET b.c = ((c[1]) + (b.a))");
	OKU("SET a = ((b))");
	OKU("SET a = list_append((b), (:v)), c = (d) - :v");
	CHECK_STR(perr(EXPR_UPDATE, "SET a = (((b)))"),
			  "Invalid UpdateExpression: Syntax error; token: \"(\", near: \"((b\"");
	CHECK_STR(perr(EXPR_UPDATE, "SET a = (b.c).d + e"),
			  "Invalid UpdateExpression: Syntax error; token: \".\", near: \").d\"");
	CHECK_STR(perr(EXPR_UPDATE, "SET a = b + c + d"),
			  "Invalid UpdateExpression: Syntax error; token: \"+\", near: \"c + d\"");
	OKC("(a) BETWEEN (:lo) AND (:hi)");
	OKC("((a) = :v) AND (b IN ((c), :v))");
	CHECK_STR(perr(EXPR_CONDITION, "((a)) = :v"),
			  "Invalid ConditionExpression: The expression has redundant parentheses;");
}

static void
test_projection_grammar(void)
{
	StExpr	   *e = parse(EXPR_PROJECTION, "a, b.c, #d[1], e[0].f");

	CHECK(e != NULL && e->npaths == 4);
	if (e)
		CHECK(e->paths[3]->n == 3);
	CHECK_STR(perr(EXPR_PROJECTION, "a,"),
			  "Invalid ProjectionExpression: Syntax error; token: \"<EOF>\", near: \",\"");
	CHECK_STR(perr(EXPR_PROJECTION, "a b"),
			  "Invalid ProjectionExpression: Syntax error; token: \"b\", near: \"a b\"");
	CHECK_STR(perr(EXPR_PROJECTION, ":v"),
			  "Invalid ProjectionExpression: Syntax error; token: \":v\", near: \":v\"");
	CHECK_STR(perr(EXPR_PROJECTION, "size(a)"),
			  "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: size");
	/* many paths */
	CHECK_STR(perr(EXPR_PROJECTION, repeat(",a", 1000, "a", "")), "OK");
}

static void
test_placeholders(void)
{
	Av		   *names = map("#a", S("a"), "#b", S("status"), NULL);
	Av		   *values = map(":v", S("x"), ":w", N("1"), NULL);

	CHECK_STR(bind(EXPR_CONDITION, "#a = :v AND #b = :w", names, values), "OK");
	CHECK_STR(bind(EXPR_CONDITION, "#a = :v", names, values),
			  "Value provided in ExpressionAttributeNames unused in expressions: keys: {#b}");
	CHECK_STR(bind(EXPR_CONDITION, "#a = :v AND #b = :v", names, values),
			  "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}");
	CHECK_STR(bind(EXPR_CONDITION, "#a = :v AND #b = :v", names,
				   map(":v", S("x"), ":w", N("1"), ":z", N("2"), NULL)),
			  "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w, :z}");
	CHECK_STR(bind(EXPR_UPDATE, "SET #x = :v", names, values),
			  "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #x");
	CHECK_STR(bind(EXPR_UPDATE, "SET #a = :nope", names, values),
			  "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :nope");
	CHECK_STR(bind(EXPR_CONDITION, "a = :v", NULL, NULL),
			  "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :v");
	CHECK_STR(bind(EXPR_PROJECTION, "a.#b", NULL, NULL),
			  "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #b");
	CHECK_STR(bind(EXPR_FILTER, "a IN (:v, :w, :x)", NULL, values),
			  "Invalid FilterExpression: An expression attribute value used in expression is not defined; attribute value: :x");
	/* the maps themselves */
	CHECK_STR(bind(EXPR_CONDITION, "a = :v", map("a", S("a"), NULL), values),
			  "ExpressionAttributeNames contains invalid key: Syntax error; key: \"a\"");
	CHECK_STR(bind(EXPR_CONDITION, "a = :v", map("#a-b", S("a"), NULL), values),
			  "ExpressionAttributeNames contains invalid key: Syntax error; key: \"#a-b\"");
	CHECK_STR(bind(EXPR_CONDITION, "a = :v", NULL, map("v", S("a"), NULL)),
			  "ExpressionAttributeValues contains invalid key: Syntax error; key: \"v\"");
	CHECK_STR(bind(EXPR_CONDITION, "a = :v", NULL, map(":", S("a"), NULL)),
			  "ExpressionAttributeValues contains invalid key: Syntax error; key: \":\"");
	CHECK_STR(bind(EXPR_CONDITION, "a = :v", av_new(AV_M), values),
			  "ExpressionAttributeNames must not be empty");
	CHECK_STR(bind(EXPR_CONDITION, "a = :v", NULL, av_new(AV_M)),
			  "ExpressionAttributeValues must not be empty");
	CHECK_STR(bind(EXPR_CONDITION, "#a = :v", map("#a", S(""), NULL), map(":v", S("x"), NULL)),
			  "ExpressionAttributeNames contains invalid value: Empty attribute name; key: \"#a\"");
	/* the AST does not depend on the maps: one parse, two bindings */
	{
		StExpr	   *e = parse(EXPR_CONDITION, "#a = :v");
		ExprParams	p1 = {map("#a", S("x"), NULL), map(":v", N("1"), NULL), NULL, NULL};
		ExprParams	p2 = {map("#a", S("y"), NULL), NULL, NULL, NULL};

		CHECK(e && expr_bind(e, &p1, &err));
		CHECK(e && !expr_bind(e, &p2, &err));
		CHECK(e && expr_bind(e, &p1, &err));
	}
}

static void
test_operand_types(void)
{
	Av		   *v = map(":s", S("x"), ":n", N("5"), ":m", N("1"), ":t", S("SS"), ":bad", S("STRING"),
						":l", av_new(AV_L), ":ss", set_of(AV_SS, "a", "b"), ":b", av_new_bool(true), NULL);

#define BIND(kind, text) bind(kind, text, NULL, v)
	CHECK_STR(BIND(EXPR_CONDITION, "attribute_type(a, :n)"),
			  "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N");
	CHECK_STR(BIND(EXPR_CONDITION, "attribute_type(a, :bad)"),
			  "Invalid ConditionExpression: Invalid attribute type name found; type: STRING, valid types: { B,NULL,SS,BOOL,L,BS,N,NS,S,M }");
	CHECK_STR(BIND(EXPR_CONDITION, "begins_with(a, :n)"),
			  "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N");
	CHECK_STR(BIND(EXPR_FILTER, "size(:n) > :m"),
			  "Invalid FilterExpression: Incorrect operand type for operator or function; operator or function: size, operand type: N");
	CHECK_STR(BIND(EXPR_CONDITION, "size(:b) > :m"),
			  "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: BOOL");
	CHECK_STR(BIND(EXPR_CONDITION, "a BETWEEN :n AND :m"),
			  "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:1}");
	CHECK_STR(BIND(EXPR_CONDITION, "a = a"),
			  "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a]");
	CHECK_STR(bind(EXPR_CONDITION, "contains(#d, d)", map("#d", S("d"), NULL), NULL),
			  "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [d]");
	CHECK_STR(BIND(EXPR_UPDATE, "SET a = :s + :n"),
			  "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S");
	CHECK_STR(BIND(EXPR_UPDATE, "SET a = b - :ss"),
			  "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: -, operand type: SS");
	CHECK_STR(BIND(EXPR_UPDATE, "SET a = list_append(a, :s)"),
			  "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S");
	CHECK_STR(BIND(EXPR_UPDATE, "ADD a :s"),
			  "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND");
	CHECK_STR(BIND(EXPR_UPDATE, "DELETE a :n"),
			  "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND");
	CHECK_STR(BIND(EXPR_UPDATE, "ADD a :l"),
			  "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: LIST, typeSet: ALLOWED_FOR_ADD_OPERAND");
#undef BIND
	/* the good cases bind */
	CHECK_STR(bind(EXPR_CONDITION, "attribute_type(a, :t) AND begins_with(b, :s) AND size(:s) > :n AND c BETWEEN :m AND :n",
				   NULL, map(":t", S("SS"), ":s", S("x"), ":n", N("5"), ":m", N("1"), NULL)), "OK");
	CHECK_STR(bind(EXPR_UPDATE, "ADD a :n, b :ss DELETE c :ss2",
				   NULL, map(":n", N("5"), ":ss", set_of(AV_SS, "a", NULL), ":ss2", set_of(AV_NS, "1", NULL), NULL)), "OK");
	CHECK_STR(bind(EXPR_CONDITION, ":a = :a", NULL, map(":a", N("5"), NULL)), "OK");
}

static void
test_overlap(void)
{
	Av		   *v = map(":v", S("x"), NULL);

	CHECK_STR(bind(EXPR_UPDATE, "SET a = :v, a.b = :v", NULL, v),
			  "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]");
	CHECK_STR(bind(EXPR_UPDATE, "SET a.b = :v REMOVE a", NULL, v),
			  "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a]");
	CHECK_STR(bind(EXPR_UPDATE, "SET a = :v REMOVE #a", map("#a", S("a"), NULL), v),
			  "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]");
	CHECK_STR(bind(EXPR_UPDATE, "SET a.b = :v, a[0] = :v", NULL, v),
			  "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [0]]");
	CHECK_STR(bind(EXPR_UPDATE, "REMOVE a[1], a[1]", NULL, NULL),
			  "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a, [1]], path two: [a, [1]]");
	CHECK_STR(bind(EXPR_PROJECTION, "a, b, a.c", NULL, NULL),
			  "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, c]");
	CHECK_STR(bind(EXPR_PROJECTION, "a[0], a.b", NULL, NULL),
			  "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, [0]], path two: [a, b]");
	/* a #name holding a dot is one attribute, not a path */
	CHECK_STR(bind(EXPR_PROJECTION, "a.b, #ab", map("#ab", S("a.b"), NULL), NULL), "OK");
	CHECK_STR(bind(EXPR_UPDATE, "SET a.b = :v, a.c = :v, a.d[0] = :v, a.d[1] = :v", NULL, v), "OK");
	CHECK_STR(bind(EXPR_UPDATE, "SET a = b, b = a", NULL, NULL), "OK");
	CHECK_STR(bind(EXPR_PROJECTION, "a[0], a[1], b.c, b.d", NULL, NULL), "OK");
}

static void
test_key_conditions(void)
{
	ExprKeyTerm terms[2];
	StExpr	   *e;
	int			n;

	e = parse(EXPR_KEY_CONDITION, "pk = :p AND begins_with(#sk, :s)");
	CHECK(e != NULL);
	n = e ? expr_key_terms(e, terms) : 0;
	CHECK(n == 2);
	if (n == 2)
	{
		CHECK(terms[0].op == EXPR_KEY_EQ && strcmp(terms[0].value1, ":p") == 0);
		CHECK(terms[1].op == EXPR_KEY_BEGINS_WITH && terms[1].path->elems[0].kind == EXPR_PE_PLACEHOLDER);
	}
	e = parse(EXPR_KEY_CONDITION, "(sk BETWEEN :a AND :b) AND (pk = :p)");
	n = e ? expr_key_terms(e, terms) : 0;
	CHECK(n == 2 && terms[0].op == EXPR_KEY_BETWEEN && strcmp(terms[0].value2, ":b") == 0);

	static const char *const ok[] = {
		"pk = :p", "pk = :p AND sk = :s", "pk = :p AND sk < :s", "pk = :p AND sk <= :s",
		"pk = :p AND sk > :s", "pk = :p AND sk >= :s", "sk >= :s AND pk = :p",
	};

	for (int i = 0; i < (int) lengthof(ok); i++)
		CHECK_STR(perr(EXPR_KEY_CONDITION, ok[i]), "OK");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "pk = :p OR sk = :s"),
			  "Invalid operator used in KeyConditionExpression: OR");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "NOT pk = :p"),
			  "Invalid operator used in KeyConditionExpression: NOT");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "pk IN (:p, :q)"),
			  "Invalid operator used in KeyConditionExpression: IN");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "pk <> :p"),
			  "Invalid operator used in KeyConditionExpression: <>");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "pk = :p AND attribute_exists(sk)"),
			  "Invalid operator used in KeyConditionExpression: attribute_exists");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "pk = :p AND contains(sk, :s)"),
			  "Invalid operator used in KeyConditionExpression: contains");
	/* DynamoDB's words for a term's operands, none with the usual prefix */
	CHECK_STR(perr(EXPR_KEY_CONDITION, "size(pk) = :p"),
			  "KeyConditionExpressions cannot contain nested operations");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "pk = :p AND sk BETWEEN :a AND size(x)"),
			  "KeyConditionExpressions cannot contain nested operations");
	CHECK_STR(perr(EXPR_KEY_CONDITION, ":p BETWEEN size(a) AND :q"),
			  "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand");
	/* how many terms is checked with the names resolved (expr_key_condition) */
	CHECK_STR(perr(EXPR_KEY_CONDITION, "pk = :p AND sk = :s AND x = :x"), "OK");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "pk.x = :p"),
			  "KeyConditionExpressions cannot have conditions on nested attributes");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "pk = :p AND sk[1] > :p"),
			  "KeyConditionExpressions cannot have conditions on nested attributes");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "pk = :p AND :s < :p"),
			  "Invalid condition in KeyConditionExpression: No key attribute specified");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "begins_with(pk, sk)"),
			  "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition");
	/* the same attribute twice is the binder's (DynamoDB: operands must be distinct) */
	CHECK_STR(perr(EXPR_KEY_CONDITION, "pk = pk"), "OK");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "begins_with(sk, sk)"), "OK");
	/* BETWEEN's operands are not checked so: two attribute names */
	CHECK_STR(perr(EXPR_KEY_CONDITION, "pk = :p AND sk BETWEEN sk AND :b"),
			  "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition");
	CHECK_STR(perr(EXPR_KEY_CONDITION, ":p = pk AND :s < sk"), "OK");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "pk = :p AND begins_with(:s, sk)"),
			  "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand");
	CHECK_STR(perr(EXPR_KEY_CONDITION, "pk = sk"),
			  "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition");
}

static void
test_key_condition_schema(void)
{
	Av		   *values = map(":p", S("P"), ":s", S("S"), ":t", S("T"), NULL);
	ExprParams	p = {map("#k", S("sk"), NULL), values, NULL, NULL};
	ExprKeyCondition kc;
	StExpr	   *e;

#define KC(text) ((e = parse(EXPR_KEY_CONDITION, text)) != NULL && \
				  expr_key_condition(e, &p, "pk", 2, "sk", 2, &kc, &err))
	CHECK(KC("pk = :p"));
	CHECK(kc.pk_value && kc.pk_value->len == 1 && kc.pk_value->str[0] == 'P' && !kc.has_sk);
	CHECK(KC("#k BETWEEN :s AND :t AND pk = :p"));
	CHECK(kc.has_sk && kc.sk_op == EXPR_KEY_BETWEEN && kc.sk_value1->str[0] == 'S' &&
		  kc.sk_value2->str[0] == 'T');
	CHECK(KC("pk = :p AND begins_with(sk, :s)"));
	CHECK(kc.sk_op == EXPR_KEY_BEGINS_WITH);
	CHECK(!KC("sk = :s"));
	CHECK_STR(err.message, "Query condition missed key schema element: pk");
	CHECK(!KC("pk = :p AND foo = :s"));
	CHECK_STR(err.message, "Query condition missed key schema element: sk");
	CHECK(!KC("pk = :p AND pk = :s"));
	CHECK_STR(err.message, "KeyConditionExpressions must only contain one condition per key");
	/* a key named twice is reported before too many terms; names resolved */
	CHECK(!KC("pk = :p AND #k = :s AND sk > :t"));
	CHECK_STR(err.message, "KeyConditionExpressions must only contain one condition per key");
	CHECK(!KC("pk = :p AND sk = :s AND x = :t"));
	CHECK_STR(err.message, "Conditions can be of length 1 or 2 only");
	/* a term the binder would refuse ("sk = sk") never becomes a key condition */
	CHECK(!KC("pk = :p AND sk = sk"));
	CHECK(!KC("pk = :p AND begins_with(sk, sk)"));
	CHECK(!KC("pk = :p AND sk = :s AND #k"));
	CHECK(!KC("pk > :p"));
	CHECK_STR(err.message, "Query key condition not supported");
	CHECK(!KC("begins_with(pk, :p)"));
	CHECK_STR(err.message, "Query key condition not supported");
#undef KC
	/* a hash-only key */
	e = parse(EXPR_KEY_CONDITION, "pk = :p AND sk = :s");
	CHECK(e && !expr_key_condition(e, &p, "pk", 2, NULL, 0, &kc, &err));
	CHECK_STR(err.message, "Query key condition not supported");
}

static void
test_copy_independent_of_text(void)
{
	char		buf[64];
	StExpr	   *e;

	strcpy(buf, "#a.b[1] = :v AND c IN (:x)");
	e = parse(EXPR_CONDITION, buf);
	memset(buf, 'z', sizeof(buf) - 1);
	CHECK(e != NULL);
	if (e)
	{
		CHECK(strcmp(e->cond->args[0]->args[0]->path->elems[0].name, "#a") == 0);
		CHECK(strcmp(e->cond->args[0]->args[1]->name, ":v") == 0);
		CHECK(strcmp(e->cond->args[1]->args[0]->path->elems[0].name, "c") == 0);
	}
	CHECK_STR(expr_kind_label(EXPR_KEY_CONDITION), "KeyConditionExpression");
}

int
main(void)
{
	test_conditions_ok();
	test_precedence();
	test_paths();
	test_syntax_errors();
	test_empty_and_size();
	test_nesting();
	test_redundant_parentheses();
	test_reserved_words();
	test_functions();
	test_in_and_operator_limits();
	test_update_grammar();
	test_projection_grammar();
	test_placeholders();
	test_operand_types();
	test_overlap();
	test_key_conditions();
	test_key_condition_schema();
	test_copy_independent_of_text();
	st_standalone_reset();
	return unit_summary("test_expr_parse");
}
