/* stdesign--0.1.0--0.2.0.sql: upgrade from 0.1.0 to 0.2.0 */

\echo Use "ALTER EXTENSION stdesign UPDATE TO '0.2.0'" to load this file. \quit

-- Every change to the extension's SQL objects between 0.1.0 and 0.2.0, in
-- the order it was made; sql/stdesign.sql holds the same objects as a fresh
-- install creates them.

-- Security -------------------------------------------------------------------

-- The key index's name is recorded (new tables name their relations and
-- indexes so that no two can clash); 0.1.0 derived it from the relation's,
-- which is what NULL still means (the rows of a 0.1.0 dump have none).
ALTER TABLE stdesign.tables ADD COLUMN key_index text COLLATE "C";
UPDATE stdesign.tables SET key_index = pg_catalog.left(relation_name, 54) OPERATOR(pg_catalog.||) '_key';

ALTER FUNCTION st_list_tables() SET search_path = pg_catalog, pg_temp;

-- ClientRequestTokens are kept per role, in a table granted to nobody.
-- Tokens are transient: those of 0.1.0 are dropped with their table.
DROP TABLE stdesign.transact_tokens;
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
CREATE INDEX transact_tokens_created_at ON stdesign.transact_tokens (created_at);

-- TableId --------------------------------------------------------------------

-- TableDescription.TableId: a UUID kept for the table's life; tables created
-- before the upgrade get one now.
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
