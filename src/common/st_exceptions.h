/*-------------------------------------------------------------------------
 *
 * st_exceptions.h
 *		The table of DynamoDB exceptions stdesign raises, with the SQLSTATE
 *		each one is reported under.
 *
 * This is an X-macro list: every consumer defines ST_EXCEPTION(sym, name,
 * sqlstate) before including it.  The README's error table is generated from
 * this file (see `make errors-table`), so the two can never disagree.
 *
 * SQLSTATEs live in the implementation-defined class "SD" (stdesign).
 *
 *-------------------------------------------------------------------------
 */

/* symbol                        DynamoDB exception name                        SQLSTATE */
ST_EXCEPTION(ST_ERR_VALIDATION, "ValidationException", "SD001")
ST_EXCEPTION(ST_ERR_RESOURCE_NOT_FOUND, "ResourceNotFoundException", "SD002")
ST_EXCEPTION(ST_ERR_RESOURCE_IN_USE, "ResourceInUseException", "SD003")
ST_EXCEPTION(ST_ERR_CONDITIONAL_CHECK_FAILED, "ConditionalCheckFailedException", "SD004")
ST_EXCEPTION(ST_ERR_TRANSACTION_CANCELED, "TransactionCanceledException", "SD005")
ST_EXCEPTION(ST_ERR_IDEMPOTENT_MISMATCH, "IdempotentParameterMismatchException", "SD006")
ST_EXCEPTION(ST_ERR_ITEM_COLLECTION_SIZE, "ItemCollectionSizeLimitExceededException", "SD007")
ST_EXCEPTION(ST_ERR_UNKNOWN_OPERATION, "UnknownOperationException", "SD008")
ST_EXCEPTION(ST_ERR_TRANSACTION_CONFLICT, "TransactionConflictException", "SD009")
ST_EXCEPTION(ST_ERR_SERIALIZATION, "SerializationException", "SD010")
ST_EXCEPTION(ST_ERR_LIMIT_EXCEEDED, "LimitExceededException", "SD011")
ST_EXCEPTION(ST_ERR_INTERNAL, "InternalServerError", "SD012")
ST_EXCEPTION(ST_ERR_TRANSACTION_IN_PROGRESS, "TransactionInProgressException", "SD013")
