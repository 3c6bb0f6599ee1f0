/*-------------------------------------------------------------------------
 *
 * transact_request.h
 *		TransactWriteItems / TransactGetItems requests from JSON, shared by
 *		st_transact, st_transact_get and st_api.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_TRANSACT_REQUEST_H
#define ST_TRANSACT_REQUEST_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "ops/transact.h"

/* Parse and validate TransactItems (typed or plain values). */
extern StTxAction *api_transact_parse_write(Jsonb *items, bool typed, int *n);

/* ClientRequestToken: true when the same request already ran (see .c). */
extern bool api_transact_token_seen(const char *token, Jsonb *request);

/* TransactGetItems: {"Responses": [...]} */
extern Jsonb *api_transact_get_responses(Jsonb *items, bool typed);

#endif							/* ST_TRANSACT_REQUEST_H */
