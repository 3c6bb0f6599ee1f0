/*-------------------------------------------------------------------------
 *
 * test_partiql.c
 *		Unit tests of PartiQL's lexer, parser and planner: statements,
 *		literals, precedence, DynamoDB's messages with positions, the
 *		planning rule (GetItem, Query, Scan), and the expressions a plan
 *		writes out for the expression language.
 *
 *-------------------------------------------------------------------------
 */
#include "partiql/partiql.h"
#include "unit.h"

#include <stdio.h>

static StErr err;

static PqlStmt *
parse(const char *text)
{
	return partiql_parse(text, strlen(text), &err);
}

/* "OK" when text parses, else the error message. */
static const char *
perr(const char *text)
{
	if (parse(text) != NULL)
		return "OK";
	CHECK(err.code == ST_ERR_VALIDATION);
	return err.message;
}

#define OK(text) CHECK_STR(perr(text), "OK")

static const PqlKeySchema table_keys = {"pk", AV_S, "sk", AV_S, false};
static const PqlKeySchema hash_keys = {"id", AV_N, NULL, AV_S, false};
static const PqlKeySchema index_keys = {"gpk", AV_S, "gsk", AV_N, true};
static const char *multi_names[] = {"h1", "h2", "r1", "r2", "r3"};
static const PqlKeySchema multi_keys = {"h1", AV_S, "r1", AV_N, true, 5, 2, multi_names};

static PqlPlan plan;

/* Plan text against keys: "OK" or the error. */
static const char *
planned(const char *text, const PqlKeySchema *keys)
{
	PqlStmt    *s = parse(text);

	if (s == NULL)
		return err.message;
	if (!partiql_plan(s, keys, &plan, &err))
		return err.message;
	return "OK";
}

/* A plan's names and expressions in one line, to compare. */
static const char *
describe(void)
{
	static char buf[2048];
	int			n = 0;
	static const char *const access[] = {"GET", "QUERY", "SCAN"};

	n += snprintf(buf + n, sizeof(buf) - n, "%s npk=%d sk=%d", access[plan.access], plan.npk, plan.sk_op);
	if (plan.filter)
		n += snprintf(buf + n, sizeof(buf) - n, " filter=[%s]", plan.filter);
	if (plan.condition)
		n += snprintf(buf + n, sizeof(buf) - n, " cond=[%s]", plan.condition);
	if (plan.update)
		n += snprintf(buf + n, sizeof(buf) - n, " update=[%s]", plan.update);
	if (plan.projection)
		n += snprintf(buf + n, sizeof(buf) - n, " proj=[%s]", plan.projection);
	for (int i = 0; plan.names && i < plan.names->n; i++)
		n += snprintf(buf + n, sizeof(buf) - n, " %s=%.*s", plan.names->members[i].name,
					  plan.names->members[i].value->len, plan.names->members[i].value->str);
	snprintf(buf + n, sizeof(buf) - n, " values=%d", plan.nvalues);
	return buf;
}

#define PLAN(text, keys, expected) \
	do { \
		CHECK_STR(planned(text, keys), "OK"); \
		CHECK_STR(describe(), expected); \
	} while (0)

