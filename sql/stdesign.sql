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

-- Citus --------------------------------------------------------------------
-- (README, "Citus".)  Distribute a table's relation by its partition key
-- over the workers of a Citus cluster (run on the coordinator); run again,
-- it copies the table's catalog rows to the workers again (after a worker
-- was added, say).  Returns the number of shards.  Citus is found at run
-- time: without it, this raises and nothing else changes.
CREATE FUNCTION st_distribute_table(table_name text, shard_count integer DEFAULT 32) RETURNS integer
	AS 'MODULE_PATHNAME', 'st_distribute_table' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION st_distribute_table(text, integer) IS
	'distribute a table over the workers of a Citus cluster by its partition key';
REVOKE EXECUTE ON FUNCTION st_distribute_table(text, integer) FROM PUBLIC;
