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