static void
test_statements(void)
{
	PqlStmt    *s;

	OK("SELECT * FROM \"T\"");
	OK("select * from T where a = 1");
	OK("SELECT a, b.c, d[1], \"e f\".g['h'] FROM \"T\".\"I\" WHERE a = ? ORDER BY b DESC");
	OK("INSERT INTO \"T\" VALUE {'a': 1, 'b': 'x', 'c': [1, 'y', true, false, null], 'd': {'e': <<1, 2>>}}");
	OK("INSERT INTO \"T\" VALUE ?");
	OK("UPDATE \"T\" SET a = 1 SET b = b + 1, c = list_append(c, [1]) REMOVE d, e[2] WHERE pk = 'x' RETURNING ALL NEW *");
	OK("DELETE FROM \"T\" WHERE pk = 'x' AND sk = 'y' RETURNING ALL OLD *");
	OK("EXISTS (SELECT * FROM \"T\" WHERE pk = 'x')");
	OK("SELECT * FROM \"T\";");
	OK("SELECT * FROM \"T\" WHERE a = -1.5e3 AND b <> 'it''s' AND c != 2 AND \"q\"\"x\" >= .5");
	OK("SELECT * FROM \"T\" -- comment\n WHERE a = 1");

	s = parse("SELECT a, b FROM \"Tab\".\"Ix\" WHERE x = ? AND y IN [?, ?] ORDER BY z DESC");
	CHECK(s != NULL && s->kind == PQL_SELECT && s->nproj == 2 && s->nparams == 3);
	CHECK(s != NULL && strcmp(s->table, "Tab") == 0 && strcmp(s->index, "Ix") == 0 && s->order_desc);
	s = parse("UPDATE T SET a = 1 REMOVE b WHERE pk = 1 RETURNING MODIFIED OLD *");
	CHECK(s != NULL && s->kind == PQL_UPDATE && s->nupdates == 2 && s->returning == PQL_RET_MODIFIED_OLD);
	CHECK(s != NULL && s->updates[1].action == PQL_UPD_REMOVE && s->updates[1].value == NULL);
	s = parse("INSERT INTO T VALUE {'a': 1}");
	CHECK(s != NULL && s->value->kind == PQL_N_MAP && s->value->nargs == 1);
	/* precedence: OR below AND below NOT */
	s = parse("SELECT * FROM T WHERE a = 1 OR b = 2 AND NOT c = 3");
	CHECK(s != NULL && s->where->kind == PQL_N_OR && s->where->args[1]->kind == PQL_N_AND &&
		  s->where->args[1]->args[1]->kind == PQL_N_NOT);
	/* keywords are case-insensitive, names are not */
	s = parse("sElEcT * FrOm Music WhErE Artist = 'x'");
	CHECK(s != NULL && strcmp(s->table, "Music") == 0 &&
		  s->where->args[0]->path->elems[0].len == 6 &&
		  memcmp(s->where->args[0]->path->elems[0].name, "Artist", 6) == 0);
	CHECK(partiql_is_keyword("select", 6) && partiql_is_keyword("MISSING", 7));
	CHECK(!partiql_is_keyword("Artist", 6) && !partiql_is_keyword("selec", 5));
}

static void
test_errors(void)
{
	CHECK_STR(perr("SELEC * FROM T"),
			  "Statement wasn't well formed, can't be processed: Invalid operation. Only select, insert, update, delete and exists operations are valid at 1:1:0");
	CHECK_STR(perr("SELECT * FROM T WHERE a = 1 AND"),
			  "Statement wasn't well formed, can't be processed: Unexpected end of statement at 1:32:0");
	CHECK_STR(perr("SELECT * FROM T WHERE a == 1"),
			  "Statement wasn't well formed, can't be processed: Unexpected token: = at 1:26:1");
	CHECK_STR(perr("SELECT * FROM\nT WHERE FROM = 1"),
			  "Statement wasn't well formed, can't be processed: Unexpected keyword: FROM at 2:9:4");
	CHECK_STR(perr("SELECT * FROM T WHERE a = 'x"),
			  "Statement wasn't well formed, can't be processed: Unexpected token: 'x at 1:27:2");
	CHECK_STR(perr("SELECT * FROM T WHERE a = `x`"), "Ion Literals are not supported at 1:27:1");
	CHECK_STR(perr("SELECT * FROM T LIMIT 1"), "Unsupported clause: LIMIT at 1:17:5");
	CHECK_STR(perr("SELECT * FROM T WHERE foo(a) = 1"), "Unrecognized function: foo at 1:23:3");
	CHECK_STR(perr("SELECT * FROM T WHERE size(a, b) = 1"),
			  "Incorrect number of arguments for function size: expected 1, got 2 at 1:23:4");
	CHECK_STR(perr("INSERT INTO T VALUE {'a': 1, 'a': 2}"), "Duplicate keys in tuple. Key: a at 1:30:3");
	CHECK_STR(perr("INSERT INTO T VALUES {'a': 1}"), "Unsupported clause: VALUES at 1:15:6");
	CHECK_STR(perr("SELECT * FROM T WHERE a = 1e400"),
			  "Number overflow. Attempting to store a number with magnitude larger than supported range");
	CHECK_STR(perr(""), "Statement wasn't well formed, can't be processed: Invalid operation. Only select, insert, update, delete and exists operations are valid at 1:1:0");
	{
		char		big[PARTIQL_MAX_STATEMENT + 2];

		memset(big, ' ', sizeof(big));
		big[sizeof(big) - 1] = '\0';
		CHECK_STR(perr(big),
				  "1 validation error detected: Value at 'statement' failed to satisfy constraint: Member must have length less than or equal to 8192");
	}
	{
		/* nesting is bounded, whatever the input */
		static char deep[6000];
		int			n = snprintf(deep, sizeof(deep), "SELECT * FROM T WHERE ");

		for (int i = 0; i < 2000; i++)
			deep[n++] = '(';
		deep[n] = '\0';
		CHECK_STR(perr(deep), "Statement wasn't well formed, can't be processed: nesting too deep at 1:1024:0");
	}
}

