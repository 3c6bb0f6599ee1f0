/*-------------------------------------------------------------------------
 *
 * init.c
 *		The module's entry: _PG_init defines the settings, registers the
 *		background workers of the HTTP endpoint and of time to live (when
 *		the library is preloaded) and sets up the catalog cache's
 *		invalidation.
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
#include "ops/collection.h"
#include "ttl/ttl.h"

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
	DefineCustomIntVariable("stdesign.item_collection_size_limit",
							"Largest size of an item collection of a table with local secondary indexes.",
							"DynamoDB's limit is 10 GB; a write past it fails with ItemCollectionSizeLimitExceededException. 0: no limit.",
							&ops_item_collection_limit_kb,
							OPS_ITEM_COLLECTION_LIMIT_DEFAULT_KB, 0, INT_MAX,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);
	http_init();
	ttl_init();
	MarkGUCPrefixReserved("stdesign");
	catalog_init();
}
