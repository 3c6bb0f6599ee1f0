/* stdesign.sql: DynamoDB single-table design in PostgreSQL (the install script of the current version) */

\echo Use "CREATE EXTENSION stdesign" to load this file. \quit

-- The catalog and the internal helpers live in schema stdesign; the data
-- relations (one per DynamoDB table) in schema stdesign_data; the st_*
-- functions in the schema the extension is created in (usually public).
CREATE SCHEMA stdesign;
CREATE SCHEMA stdesign_data;

-- The table access method of every table's relation: heap storage, with the
-- items of one partition (an item collection) kept on few pages.
CREATE FUNCTION stdesign.tableam_handler(internal) RETURNS table_am_handler
	AS 'MODULE_PATHNAME', 'st_tableam_handler' LANGUAGE C;
CREATE ACCESS METHOD stdesign TYPE TABLE HANDLER stdesign.tableam_handler;
COMMENT ON ACCESS METHOD stdesign IS
	'heap with partition-affine placement: the items of a partition live on few pages';

CREATE TABLE stdesign.tables (
	table_name text COLLATE "C" PRIMARY KEY,
	relation_name text COLLATE "C" NOT NULL UNIQUE,
	pk_name text COLLATE "C" NOT NULL,
	pk_type text NOT NULL CHECK (pk_type IN ('S', 'N', 'B')),
	sk_name text COLLATE "C",
	sk_type text CHECK (sk_type IN ('S', 'N', 'B')),
	definition jsonb NOT NULL,		-- the CreateTable request, normalised
	created_at timestamptz NOT NULL DEFAULT now(),
	-- the name of the key's btree; NULL (rows of a 0.1.0 dump) is 0.1.0's
	-- name, the relation's cut to 54 bytes and "_key"
	key_index text COLLATE "C"
);

CREATE TABLE stdesign.indexes (
	table_name text COLLATE "C" NOT NULL REFERENCES stdesign.tables ON DELETE CASCADE,
	index_name text COLLATE "C" NOT NULL,
	is_local boolean NOT NULL DEFAULT false,
	pk_name text COLLATE "C" NOT NULL,
	pk_type text NOT NULL CHECK (pk_type IN ('S', 'N', 'B')),
	sk_name text COLLATE "C",
	sk_type text CHECK (sk_type IN ('S', 'N', 'B')),
	projection_type text NOT NULL DEFAULT 'ALL'
		CHECK (projection_type IN ('ALL', 'KEYS_ONLY', 'INCLUDE')),
	non_key_attributes text[],
	pg_index text COLLATE "C" NOT NULL,
	definition jsonb NOT NULL,		-- the index's part of the request
	created_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (table_name, index_name)
);

-- ClientRequestTokens of st_transact, kept ten minutes (not dumped:
-- transient); see the end of this script.

SELECT pg_catalog.pg_extension_config_dump('stdesign.tables', '');
SELECT pg_catalog.pg_extension_config_dump('stdesign.indexes', '');

-- Index key of a partition-key value: its bytes when at most 256 bytes long,
-- else the first 256 bytes and the SHA-256 of the whole.  Keeps every btree
-- entry under Postgres's size limit for DynamoDB's 2048-byte partition keys;
-- equality is preserved, and order inside a partition comes from the sort key.
CREATE FUNCTION stdesign.key_ix(text) RETURNS bytea
	AS 'MODULE_PATHNAME', 'st_key_ix_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION stdesign.key_ix(bytea) RETURNS bytea
	AS 'MODULE_PATHNAME', 'st_key_ix_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Keeps each data relation's pk and sk columns equal to its items' keys.
CREATE FUNCTION stdesign.set_keys() RETURNS trigger
	AS 'MODULE_PATHNAME', 'st_set_keys' LANGUAGE C;

-- The size of a stored (typed) item by DynamoDB's rules.
CREATE FUNCTION stdesign.item_size(jsonb) RETURNS bigint
	AS 'MODULE_PATHNAME', 'st_item_size_stored' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The statement st_query prepares for a shape of key condition, to EXPLAIN it.
CREATE FUNCTION stdesign.query_sql(table_name text, index_name text, lower_bound integer,
								   upper_bound integer, backward boolean) RETURNS text
	AS 'MODULE_PATHNAME', 'st_query_sql' LANGUAGE C STABLE;

-- This backend's catalog reads and expression parses (for tests: a repeated
-- call does neither).
CREATE FUNCTION stdesign.cache_stats() RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_cache_stats' LANGUAGE C VOLATILE;

-- Tables -------------------------------------------------------------------