static void
test_planning(void)
{
	/* whole key: GetItem, nothing left to filter */
	PLAN("SELECT * FROM T WHERE pk = 'a' AND sk = 'b'", &table_keys, "GET npk=1 sk=1 values=0");
	PLAN("SELECT * FROM T WHERE 'b' = sk AND pk = ?", &table_keys, "GET npk=1 sk=1 values=0");
	PLAN("SELECT * FROM T WHERE id = 3", &hash_keys, "GET npk=1 sk=0 values=0");
	/* partition key: Query; one sort-key condition is the range, the rest filters */
	PLAN("SELECT * FROM T WHERE pk = 'a'", &table_keys, "QUERY npk=1 sk=0 values=0");
	PLAN("SELECT * FROM T WHERE pk = 'a' AND sk > 'b' AND sk < 'c'", &table_keys,
		 "QUERY npk=1 sk=4 filter=[#n0 < :v0] #n0=sk values=1");
	PLAN("SELECT * FROM T WHERE 'c' > sk AND pk = 'a'", &table_keys, "QUERY npk=1 sk=2 values=0");
	PLAN("SELECT * FROM T WHERE pk = 'a' AND sk BETWEEN 'a' AND 'b'", &table_keys, "QUERY npk=1 sk=6 values=0");
	PLAN("SELECT * FROM T WHERE pk = 'a' AND begins_with(sk, 'x') AND n = 1", &table_keys,
		 "QUERY npk=1 sk=7 filter=[#n0 = :v0] #n0=n values=1");
	PLAN("SELECT * FROM T WHERE pk IN ['a', 'b'] AND sk = 'x'", &table_keys, "QUERY npk=2 sk=1 values=0");
	PLAN("SELECT * FROM T WHERE pk = 'a' AND sk <> 'x'", &table_keys,
		 "QUERY npk=1 sk=0 filter=[#n0 <> :v0] #n0=sk values=1");
	/* an index's keys are not unique: a Query even for its whole key */
	PLAN("SELECT * FROM T WHERE gpk = 'a' AND gsk = 1", &index_keys, "QUERY npk=1 sk=1 values=0");
	PLAN("SELECT * FROM T WHERE gpk = 'a' ORDER BY gsk DESC", &index_keys, "QUERY npk=1 sk=0 values=0");
	CHECK(!plan.forward);
	/*
	 * a multi-attribute key: every partition attribute with =, then the
	 * sort attributes left to right (= up to the last used, which may have a
	 * range); what the key does not take filters
	 */
	PLAN("SELECT * FROM T WHERE r1 = 1 AND 'b' = h2 AND h1 = 'a'", &multi_keys, "QUERY npk=0 sk=0 values=0");
	CHECK(plan.multi && plan.nmulti == 3);
	PLAN("SELECT * FROM T WHERE h1 = 'a' AND h2 = 'b' AND r1 = 1 AND r2 > 2 AND r3 = 3", &multi_keys,
		 "QUERY npk=0 sk=4 filter=[#n0 = :v0] #n0=r3 values=1");
	CHECK(plan.multi && plan.nmulti == 3);
	PLAN("SELECT * FROM T WHERE h1 = 'a' AND h2 = 'b' AND r2 = 2 ORDER BY r2 DESC", &multi_keys,
		 "QUERY npk=0 sk=0 filter=[#n0 = :v0] #n0=r2 values=1");
	CHECK(plan.multi && plan.nmulti == 2 && !plan.forward);
	PLAN("SELECT * FROM T WHERE h1 = 'a' AND h2 = 'b' AND begins_with(r1, 'x')", &multi_keys,
		 "QUERY npk=0 sk=7 values=0");
	CHECK(plan.nmulti == 2);
	PLAN("SELECT * FROM T WHERE h1 = 'a' AND h2 IN ['b']", &multi_keys,
		 "SCAN npk=0 sk=0 filter=[#n0 = :v0 AND #n1 IN (:v1)] #n0=h1 #n1=h2 values=2");
	CHECK(!plan.multi);
	CHECK_STR(planned("SELECT * FROM T WHERE h1 = 'a' ORDER BY r1", &multi_keys),
			  "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.");
	CHECK_STR(planned("SELECT * FROM T WHERE h1 = 'a' AND h2 = 'b' ORDER BY x", &multi_keys),
			  "Variable reference x in ORDER BY clause must be part of the primary key");
	/* anything else: a Scan with the whole WHERE as filter */
	PLAN("SELECT * FROM T WHERE pk = 'a' OR sk = 'b'", &table_keys,
		 "SCAN npk=0 sk=0 filter=[#n0 = :v0 OR #n1 = :v1] #n0=pk #n1=sk values=2");
	PLAN("SELECT * FROM T WHERE sk = 'b'", &table_keys, "SCAN npk=0 sk=0 filter=[#n0 = :v0] #n0=sk values=1");
	PLAN("SELECT * FROM T", &table_keys, "SCAN npk=0 sk=0 values=0");
	PLAN("SELECT * FROM T WHERE pk = a", &table_keys,
		 "SCAN npk=0 sk=0 filter=[#n0 = #n1] #n0=pk #n1=a values=0");
	/* conditions as the expression language writes them */
	PLAN("SELECT * FROM T WHERE (a = 1 OR b = 2) AND NOT (c = 3 AND d = 4)", &table_keys,
		 "SCAN npk=0 sk=0 filter=[(#n0 = :v0 OR #n1 = :v1) AND NOT (#n2 = :v2 AND #n3 = :v3)] #n0=a #n1=b #n2=c #n3=d values=4");
	PLAN("SELECT * FROM T WHERE a IS MISSING AND b IS NOT MISSING AND c IS NULL AND d IS NOT NULL", &table_keys,
		 "SCAN npk=0 sk=0 filter=[attribute_not_exists(#n0) AND attribute_exists(#n1) AND attribute_type(#n2, :v0) AND NOT attribute_type(#n3, :v1)] #n0=a #n1=b #n2=c #n3=d values=2");
	PLAN("SELECT * FROM T WHERE a.b[2].c IN [1, 2] AND size(x) BETWEEN 1 AND ? AND contains(s, 'x')", &table_keys,
		 "SCAN npk=0 sk=0 filter=[#n0.#n1[2].#n2 IN (:v0, :v1) AND size(#n3) BETWEEN :v2 AND :v3 AND contains(#n4, :v4)] #n0=a #n1=b #n2=c #n3=x #n4=s values=5");
	PLAN("SELECT a, b.c, a FROM T", &table_keys, "SCAN npk=0 sk=0 proj=[#n0, #n1.#n2, #n0] #n0=a #n1=b #n2=c values=0");
	/* ORDER BY */
	CHECK_STR(planned("SELECT * FROM T WHERE n = 1 ORDER BY sk", &table_keys),
			  "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.");
	CHECK_STR(planned("SELECT * FROM T WHERE pk = 'a' ORDER BY n", &table_keys),
			  "Variable reference n in ORDER BY clause must be part of the primary key");
}

