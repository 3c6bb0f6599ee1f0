/*-------------------------------------------------------------------------
 *
 * index_cache.h
 *		The indexes of an item relation, opened for writing with their
 *		IndexInfo built and their expressions prepared once per backend.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_INDEX_CACHE_H
#define ST_INDEX_CACHE_H

#include "postgres.h"

#include "nodes/execnodes.h"

/*
 * Open the indexes of rri's relation into rri, as ExecOpenIndices(rri, true)
 * does (close them with ExecCloseIndices), but with IndexInfos kept from
 * earlier calls of this backend while the relation's set of indexes is the
 * same: building them, and preparing the expressions and predicates of the
 * GSIs' partial expression indexes, cost a tenth of an UpdateItem.
 */
extern void storage_index_cache_open(ResultRelInfo *rri);

#endif							/* ST_INDEX_CACHE_H */
