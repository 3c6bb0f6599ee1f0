/*-------------------------------------------------------------------------
 *
 * stdesign.c
 *		Module entry: the GUCs and the cache statistics.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "catalog/st_catalog.h"
#include "ops/expr_ops.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomStringVariable("stdesign.default_table",
							   "The table st_* functions use when \"table\" is not given.",
							   "When unset and exactly one table exists, that table is used.",
							   &st_default_table_guc,
							   NULL,
							   PGC_USERSET,
							   0,
							   NULL, NULL, NULL);
	MarkGUCPrefixReserved("stdesign");
	catalog_init();
}

/*
 * stdesign.cache_stats(): how often this backend read the catalog and parsed
 * an expression, so that tests can show that repeated calls do neither; and
 * how often a table's definition was replaced while still in use.
 */
PG_FUNCTION_INFO_V1(st_cache_stats);
Datum
st_cache_stats(PG_FUNCTION_ARGS)
{
	char	   *json = psprintf("{\"catalog_loads\": " INT64_FORMAT ", \"expression_parses\": " INT64_FORMAT
								", \"definitions_kept_in_use\": " INT64_FORMAT "}",
								catalog_load_count(), ops_expr_parse_count(), catalog_kept_in_use_count());

	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}
