/*-------------------------------------------------------------------------
 *
 * stdesign.c
 *		The cache statistics of a backend (the module's entry, _PG_init, is
 *		src/init/init.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "catalog/st_catalog.h"
#include "ops/expr_ops.h"
#include "ops/item_ops.h"
#include "partiql/partiql.h"

/*
 * stdesign.cache_stats(): how often this backend read the catalog and parsed
 * an expression or a PartiQL statement, so that tests can show that repeated
 * calls do neither; how often a table's definition was replaced while still
 * in use; how many reads went straight to a shard on this Citus worker;
 * and how many of this backend's reads a Citus worker answered from its
 * own shard (delegated reads).
 */
PG_FUNCTION_INFO_V1(st_cache_stats);
Datum
st_cache_stats(PG_FUNCTION_ARGS)
{
	char	   *json = psprintf("{\"catalog_loads\": " INT64_FORMAT ", \"expression_parses\": " INT64_FORMAT
								", \"definitions_kept_in_use\": " INT64_FORMAT
								", \"partiql_parses\": " INT64_FORMAT
								", \"shard_direct_reads\": " INT64_FORMAT
								", \"shard_delegated_reads\": " INT64_FORMAT "}",
								catalog_load_count(), ops_expr_parse_count(), catalog_kept_in_use_count(),
								partiql_parse_count(), ops_shard_direct_reads(), ops_shard_delegated_reads());

	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}