CREATE FUNCTION st_create_table(definition jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_create_table_json' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION st_create_table(jsonb) IS
	'CreateTable: a DynamoDB CreateTable request, or CloudFormation AWS::DynamoDB::Table Properties; returns the TableDescription';

CREATE FUNCTION st_create_table(table_name text, pk text DEFAULT 'PK', sk text DEFAULT 'SK',
								pk_type text DEFAULT 'S', sk_type text DEFAULT 'S') RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_create_table_short' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_create_table(text, text, text, text, text) IS
	'CreateTable, short form: sk NULL makes a hash-only table';

CREATE FUNCTION st_create_gsi(table_name text, index_name text, pk text, sk text DEFAULT NULL,
							  pk_type text DEFAULT 'S', sk_type text DEFAULT 'S',
							  projection text DEFAULT 'ALL', non_key_attributes text[] DEFAULT NULL) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_create_gsi' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_create_gsi(text, text, text, text, text, text, text, text[]) IS
	'Add a global secondary index to a table (existing items are indexed); returns the TableDescription';

CREATE FUNCTION st_drop_gsi(table_name text, index_name text) RETURNS void
	AS 'MODULE_PATHNAME', 'st_drop_gsi' LANGUAGE C VOLATILE STRICT;

CREATE FUNCTION st_describe_table(table_name text) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_describe_table' LANGUAGE C STABLE;
COMMENT ON FUNCTION st_describe_table(text) IS 'DescribeTable: the DynamoDB TableDescription';

CREATE FUNCTION st_list_tables() RETURNS SETOF text
	AS $$ SELECT table_name FROM stdesign.tables ORDER BY table_name $$ LANGUAGE sql STABLE
	SET search_path = pg_catalog, pg_temp;

CREATE FUNCTION st_drop_table(table_name text) RETURNS void
	AS 'MODULE_PATHNAME', 'st_drop_table' LANGUAGE C VOLATILE STRICT;

-- Items --------------------------------------------------------------------

CREATE FUNCTION st_put(item jsonb, "table" text DEFAULT NULL, condition text DEFAULT NULL,
					   names jsonb DEFAULT NULL, "values" jsonb DEFAULT NULL,
					   return_values text DEFAULT 'NONE', typed boolean DEFAULT false) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_put' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_put(jsonb, text, text, jsonb, jsonb, text, boolean) IS
	'PutItem: write a whole item; returns the old item with return_values => ''ALL_OLD''';

CREATE FUNCTION st_get(pk text, sk text DEFAULT NULL, "table" text DEFAULT NULL,
					   projection text DEFAULT NULL, names jsonb DEFAULT NULL,
					   typed boolean DEFAULT false) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_get' LANGUAGE C STABLE;
COMMENT ON FUNCTION st_get(text, text, text, text, jsonb, boolean) IS
	'GetItem: the item with this key, or NULL';

CREATE FUNCTION st_update(pk text, sk text, "update" text, "table" text DEFAULT NULL,
						  condition text DEFAULT NULL, names jsonb DEFAULT NULL,
						  "values" jsonb DEFAULT NULL, return_values text DEFAULT 'ALL_NEW',
						  typed boolean DEFAULT false) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_update' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_update(text, text, text, text, text, jsonb, jsonb, text, boolean) IS
	'UpdateItem: apply an UpdateExpression to the item with this key (creating it when absent); returns the item as return_values asks (default ALL_NEW)';

CREATE FUNCTION st_delete(pk text, sk text DEFAULT NULL, "table" text DEFAULT NULL,
						  condition text DEFAULT NULL, names jsonb DEFAULT NULL,
						  "values" jsonb DEFAULT NULL, return_values text DEFAULT 'NONE',
						  typed boolean DEFAULT false) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_delete' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_delete(text, text, text, text, jsonb, jsonb, text, boolean) IS
	'DeleteItem: delete the item with this key; returns the old item with return_values => ''ALL_OLD''';

CREATE FUNCTION st_query(pk text, sk_prefix text DEFAULT NULL, "table" text DEFAULT NULL,
						 index text DEFAULT NULL, sk_from text DEFAULT NULL, sk_to text DEFAULT NULL,
						 forward boolean DEFAULT true, "limit" integer DEFAULT NULL,
						 filter text DEFAULT NULL, names jsonb DEFAULT NULL, "values" jsonb DEFAULT NULL,
						 projection text DEFAULT NULL, typed boolean DEFAULT false) RETURNS SETOF jsonb
	AS 'MODULE_PATHNAME', 'st_query' LANGUAGE C STABLE;
COMMENT ON FUNCTION st_query(text, text, text, text, text, text, boolean, integer, text, jsonb, jsonb, text, boolean) IS
	'Query: the items of a partition (of the table or of an index) in sort-key order, optionally by sort-key prefix or range';

CREATE FUNCTION st_scan("table" text DEFAULT NULL, index text DEFAULT NULL, filter text DEFAULT NULL,
						names jsonb DEFAULT NULL, "values" jsonb DEFAULT NULL,
						projection text DEFAULT NULL, "limit" integer DEFAULT NULL,
						typed boolean DEFAULT false) RETURNS SETOF jsonb
	AS 'MODULE_PATHNAME', 'st_scan' LANGUAGE C STABLE;
COMMENT ON FUNCTION st_scan(text, text, text, jsonb, jsonb, text, integer, boolean) IS
	'Scan: every item of a table or index, in key order, optionally filtered and projected';

-- Bulk load: an aggregate that writes the items of a query 1000 per statement.
CREATE FUNCTION stdesign.put_all_sfunc(internal, jsonb) RETURNS internal
	AS 'MODULE_PATHNAME', 'st_put_all_sfunc' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE FUNCTION stdesign.put_all_sfunc(internal, jsonb, text) RETURNS internal
	AS 'MODULE_PATHNAME', 'st_put_all_sfunc' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE FUNCTION stdesign.put_all_sfunc(internal, jsonb, text, boolean) RETURNS internal
	AS 'MODULE_PATHNAME', 'st_put_all_sfunc' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE FUNCTION stdesign.put_all_final(internal) RETURNS bigint
	AS 'MODULE_PATHNAME', 'st_put_all_final' LANGUAGE C VOLATILE PARALLEL UNSAFE;
CREATE AGGREGATE st_put_all(item jsonb) (
	SFUNC = stdesign.put_all_sfunc, STYPE = internal, FINALFUNC = stdesign.put_all_final,
	FINALFUNC_MODIFY = READ_WRITE, PARALLEL = UNSAFE);
CREATE AGGREGATE st_put_all(item jsonb, "table" text) (
	SFUNC = stdesign.put_all_sfunc, STYPE = internal, FINALFUNC = stdesign.put_all_final,
	FINALFUNC_MODIFY = READ_WRITE, PARALLEL = UNSAFE);
CREATE AGGREGATE st_put_all(item jsonb, "table" text, typed boolean) (
	SFUNC = stdesign.put_all_sfunc, STYPE = internal, FINALFUNC = stdesign.put_all_final,
	FINALFUNC_MODIFY = READ_WRITE, PARALLEL = UNSAFE);
COMMENT ON AGGREGATE st_put_all(jsonb, text, boolean) IS
	'Bulk PutItem: every item of a query, validated as st_put does, written 1000 per statement; returns how many';

-- Transactions -------------------------------------------------------------

CREATE FUNCTION st_transact(transact_items jsonb, client_request_token text DEFAULT NULL,
							plain boolean DEFAULT false) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_transact' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_transact(jsonb, text, boolean) IS
	'TransactWriteItems: up to 100 Put/Update/Delete/ConditionCheck actions, all or nothing, in the caller''s transaction';

CREATE FUNCTION st_transact_get(transact_items jsonb, plain boolean DEFAULT false) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_transact_get' LANGUAGE C STABLE;
COMMENT ON FUNCTION st_transact_get(jsonb, boolean) IS
	'TransactGetItems: up to 100 Gets from one snapshot; {"Responses": [...]}';

-- DynamoDB's JSON API ---------------------------------------------------------

CREATE FUNCTION st_api(operation text, request jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_api' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_api(text, jsonb) IS
	'A DynamoDB operation (PutItem, Query, ...) with its exact JSON request; returns DynamoDB''s JSON response';

CREATE FUNCTION st_batch_get(request_items jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_batch_get' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_batch_get(jsonb) IS 'BatchGetItem: RequestItems in, {"Responses", "UnprocessedKeys"} out';

CREATE FUNCTION st_batch_write(request_items jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_batch_write' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_batch_write(jsonb) IS 'BatchWriteItem: RequestItems in, {"UnprocessedItems"} out';

-- Conversions --------------------------------------------------------------

CREATE FUNCTION st_to_plain(item jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_to_plain' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION st_to_plain(jsonb) IS 'A typed item ({"a": {"S": "x"}}) in plain form ({"a": "x"})';

CREATE FUNCTION st_to_typed(item jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_to_typed' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION st_to_typed(jsonb) IS 'A plain item in typed AttributeValue form, validated and normalised';

CREATE FUNCTION st_item_size(item jsonb, typed boolean DEFAULT false) RETURNS integer
	AS 'MODULE_PATHNAME', 'st_item_size' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION st_item_size(jsonb, boolean) IS 'The size of an item in bytes, by DynamoDB''s rules';

-- Security -------------------------------------------------------------------

-- ClientRequestTokens of st_transact, per role, kept ten minutes (not
-- dumped: transient).  Nobody is granted this table: stdesign reads and
-- writes it as its owner, for the current role only, so that one role can
-- neither see, remove nor plant another's tokens.
CREATE TABLE stdesign.transact_tokens (
	role_id oid NOT NULL,			-- the role (pg_authid) that used the token
	token text COLLATE "C" NOT NULL,
	request_hash bytea NOT NULL,
	created_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	PRIMARY KEY (role_id, token)
);
REVOKE ALL ON stdesign.transact_tokens FROM PUBLIC;
-- Even granted (GRANT ... ON ALL TABLES IN SCHEMA stdesign), a role sees and
-- writes its own tokens only.
ALTER TABLE stdesign.transact_tokens ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_tokens ON stdesign.transact_tokens
	USING (role_id OPERATOR(pg_catalog.=) (SELECT r.oid FROM pg_catalog.pg_roles r
										   WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER));
-- Expiry finds the old ones by age.
CREATE INDEX transact_tokens_created_at ON stdesign.transact_tokens (created_at);

-- TableId --------------------------------------------------------------------

-- TableDescription.TableId: a UUID given to the table when it is created and
-- kept for its life, as DynamoDB's.
ALTER TABLE stdesign.tables ADD COLUMN table_id uuid NOT NULL DEFAULT pg_catalog.gen_random_uuid();

-- NUL in requests ---------------------------------------------------------------

-- st_api with the request as JSON text (what a string literal picks): a
-- request holding \u0000, which jsonb cannot store, is refused with a
-- ValidationException instead of jsonb's input error.
CREATE FUNCTION st_api(operation text, request text) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_api_text' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_api(text, text) IS
	'A DynamoDB operation with its exact JSON request as text; returns DynamoDB''s JSON response';

-- HTTP endpoint
-- Access keys of the HTTP endpoint (stdesign.http_auth = sigv4).  SigV4
-- needs the secret itself to check a signature, so it is kept here, readable
-- by superusers only; every request signed with a key runs as its role.
CREATE TABLE stdesign.access_keys (
	key_id text COLLATE "C" PRIMARY KEY,
	secret text NOT NULL,
	role_name name NOT NULL,
	enabled boolean NOT NULL DEFAULT true,
	created_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);
REVOKE ALL ON stdesign.access_keys FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('stdesign.access_keys', '');

CREATE FUNCTION st_create_access_key(role pg_catalog.regrole,
									 OUT access_key_id text, OUT secret_access_key text)
	RETURNS record
	AS 'MODULE_PATHNAME', 'st_create_access_key' LANGUAGE C STRICT VOLATILE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION st_create_access_key(pg_catalog.regrole) IS
	'a new access key of the HTTP endpoint for role: its id and secret (shown this once)';

CREATE FUNCTION st_list_access_keys()
	RETURNS TABLE (access_key_id text, role name, enabled boolean, created_at timestamptz)
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT k.key_id, k.role_name, k.enabled, k.created_at
	  FROM stdesign.access_keys k ORDER BY k.created_at, k.key_id
	$$;
COMMENT ON FUNCTION st_list_access_keys() IS
	'the access keys of the HTTP endpoint (never their secrets)';

CREATE FUNCTION st_disable_access_key(access_key_id text) RETURNS void
	LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	UPDATE stdesign.access_keys SET enabled = false WHERE key_id = access_key_id;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'access key "%" does not exist', access_key_id
			USING ERRCODE = 'undefined_object';
	END IF;
END
$$;
COMMENT ON FUNCTION st_disable_access_key(text) IS
	'requests signed with the access key are refused from now on';

CREATE FUNCTION st_drop_access_key(access_key_id text) RETURNS void
	LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp
	AS $$
BEGIN
	DELETE FROM stdesign.access_keys WHERE key_id = access_key_id;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'access key "%" does not exist', access_key_id
			USING ERRCODE = 'undefined_object';
	END IF;
END
$$;
COMMENT ON FUNCTION st_drop_access_key(text) IS
	'the access key is deleted';

REVOKE ALL ON FUNCTION st_create_access_key(pg_catalog.regrole) FROM PUBLIC;
REVOKE ALL ON FUNCTION st_list_access_keys() FROM PUBLIC;
REVOKE ALL ON FUNCTION st_disable_access_key(text) FROM PUBLIC;
REVOKE ALL ON FUNCTION st_drop_access_key(text) FROM PUBLIC;

-- The endpoint's workers: addresses, open connections, requests by operation.
CREATE FUNCTION stdesign.http_status()
	RETURNS TABLE (worker integer, pid integer, listen_addresses text, port integer,
				   open_connections integer, requests_served bigint, requests_failed bigint,
				   by_operation jsonb)
	AS 'MODULE_PATHNAME', 'st_http_status' LANGUAGE C VOLATILE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION stdesign.http_status() IS
	'the HTTP endpoint''s workers (no rows unless stdesign is in shared_preload_libraries)';

-- Layout protection --------------------------------------------------------
-- (README, "Layout protection".)  stdesign.set_keys() may only be attached
-- by stdesign itself (st_create_table creates the trigger as the function's
-- owner); Postgres checks EXECUTE on a trigger function when the trigger is
-- created, not when it fires, so existing tables keep working.
REVOKE EXECUTE ON FUNCTION stdesign.set_keys() FROM PUBLIC;

-- Is a DDL statement of stdesign's own running?
CREATE FUNCTION stdesign.own_ddl() RETURNS boolean
	AS 'MODULE_PATHNAME', 'st_own_ddl' LANGUAGE C VOLATILE;
-- Raise if DDL left a table's relation without the layout stdesign gave it.
CREATE FUNCTION stdesign.check_layout(relid oid) RETURNS void
	AS 'MODULE_PATHNAME', 'st_check_layout' LANGUAGE C VOLATILE STRICT;
REVOKE EXECUTE ON FUNCTION stdesign.own_ddl(), stdesign.check_layout(oid) FROM PUBLIC;

-- After any DDL: every relation it touched (a table, the table of an index
-- or of a trigger) that is a table's relation must keep its layout.
CREATE FUNCTION stdesign.guard_ddl() RETURNS event_trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	rel oid;
BEGIN
	IF stdesign.own_ddl() THEN
		RETURN;
	END IF;
	FOR rel IN
		SELECT DISTINCT coalesce(i.indrelid, tg.tgrelid, c.objid)
		  FROM pg_catalog.pg_event_trigger_ddl_commands() AS c
		  LEFT JOIN pg_catalog.pg_index AS i
			ON c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
		   AND i.indexrelid OPERATOR(pg_catalog.=) c.objid
		  LEFT JOIN pg_catalog.pg_trigger AS tg
			ON c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_trigger'::pg_catalog.regclass
		   AND tg.oid OPERATOR(pg_catalog.=) c.objid
		 WHERE c.classid OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog.pg_class'::pg_catalog.regclass,
														   'pg_catalog.pg_trigger'::pg_catalog.regclass])
	LOOP
		PERFORM stdesign.check_layout(rel);
	END LOOP;
END $$;

-- A DROP of a table's relation, its key index, a GSI's btree or its
-- set_keys trigger, other than by stdesign (st_drop_table, st_drop_gsi) or
-- by DROP EXTENSION, is refused.
CREATE FUNCTION stdesign.guard_drop() RETURNS event_trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	what text;
BEGIN
	IF stdesign.own_ddl() OR EXISTS (
		SELECT FROM pg_catalog.pg_event_trigger_dropped_objects() AS d
		 WHERE d.object_type OPERATOR(pg_catalog.=) 'extension'
		   AND d.object_name OPERATOR(pg_catalog.=) 'stdesign') THEN
		RETURN;
	END IF;
	SELECT d.object_identity INTO what
	  FROM pg_catalog.pg_event_trigger_dropped_objects() AS d
	 WHERE (d.schema_name OPERATOR(pg_catalog.=) 'stdesign_data'
			AND ((d.object_type OPERATOR(pg_catalog.=) 'table'
				  AND EXISTS (SELECT FROM stdesign.tables AS t
							   WHERE t.relation_name OPERATOR(pg_catalog.=) d.object_name))
				 OR (d.object_type OPERATOR(pg_catalog.=) 'index'
					 AND (EXISTS (SELECT FROM stdesign.indexes AS i
								   WHERE i.pg_index OPERATOR(pg_catalog.=) d.object_name)
						  OR EXISTS (SELECT FROM stdesign.tables AS t
									  WHERE COALESCE(t.key_index,
													 pg_catalog.left(t.relation_name, 54) OPERATOR(pg_catalog.||) '_key')
											OPERATOR(pg_catalog.=) d.object_name)))))
		OR (d.object_type OPERATOR(pg_catalog.=) 'trigger'
			AND pg_catalog.starts_with(d.object_identity, 'set_keys on stdesign_data.'))
	 LIMIT 1;
	IF what IS NOT NULL THEN
		RAISE EXCEPTION 'cannot drop %: it is part of a stdesign table', what
			USING ERRCODE = 'dependent_objects_still_exist',
				  HINT = 'Drop a table with st_drop_table (DeleteTable), a GSI with st_drop_gsi (UpdateTable).';
	END IF;
END $$;

CREATE EVENT TRIGGER stdesign_layout_ddl ON ddl_command_end
	EXECUTE FUNCTION stdesign.guard_ddl();
CREATE EVENT TRIGGER stdesign_layout_drop ON sql_drop
	EXECUTE FUNCTION stdesign.guard_drop();

-- Design studio: partitions, traffic, import and export ------------------------

CREATE FUNCTION st_partitions(table_name text DEFAULT NULL, "limit" bigint DEFAULT 10,
							  sample_items bigint DEFAULT 1000000)
	RETURNS TABLE(index_name text, partition_key text, items bigint, bytes bigint,
				  share double precision, sampled boolean)
	AS 'MODULE_PATHNAME', 'st_partitions' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_partitions(text, bigint, bigint) IS
	'The largest item collections of a table and of each GSI (index_name NULL: the table): items and bytes by DynamoDB''s size rules per partition key value, sampled past sample_items';

CREATE FUNCTION st_partition_skew(table_name text DEFAULT NULL, sample_items bigint DEFAULT 1000000)
	RETURNS TABLE(index_name text, partitions bigint, items bigint, bytes bigint,
				  largest_partition text, largest_bytes bigint, largest_share double precision,
				  max_over_mean double precision, gini double precision, sampled boolean)
	AS 'MODULE_PATHNAME', 'st_partition_skew' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_partition_skew(text, bigint) IS
	'How evenly the items of a table and of each GSI spread over their partition key values';

CREATE FUNCTION st_partition_traffic(table_name text DEFAULT NULL)
	RETURNS TABLE(index_name text, partition_key text, reads bigint, writes bigint,
				  read_units double precision, write_units double precision)
	AS 'MODULE_PATHNAME', 'st_partition_traffic' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_partition_traffic(text) IS
	'Reads and writes counted per partition key value of a table and of each GSI since the server started or the last st_partition_traffic_reset (needs shared_preload_libraries)';

CREATE FUNCTION st_partition_traffic_reset() RETURNS void
	AS 'MODULE_PATHNAME', 'st_partition_traffic_reset' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_partition_traffic_reset() IS
	'Forget every per-partition traffic count; counting starts again now';
REVOKE ALL ON FUNCTION st_partition_traffic_reset() FROM PUBLIC;

CREATE FUNCTION st_hot_partitions(table_name text DEFAULT NULL, top integer DEFAULT 10)
	RETURNS TABLE(index_name text, partition_key text, read_units double precision,
				  write_units double precision, read_units_per_second double precision,
				  write_units_per_second double precision, peak_read_units double precision,
				  peak_write_units double precision, limit_share double precision,
				  collection_bytes bigint, advice text)
	AS 'MODULE_PATHNAME', 'st_hot_partitions' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_hot_partitions(text, integer) IS
	'The busiest partitions against DynamoDB''s per-partition limits (3,000 RCU and 1,000 WCU per second, 10 GB item collections with an LSI), with write-sharding advice';

CREATE FUNCTION st_import(table_name text, lines text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'st_import' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_import(text, text) IS
	'Import DynamoDB export-format lines ({"Item": {...}} per line) into a table, all or nothing; returns how many items';

CREATE FUNCTION st_import_file(table_name text, path text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'st_import_file' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_import_file(text, text) IS
	'Import a server file of DynamoDB export-format lines (needs pg_read_server_files, as COPY FROM a file)';

CREATE FUNCTION st_export(table_name text DEFAULT NULL) RETURNS SETOF text
	AS 'MODULE_PATHNAME', 'st_export' LANGUAGE C STABLE;
COMMENT ON FUNCTION st_export(text) IS
	'Every item of a table as DynamoDB export-format lines ({"Item": {...}}), in key order';

CREATE FUNCTION st_export_file(table_name text, path text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'st_export_file' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_export_file(text, text) IS
	'Write every item of a table to a server file as DynamoDB export-format lines (needs pg_write_server_files, as COPY TO a file)';

CREATE FUNCTION st_table_create_json(table_name text) RETURNS jsonb
	LANGUAGE sql STABLE STRICT SET search_path = pg_catalog, pg_temp AS $$
SELECT jsonb_build_object('TableName', d->'TableName',
						  'AttributeDefinitions', d->'AttributeDefinitions',
						  'KeySchema', d->'KeySchema')
	|| CASE WHEN d #>> '{BillingModeSummary,BillingMode}' = 'PAY_PER_REQUEST'
			THEN jsonb_build_object('BillingMode', 'PAY_PER_REQUEST')
			ELSE jsonb_build_object('BillingMode', 'PROVISIONED',
									'ProvisionedThroughput', (d->'ProvisionedThroughput') - 'NumberOfDecreasesToday')
	   END
	|| COALESCE((SELECT jsonb_build_object('GlobalSecondaryIndexes', jsonb_agg(
						 jsonb_build_object('IndexName', g->'IndexName', 'KeySchema', g->'KeySchema',
											'Projection', g->'Projection')
						 || CASE WHEN d #>> '{BillingModeSummary,BillingMode}' = 'PAY_PER_REQUEST' THEN '{}'::jsonb
								 ELSE jsonb_build_object('ProvisionedThroughput',
														 (g->'ProvisionedThroughput') - 'NumberOfDecreasesToday')
							END ORDER BY o))
				   FROM jsonb_array_elements(d->'GlobalSecondaryIndexes') WITH ORDINALITY AS x(g, o)
				  HAVING count(*) > 0), '{}'::jsonb)
	|| COALESCE((SELECT jsonb_build_object('LocalSecondaryIndexes', jsonb_agg(
						 jsonb_build_object('IndexName', l->'IndexName', 'KeySchema', l->'KeySchema',
											'Projection', l->'Projection') ORDER BY o))
				   FROM jsonb_array_elements(d->'LocalSecondaryIndexes') WITH ORDINALITY AS x(l, o)
				  HAVING count(*) > 0), '{}'::jsonb)
  FROM (SELECT @extschema@.st_describe_table(table_name) AS d) AS s
$$;
COMMENT ON FUNCTION st_table_create_json(text) IS
	'The CreateTable request that creates a table like this one (keys, attribute definitions, indexes, billing mode)';

CREATE FUNCTION st_table_cloudformation(table_name text, logical_id text DEFAULT NULL) RETURNS jsonb
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
SELECT jsonb_build_object(
	'AWSTemplateFormatVersion', '2010-09-09',
	'Description', 'DynamoDB table ' || (c->>'TableName'),
	'Resources', jsonb_build_object(
		COALESCE(logical_id, regexp_replace(c->>'TableName', '[^A-Za-z0-9]', '', 'g') || 'Table'),
		jsonb_build_object('Type', 'AWS::DynamoDB::Table', 'Properties', c)))
  FROM (SELECT @extschema@.st_table_create_json(table_name) AS c) AS s
 WHERE c IS NOT NULL
$$;
COMMENT ON FUNCTION st_table_cloudformation(text, text) IS
	'A CloudFormation template (JSON) with the table as one AWS::DynamoDB::Table resource';

CREATE FUNCTION st_import_workbench(model jsonb) RETURNS jsonb
	LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	m jsonb;
	i integer := 0;
	tname text;
	keys jsonb;
	defs jsonb;
	gsis jsonb;
	req jsonb;
	n bigint;
	tables jsonb := '[]';
	total bigint := 0;
BEGIN
	IF model IS NULL OR jsonb_typeof(model) IS DISTINCT FROM 'object'
	   OR jsonb_typeof(model->'DataModel') IS DISTINCT FROM 'array' THEN
		RAISE EXCEPTION 'ValidationException: A NoSQL Workbench data model is a JSON object with a "DataModel" array'
			USING ERRCODE = 'SD001';
	END IF;
	FOR m IN SELECT value FROM jsonb_array_elements(model->'DataModel') LOOP
		i := i + 1;
		tname := m->>'TableName';
		IF jsonb_typeof(m) IS DISTINCT FROM 'object' OR tname IS NULL
		   OR jsonb_typeof(m #> '{KeyAttributes,PartitionKey}') IS DISTINCT FROM 'object' THEN
			RAISE EXCEPTION 'ValidationException: DataModel[%] needs a "TableName" and "KeyAttributes": {"PartitionKey": {"AttributeName", "AttributeType"}}', i - 1
				USING ERRCODE = 'SD001';
		END IF;
		keys := jsonb_build_array(jsonb_build_object('AttributeName', m #> '{KeyAttributes,PartitionKey,AttributeName}', 'KeyType', 'HASH'));
		defs := jsonb_build_array(m #> '{KeyAttributes,PartitionKey}');
		IF m #> '{KeyAttributes,SortKey}' IS NOT NULL THEN
			keys := keys || jsonb_build_object('AttributeName', m #> '{KeyAttributes,SortKey,AttributeName}', 'KeyType', 'RANGE');
			defs := defs || (m #> '{KeyAttributes,SortKey}');
		END IF;
		gsis := '[]';
		IF jsonb_typeof(m->'GlobalSecondaryIndexes') = 'array' THEN
			SELECT COALESCE(jsonb_agg(jsonb_build_object(
					   'IndexName', g->'IndexName',
					   'KeySchema', jsonb_build_array(jsonb_build_object('AttributeName', g #> '{KeyAttributes,PartitionKey,AttributeName}', 'KeyType', 'HASH'))
									|| CASE WHEN g #> '{KeyAttributes,SortKey}' IS NULL THEN '[]'::jsonb
											ELSE jsonb_build_array(jsonb_build_object('AttributeName', g #> '{KeyAttributes,SortKey,AttributeName}', 'KeyType', 'RANGE')) END,
					   'Projection', COALESCE(g->'Projection', '{"ProjectionType": "ALL"}'::jsonb)) ORDER BY o), '[]')
			  INTO gsis
			  FROM jsonb_array_elements(m->'GlobalSecondaryIndexes') WITH ORDINALITY AS x(g, o);
			SELECT defs || COALESCE(jsonb_agg(a ORDER BY o, k), '[]')
			  INTO defs
			  FROM jsonb_array_elements(m->'GlobalSecondaryIndexes') WITH ORDINALITY AS x(g, o),
				   LATERAL (VALUES (1, g #> '{KeyAttributes,PartitionKey}'), (2, g #> '{KeyAttributes,SortKey}')) AS v(k, a)
			 WHERE a IS NOT NULL;
		END IF;
		-- one definition per attribute (a GSI may reuse a table key)
		SELECT jsonb_agg(d ORDER BY first) INTO defs
		  FROM (SELECT DISTINCT ON (d->>'AttributeName') d, o AS first
				  FROM jsonb_array_elements(defs) WITH ORDINALITY AS x(d, o)
				 ORDER BY d->>'AttributeName', o) AS u;
		req := jsonb_build_object('TableName', tname, 'KeySchema', keys, 'AttributeDefinitions', defs);
		IF jsonb_array_length(gsis) > 0 THEN
			req := req || jsonb_build_object('GlobalSecondaryIndexes', gsis);
		END IF;
		IF m->>'BillingMode' = 'PROVISIONED' THEN
			req := req || jsonb_build_object('BillingMode', 'PROVISIONED', 'ProvisionedThroughput',
				COALESCE(m #> '{ProvisionedCapacitySettings,ProvisionedThroughput}',
						 '{"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}'::jsonb));
		ELSE
			req := req || '{"BillingMode": "PAY_PER_REQUEST"}'::jsonb;
		END IF;
		PERFORM @extschema@.st_create_table(req);
		IF m->'TableData' IS NOT NULL AND jsonb_typeof(m->'TableData') <> 'array' THEN
			RAISE EXCEPTION 'ValidationException: DataModel[%] (table %): "TableData" must be an array of items', i - 1, tname
				USING ERRCODE = 'SD001';
		END IF;
		SELECT @extschema@.st_put_all(item, tname, true) INTO n
		  FROM jsonb_array_elements(COALESCE(m->'TableData', '[]')) AS x(item);
		tables := tables || jsonb_build_object('TableName', tname, 'Items', COALESCE(n, 0));
		total := total + COALESCE(n, 0);
	END LOOP;
	RETURN jsonb_build_object('ModelName', model->'ModelName', 'Tables', tables, 'Items', total);
END $$;
COMMENT ON FUNCTION st_import_workbench(jsonb) IS
	'Import a NoSQL Workbench data model: creates its tables and GSIs and writes their sample items (TableData)';

CREATE FUNCTION st_export_workbench(table_names text[] DEFAULT NULL, model_name text DEFAULT 'stdesign',
									max_items integer DEFAULT 100) RETURNS jsonb
	LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	name text;
	d jsonb;
	items jsonb;
	model jsonb := '[]';
	stamp text := to_char(now(), 'Mon DD, YYYY, HH12:MI AM');
BEGIN
	FOR name IN SELECT DISTINCT n FROM unnest(COALESCE(table_names, ARRAY(SELECT @extschema@.st_list_tables()))) AS u(n)
				 ORDER BY n LOOP
		d := @extschema@.st_describe_table(name);
		SELECT COALESCE(jsonb_agg(s.item ORDER BY s.o), '[]') INTO items
		  FROM @extschema@.st_scan(name, "limit" => max_items, typed => true) WITH ORDINALITY AS s(item, o);
		model := model || jsonb_build_object(
			'TableName', name,
			'KeyAttributes', (
				SELECT jsonb_object_agg(CASE k->>'KeyType' WHEN 'HASH' THEN 'PartitionKey' ELSE 'SortKey' END,
										jsonb_build_object('AttributeName', k->'AttributeName',
														   'AttributeType', (SELECT a->'AttributeType'
																			   FROM jsonb_array_elements(d->'AttributeDefinitions') AS a
																			  WHERE a->'AttributeName' = k->'AttributeName')))
				  FROM jsonb_array_elements(d->'KeySchema') AS k),
			-- every other attribute: the index keys (typed by their definitions),
			-- then those of the sample items (typed by the first item that has them)
			'NonKeyAttributes', COALESCE((
				SELECT jsonb_agg(jsonb_build_object('AttributeName', an, 'AttributeType', at) ORDER BY an)
				  FROM (SELECT DISTINCT ON (an) an, at
						  FROM (SELECT a->>'AttributeName' AS an, a->>'AttributeType' AS at, 0 AS o
								  FROM jsonb_array_elements(d->'AttributeDefinitions') AS a
								UNION ALL
								SELECT e.key, (SELECT min(t) FROM jsonb_object_keys(e.value) AS t), 1
								  FROM jsonb_array_elements(items) AS it, jsonb_each(it) AS e) AS c
						 WHERE an NOT IN (SELECT k->>'AttributeName' FROM jsonb_array_elements(d->'KeySchema') AS k)
						 ORDER BY an, o) AS na), '[]'),
			'GlobalSecondaryIndexes', COALESCE((
				SELECT jsonb_agg(jsonb_build_object(
						   'IndexName', g->'IndexName',
						   'KeyAttributes', (
							   SELECT jsonb_object_agg(CASE k->>'KeyType' WHEN 'HASH' THEN 'PartitionKey' ELSE 'SortKey' END,
													   jsonb_build_object('AttributeName', k->'AttributeName',
																		  'AttributeType', (SELECT a->'AttributeType'
																							  FROM jsonb_array_elements(d->'AttributeDefinitions') AS a
																							 WHERE a->'AttributeName' = k->'AttributeName')))
								 FROM jsonb_array_elements(g->'KeySchema') AS k),
						   'Projection', g->'Projection') ORDER BY o)
				  FROM jsonb_array_elements(d->'GlobalSecondaryIndexes') WITH ORDINALITY AS x(g, o)), '[]'),
			'TableData', items,
			'DataAccess', '{"MySql": {}}'::jsonb,
			'BillingMode', COALESCE(d #>> '{BillingModeSummary,BillingMode}', 'PROVISIONED'));
	END LOOP;
	RETURN jsonb_build_object(
		'ModelName', model_name,
		'ModelMetadata', jsonb_build_object('Author', '', 'DateCreated', stamp, 'DateLastModified', stamp,
											'Description', '', 'AWSService', 'Amazon DynamoDB',
											'Version', '3.0'),
		'DataModel', model);
END $$;
COMMENT ON FUNCTION st_export_workbench(text[], text, integer) IS
	'A NoSQL Workbench data model of tables (all when NULL): keys, attributes, GSIs and up to max_items sample items each';
