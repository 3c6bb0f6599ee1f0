/*-------------------------------------------------------------------------
 *
 * http_ops.c
 *		The operations tools call when they connect, beyond st_api's:
 *		DescribeTimeToLive.
 *
 * aws-cli's waiters, dynamodb-admin and the SDKs' helpers call these on
 * their own.  Each answers what is true of stdesign (shapes from DynamoDB's
 * API reference and its service model): no table has time to live, and
 * the table must exist.  An operation st_api gains later (src/api) takes
 * precedence over the one here; tags, endpoints, limits and continuous
 * backups are st_api's (src/api/api_control.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"

#include "api/json_req.h"
#include "common/st_common.h"
#include "http_server.h"

static Jsonb *
json(const char *text)
{
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
}

/* DescribeTimeToLive: the table exists; time to live is not enabled on it. */
static Jsonb *
http_describe_time_to_live(Jsonb *request)
{
	(void) api_table(request);
	return json("{\"TimeToLiveDescription\": {\"TimeToLiveStatus\": \"DISABLED\"}}");
}

typedef struct HttpOperation
{
	const char *name;
	ApiHandler	handler;
} HttpOperation;

static const HttpOperation http_operations[] = {
	{"DescribeTimeToLive", http_describe_time_to_live},
};

ApiHandler
http_find_operation(const char *op)
{
	ApiHandler	h = api_find_operation(op);

	if (h != NULL)
		return h;
	for (int i = 0; i < (int) lengthof(http_operations); i++)
		if (strcmp(http_operations[i].name, op) == 0)
			return http_operations[i].handler;
	return NULL;
}
