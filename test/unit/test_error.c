/*-------------------------------------------------------------------------
 *
 * test_error.c
 *		The error report of the backend-independent layers: DynamoDB's
 *		"Member must not be null" message built in one place, the hint that
 *		only internal errors carry by themselves, and the exception table.
 *
 *-------------------------------------------------------------------------
 */
#include "common/st_common.h"

#include "unit.h"

static void
test_null_member(void)
{
	StErr		err;

	CHECK(!st_fail_null(&err, "transactItems.%d.member.%s.tableName", 2, "put"));
	CHECK(err.code == ST_ERR_VALIDATION);
	CHECK_STR(err.message,
			  "1 validation error detected: Value null at 'transactItems.2.member.put.tableName' failed to satisfy constraint: Member must not be null");
	CHECK(err.detail == NULL && err.hint == NULL);
}

static void
test_hints(void)
{
	StErr		err;

	/* an internal error asks to be reported; others have no advice of their own */
	CHECK(!st_fail(&err, ST_ERR_INTERNAL, "malformed %s", "tree"));
	CHECK_STR(err.message, "malformed tree");
	CHECK_STR(err.hint, "This is a bug in stdesign: please report it.");
	CHECK(!st_fail(&err, ST_ERR_VALIDATION, "bad"));
	CHECK(err.hint == NULL && err.detail == NULL);
}

static void
test_table(void)
{
	CHECK_STR(st_exception_name(ST_ERR_INTERNAL), "InternalServerError");
	CHECK_STR(st_exception_sqlstate(ST_ERR_INTERNAL), "SD012");
	CHECK_STR(st_exception_name(ST_ERR_VALIDATION), "ValidationException");
	CHECK_STR(st_exception_sqlstate(ST_ERR_VALIDATION), "SD001");
	/* codes outside the table (ST_OK included) report as internal errors */
	CHECK_STR(st_exception_name(ST_OK), "InternalServerError");
	CHECK_STR(st_exception_sqlstate(ST_ERR__COUNT), "XX000");
}

int
main(void)
{
	test_null_member();
	test_hints();
	test_table();
	st_standalone_reset();
	return unit_summary("test_error");
}
