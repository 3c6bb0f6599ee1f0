/*-------------------------------------------------------------------------
 *
 * init.c
 *		The module's entry: _PG_init defines the settings, registers the
 *		HTTP endpoint's background workers (when the library is preloaded)
 *		and sets up the catalog cache's invalidation.
 *
 * It sits above every layer (test/scripts/layers.sh), since loading the
 * library sets up all of them; nothing calls into it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"

#include "catalog/st_catalog.h"
#include "http/http_server.h"

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
	DefineCustomIntVariable("stdesign.citus_shard_count",
							"Distribute every table CreateTable creates over Citus with this many shards.",
							"0 (the default) leaves new tables undistributed; without Citus it has no effect.",
							&st_citus_shard_count_guc,
							0, 0, 64000,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);
	http_init();
	MarkGUCPrefixReserved("stdesign");
	catalog_init();
}