static void
test_writes(void)
{
	PLAN("UPDATE T SET a = 1, b = b + ? REMOVE c WHERE pk = 'x' AND sk = 'y' AND d > 2", &table_keys,
		 "GET npk=1 sk=1 cond=[attribute_exists(#n0) AND #n1 > :v0] update=[SET #n2 = :v1, #n3 = #n3 + :v2 REMOVE #n4] #n0=pk #n1=d #n2=a #n3=b #n4=c values=3");
	PLAN("UPDATE T SET s = set_add(s, <<1>>) SET t = set_delete(t, <<'a'>>) WHERE id = 1", &hash_keys,
		 "GET npk=1 sk=0 cond=[attribute_exists(#n0)] update=[ADD #n1 :v0 DELETE #n2 :v1] #n0=id #n1=s #n2=t values=2");
	PLAN("DELETE FROM T WHERE pk = 'x' AND sk = 'y'", &table_keys, "GET npk=1 sk=1 values=0");
	PLAN("DELETE FROM T WHERE pk = 'x' AND sk = 'y' AND (a = 1 OR b = 2)", &table_keys,
		 "GET npk=1 sk=1 cond=[#n0 = :v0 OR #n1 = :v1] #n0=a #n1=b values=2");
	PLAN("EXISTS(SELECT * FROM T WHERE pk = 'x' AND sk = 'y')", &table_keys,
		 "GET npk=1 sk=1 cond=[attribute_exists(#n0)] #n0=pk values=0");
	PLAN("INSERT INTO T VALUE {'pk': 'x', 'sk': 'y'}", &table_keys,
		 "GET npk=0 sk=0 cond=[attribute_not_exists(#n0)] #n0=pk values=0");
	CHECK_STR(planned("UPDATE T SET a = 1 WHERE pk = 'x'", &table_keys),
			  "Where clause does not contain a mandatory equality on all key attributes");
	CHECK_STR(planned("DELETE FROM T WHERE pk = 'x' AND sk > 'y'", &table_keys),
			  "Where clause does not contain a mandatory equality on all key attributes");
	CHECK_STR(planned("DELETE FROM T WHERE pk = 'x' AND sk = 'y' RETURNING ALL NEW *", &table_keys),
			  "Invalid returning clause: RETURNING ALL NEW *. Only RETURNING ALL OLD * is allowed in DELETE statements.");
	CHECK_STR(planned("UPDATE T SET a = set_add(b, <<1>>) WHERE id = 1", &hash_keys),
			  "set_add and set_delete take the attribute they assign and a set value");
	CHECK_STR(planned("SELECT * FROM T WHERE a = list_append(a, [1])", &table_keys),
			  "Unsupported function in a condition: list_append");
}

