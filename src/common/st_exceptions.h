/*-------------------------------------------------------------------------
 *
 * st_exceptions.h
 *		The table of DynamoDB exceptions stdesign raises, with the SQLSTATE
 *		each one is reported under.
 *
 * This is an X-macro list: every consumer defines ST_EXCEPTION(sym, name,
 * sqlstate) before including it.  The error table of docs/errors.md is generated from
 * this file (`make errors-table`, and make test checks it), so the two can
 * never disagree.
 *
 * SQLSTATEs live in the implementation-defined class "SD" (stdesign).
 *
 *-------------------------------------------------------------------------
 */

/* symbol                        DynamoDB exception name                        SQLSTATE */
ST_EXCEPTION(ST_ERR_VALIDATION, "ValidationException", "SD001")	/* a request is malformed or breaks one of DynamoDB's rules or limits */
ST_EXCEPTION(ST_ERR_RESOURCE_NOT_FOUND, "ResourceNotFoundException", "SD002")	/* the table (or index) does not exist */
ST_EXCEPTION(ST_ERR_RESOURCE_IN_USE, "ResourceInUseException", "SD003")	/* a table of that name already exists */
ST_EXCEPTION(ST_ERR_CONDITIONAL_CHECK_FAILED, "ConditionalCheckFailedException", "SD004")	/* a ConditionExpression was false (DETAIL: the item, when asked for) */
ST_EXCEPTION(ST_ERR_TRANSACTION_CANCELED, "TransactionCanceledException", "SD005")	/* a transaction was cancelled (DETAIL: CancellationReasons) */
ST_EXCEPTION(ST_ERR_IDEMPOTENT_MISMATCH, "IdempotentParameterMismatchException", "SD006")	/* a ClientRequestToken was reused within 10 minutes with different TransactItems */
ST_EXCEPTION(ST_ERR_ITEM_COLLECTION_SIZE, "ItemCollectionSizeLimitExceededException", "SD007")	/* a write would take an item collection of a table with LSIs past 10 GB (stdesign.item_collection_size_limit) */
ST_EXCEPTION(ST_ERR_UNKNOWN_OPERATION, "UnknownOperationException", "SD008")	/* st_api was given an operation it does not know */
ST_EXCEPTION(ST_ERR_TRANSACTION_CONFLICT, "TransactionConflictException", "SD009")	/* a write could not get its item because others kept changing it */
ST_EXCEPTION(ST_ERR_SERIALIZATION, "SerializationException", "SD010")	/* a JSON value has the wrong type for its field (a number where a string belongs, bad base64) */
ST_EXCEPTION(ST_ERR_LIMIT_EXCEEDED, "LimitExceededException", "SD011")	/* an account-style limit would be passed (more than 20 GSIs; more than one index created or deleted by one UpdateTable) */
ST_EXCEPTION(ST_ERR_INTERNAL, "InternalServerError", "SD012")	/* something that cannot happen did: stdesign's own data is inconsistent or an internal step failed (a bug: please report it) */
ST_EXCEPTION(ST_ERR_TRANSACTION_IN_PROGRESS, "TransactionInProgressException", "SD013")	/* a ClientRequestToken is used by a transaction still running (reserved: the repeat waits for it instead) */
ST_EXCEPTION(ST_ERR_TABLE_NOT_FOUND, "TableNotFoundException", "SD014")	/* CreateBackup, DescribeContinuousBackups or UpdateContinuousBackups of a table that does not exist */
ST_EXCEPTION(ST_ERR_DUPLICATE_ITEM, "DuplicateItemException", "SD015")	/* a PartiQL INSERT of an item whose key already exists */
ST_EXCEPTION(ST_ERR_BACKUP_NOT_FOUND, "BackupNotFoundException", "SD016")	/* DescribeBackup, DeleteBackup or RestoreTableFromBackup of a backup that does not exist or that the role may not see */
ST_EXCEPTION(ST_ERR_BACKUP_IN_USE, "BackupInUseException", "SD017")	/* a backup is being deleted or restored by another transaction */
ST_EXCEPTION(ST_ERR_TABLE_ALREADY_EXISTS, "TableAlreadyExistsException", "SD018")	/* RestoreTableFromBackup to the name of a table that exists */
ST_EXCEPTION(ST_ERR_EXPIRED_ITERATOR, "ExpiredIteratorException", "SD019")	/* GetRecords with a shard iterator older than 15 minutes */
ST_EXCEPTION(ST_ERR_TRIMMED_DATA, "TrimmedDataAccessException", "SD020")	/* GetShardIterator or GetRecords at a position whose records were trimmed from the stream */
ST_EXCEPTION(ST_ERR_POLICY_NOT_FOUND, "PolicyNotFoundException", "SD021")	/* GetResourcePolicy of a resource without a policy; an ExpectedRevisionId that is not the policy's revision */