static void
test_values(void)
{
	PqlStmt    *s = parse("INSERT INTO T VALUE {'a': ?, 'b': <<?, 'x'>>, 'c': [1, ?], 'd': {'e': -2.50}}");
	Av		   *params = av_new(AV_L);
	Av		   *v;

	CHECK(s != NULL && s->nparams == 3);
	av_append(params, av_new_str(AV_N, "7", 1));
	av_append(params, av_new_str(AV_S, "y", 1));
	av_append(params, av_new_bool(true));
	v = partiql_value(s->value, params, &err);
	CHECK(v != NULL && v->type == AV_M && v->n == 4);
	CHECK(v != NULL && av_map_get(v, "a", 1)->type == AV_N);
	CHECK(v != NULL && av_map_get(v, "b", 1)->type == AV_SS && av_map_get(v, "b", 1)->n == 2);
	CHECK(v != NULL && av_map_get(v, "c", 1)->items[1]->type == AV_BOOL);
	CHECK(v != NULL && strncmp(av_map_get(av_map_get(v, "d", 1), "e", 1)->str, "-2.5", 4) == 0);
	/* too few parameters */
	params->n = 2;
	CHECK(partiql_value(s->value, params, &err) == NULL);
	CHECK_STR(err.message, "Number of parameters in request and statement don't match.");
	/* sets: not empty, one type, no duplicates */
	s = parse("INSERT INTO T VALUE {'a': <<1, 1.0>>}");
	CHECK(s != NULL && partiql_value(s->value, NULL, &err) == NULL);
	CHECK_STR(err.message, "One or more parameter values were invalid: Input collection contains duplicates");
	s = parse("INSERT INTO T VALUE {'a': <<>>}");
	CHECK(s != NULL && partiql_value(s->value, NULL, &err) == NULL);
	s = parse("INSERT INTO T VALUE {'a': <<1, 'a'>>}");
	CHECK(s != NULL && partiql_value(s->value, NULL, &err) == NULL);
	s = parse("INSERT INTO T VALUE {'a': <<true>>}");
	CHECK(s != NULL && partiql_value(s->value, NULL, &err) == NULL);
}

int
main(void)
{
	test_statements();
	test_errors();
	test_planning();
	test_writes();
	test_values();
	return unit_summary("test_partiql");
}
