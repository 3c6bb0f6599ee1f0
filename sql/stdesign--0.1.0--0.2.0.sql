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
-- (docs/security.md, "Layout protection".)  stdesign.set_keys() may only be attached
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

-- Design studio: models, access patterns, checks, cost, the page -------------

-- A table's model document (docs/studio.md).  Granted to nobody:
-- st_set_model and st_get_model read and write it as its owner, for the
-- owner of a table's relation (writes) or a role that may read it (reads).
CREATE TABLE stdesign.models (
	table_name text COLLATE "C" PRIMARY KEY REFERENCES stdesign.tables ON DELETE CASCADE,
	model jsonb NOT NULL,
	updated_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
	updated_by name NOT NULL
);
REVOKE ALL ON stdesign.models FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('stdesign.models', '');

-- Prices for st_model_cost, per named row (docs/studio.md, "Prices": where the
-- shipped row's figures come from).  Rows you add are kept by pg_dump; the
-- shipped row is created again by CREATE EXTENSION.
CREATE TABLE stdesign.prices (
	name text COLLATE "C" PRIMARY KEY,
	on_demand_read_per_million numeric NOT NULL CHECK (on_demand_read_per_million >= 0),
	on_demand_write_per_million numeric NOT NULL CHECK (on_demand_write_per_million >= 0),
	provisioned_rcu_hour numeric NOT NULL CHECK (provisioned_rcu_hour >= 0),
	provisioned_wcu_hour numeric NOT NULL CHECK (provisioned_wcu_hour >= 0),
	storage_gb_month numeric NOT NULL CHECK (storage_gb_month >= 0),
	source text NOT NULL,
	as_of date NOT NULL,
	shipped boolean NOT NULL DEFAULT false
);
INSERT INTO stdesign.prices VALUES ('us-east-1', 0.125, 0.625, 0.00013, 0.00065, 0.25,
	'https://aws.amazon.com/dynamodb/pricing/ (on-demand and provisioned capacity, Standard table class, US East (N. Virginia))',
	'2024-11-01', true);
GRANT SELECT ON stdesign.prices TO PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('stdesign.prices', 'WHERE NOT shipped');

CREATE FUNCTION st_set_model(table_name text, model jsonb) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_set_model' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_set_model(text, jsonb) IS
	'Design studio: validate and store the model (entities, key templates, access patterns) of a table; NULL removes it';

CREATE FUNCTION st_get_model(table_name text) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_get_model' LANGUAGE C STABLE;
COMMENT ON FUNCTION st_get_model(text) IS
	'Design studio: the model of a table, or NULL';

CREATE FUNCTION st_put_entity(entity text, attrs jsonb, "table" text DEFAULT NULL,
							  typed boolean DEFAULT false) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_put_entity' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_put_entity(text, jsonb, text, boolean) IS
	'Design studio: PutItem of an entity: its keys formed from its templates, its type and attributes checked; returns the item';

CREATE FUNCTION st_entity_of(item jsonb, "table" text DEFAULT NULL, typed boolean DEFAULT false)
	RETURNS text
	AS 'MODULE_PATHNAME', 'st_entity_of' LANGUAGE C STABLE;
COMMENT ON FUNCTION st_entity_of(jsonb, text, boolean) IS
	'Design studio: the entity of the model an item is (by its type attribute, else by its key), or NULL';

CREATE FUNCTION st_run_pattern(pattern text, params jsonb DEFAULT NULL, "table" text DEFAULT NULL,
							   typed boolean DEFAULT false) RETURNS SETOF jsonb
	AS 'MODULE_PATHNAME', 'st_run_pattern' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_run_pattern(text, jsonb, text, boolean) IS
	'Design studio: run an access pattern of the model with these parameters; returns what st_get or st_query would';

CREATE FUNCTION st_check_model(table_name text)
	RETURNS TABLE (kind text, name text, operation text, index_name text, entities text[],
				   read_per_call float8, returned_per_call float8, ok boolean, findings text[],
				   measured_with jsonb)
	AS 'MODULE_PATHNAME', 'st_check_model' LANGUAGE C STABLE;
COMMENT ON FUNCTION st_check_model(text) IS
	'Design studio: per access pattern its operation, index and entities, measured on the stored items (measured_with: the parameters of each call), with findings; then entities, indexes and items';

CREATE FUNCTION st_model_cost(table_name text, rates jsonb DEFAULT NULL, prices text DEFAULT 'us-east-1')
	RETURNS TABLE (pattern text, operation text, index_name text, calls_per_second float8,
				   read_units float8, write_units float8, on_demand_monthly numeric,
				   provisioned_monthly numeric, note text)
	AS 'MODULE_PATHNAME', 'st_model_cost' LANGUAGE C STABLE;
COMMENT ON FUNCTION st_model_cost(text, jsonb, text) IS
	'Design studio: per access pattern the read and write units per call and the monthly cost at its rate, on demand and provisioned; the last row the total';

-- Text for HTML: every character that could end a text node or an attribute.
CREATE FUNCTION stdesign.html_escape(t text) RETURNS text
	AS $$ SELECT replace(replace(replace(replace(replace(COALESCE(t, ''), '&', '&amp;'),
		'<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') $$
	LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp;

-- A value of a plain item as a short text: strings as they are, the rest as JSON.
CREATE FUNCTION stdesign.studio_value(v jsonb) RETURNS text
	AS $$ SELECT CASE WHEN v IS NULL THEN ''
					  WHEN jsonb_typeof(v) = 'string' THEN v #>> '{}'
					  ELSE left(v::text, 200) END $$
	LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp;

-- The sampled items of a key space (the table, or index ix) in key order, each
-- with its entity: at most max_items (bounded, never the whole table).
CREATE FUNCTION stdesign.studio_sample(table_name text, ix text, max_items integer)
	RETURNS TABLE (ord integer, item jsonb, entity text)
	LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	has_model boolean := @extschema@.st_get_model(table_name) IS NOT NULL;
BEGIN
	RETURN QUERY
	SELECT (row_number() OVER ())::integer, s.x,
		   CASE WHEN has_model THEN @extschema@.st_entity_of(s.x, table_name) END
	  FROM stdesign.studio_scan(table_name, ix, max_items, false) AS s(x);
END $$;

-- One key space (the table, or an index) in NoSQL Workbench's aggregate
-- view: items grouped by partition, a header of attribute names where the
-- entity changes, entity colours.  Every value is escaped.
CREATE FUNCTION stdesign.studio_view_html(table_name text, ix text, pk_name text, sk_name text,
										  model jsonb, max_items integer)
	RETURNS text LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	out text;
	r record;
	n integer := 0;
	prev_pk text;
	prev_sig text;
	attrs text[];
	ents text[] := ARRAY(SELECT jsonb_object_keys(COALESCE(model -> 'entities', '{}')) ORDER BY 1);
	cls text;
	first_keys text[];
	ix_keys text[];
	space_keys text[];
	hash_keys text[];
	npk integer;
BEGIN
	-- a GSI with a multi-attribute key: all of its key attributes, and its
	-- partition is all of its HASH attributes (as st_partitions names it)
	SELECT array_agg(k ->> 'AttributeName' ORDER BY o),
		   array_agg(k ->> 'AttributeName' ORDER BY o) FILTER (WHERE k ->> 'KeyType' = 'HASH')
	  INTO space_keys, hash_keys
	  FROM stdesign.indexes AS i, jsonb_array_elements(i.key_schema) WITH ORDINALITY AS e(k, o)
	 WHERE i.table_name = studio_view_html.table_name AND i.index_name = studio_view_html.ix;
	npk := GREATEST(COALESCE(cardinality(hash_keys), 1), 1);
	-- the key space's keys first, then (in an index's view) the table's
	first_keys := ARRAY(SELECT k FROM stdesign.tables AS t,
							   unnest(COALESCE(space_keys, ARRAY[studio_view_html.pk_name, studio_view_html.sk_name])
									  || ARRAY[t.pk_name, t.sk_name]) WITH ORDINALITY AS u(k, o)
						 WHERE t.table_name = studio_view_html.table_name AND k IS NOT NULL
						 GROUP BY k ORDER BY min(o));
	-- the indexes' key attributes, marked and shown first among the others
	ix_keys := ARRAY(SELECT DISTINCT x.k FROM stdesign.indexes AS i,
						 unnest(ARRAY[i.pk_name, i.sk_name]
								|| ARRAY(SELECT e ->> 'AttributeName' FROM jsonb_array_elements(i.key_schema) AS e)) AS x(k)
					  WHERE i.table_name = studio_view_html.table_name AND x.k IS NOT NULL);
	out := '<table class="agg"><thead><tr>'
		|| (SELECT string_agg('<th>' || stdesign.html_escape(k) || '</th>', '' ORDER BY o) FROM unnest(first_keys) WITH ORDINALITY AS u(k, o))
		|| '<th>entity</th><th>attributes</th></tr></thead>';
	FOR r IN SELECT s.ord, s.item, s.entity, s.pk, count(*) OVER (PARTITION BY s.pk) AS nitems
			   FROM (SELECT s.*,
							CASE WHEN npk > 1
								 THEN (SELECT jsonb_agg(s.item ->> a ORDER BY o)::text
										 FROM unnest(hash_keys) WITH ORDINALITY AS u(a, o))
								 ELSE stdesign.studio_value(s.item -> pk_name) END AS pk
					   FROM stdesign.studio_sample(table_name, ix, max_items + 1) AS s) AS s
			  ORDER BY s.ord
	LOOP
		n := n + 1;
		EXIT WHEN n > max_items;
		IF prev_pk IS NULL OR r.pk IS DISTINCT FROM prev_pk THEN
			IF prev_pk IS NOT NULL THEN
				out := out || '</tbody>';
			END IF;
			-- a partition of one item is one line; a larger one gets a line of its own
			IF r.nitems = 1 THEN
				out := out || '<tbody class="part1">';
			ELSE
				out := out || '<tbody class="part"><tr class="pkrow"><td class="pk" colspan="99">' || stdesign.html_escape(r.pk)
					|| ' <span class="count">' || r.nitems || ' items</span></td></tr>';
				prev_sig := NULL;
			END IF;
			prev_pk := r.pk;
		END IF;
		cls := 'e' || COALESCE((array_position(ents, r.entity) - 1) % 10, -1)::text;
		cls := CASE WHEN cls = 'e-1' THEN 'enone' ELSE cls END;
		-- every attribute of the item and those its entity declares: the
		-- indexes' keys first, then by name
		attrs := ARRAY(SELECT a.k FROM (SELECT jsonb_object_keys(r.item) AS k
										UNION
										SELECT jsonb_object_keys(COALESCE(model #> ARRAY['entities', r.entity, 'attributes'], '{}'))) AS a
						WHERE a.k <> ALL (first_keys)
						ORDER BY a.k <> ALL (ix_keys), a.k);
		IF prev_sig IS DISTINCT FROM COALESCE(r.entity, '') || '|' || array_to_string(attrs, '|') THEN
			out := out || '<tr class="hdr ' || cls || '">'
				|| (SELECT string_agg('<th>' || stdesign.html_escape(k) || '</th>', '' ORDER BY o) FROM unnest(first_keys) WITH ORDINALITY AS u(k, o))
				|| '<th>entity</th>'
				|| COALESCE((SELECT string_agg(CASE WHEN a = ANY (ix_keys) THEN '<th class="gsikey" title="an index key">' ELSE '<th>' END
											  || stdesign.html_escape(a) || '</th>', '' ORDER BY o)
							   FROM unnest(attrs) WITH ORDINALITY AS u(a, o)), '')
				|| '</tr>';
			prev_sig := COALESCE(r.entity, '') || '|' || array_to_string(attrs, '|');
		END IF;
		out := out || '<tr class="item ' || cls || '" data-entity="' || stdesign.html_escape(COALESCE(r.entity, '')) || '">'
			|| (SELECT string_agg(CASE WHEN o <= npk AND r.nitems > 1 THEN '<td></td>'
									   ELSE '<td class="' || CASE WHEN o <= npk THEN 'pk' ELSE 'sk' END || '">'
											|| stdesign.html_escape(stdesign.studio_value(r.item -> k)) || '</td>' END, '' ORDER BY o)
				  FROM unnest(first_keys) WITH ORDINALITY AS u(k, o))
			|| '<td><span class="badge ' || cls || '">' || stdesign.html_escape(COALESCE(r.entity, '?')) || '</span></td>'
			|| COALESCE((SELECT string_agg(CASE WHEN r.item ? a
												THEN '<td>' || stdesign.html_escape(stdesign.studio_value(r.item -> a)) || '</td>'
												-- an attribute only a key holds: read back from its template
												ELSE COALESCE('<td class="derived" title="from the key template">'
															  || stdesign.html_escape((SELECT stdesign.studio_from_template(kt.value #>> '{}', r.item ->> kt.key, a)
																					 FROM jsonb_each(COALESCE(model #> ARRAY['entities', r.entity, 'keys'], '{}')) AS kt
																					WHERE jsonb_typeof(kt.value) = 'string'
																					  AND stdesign.studio_from_template(kt.value #>> '{}', r.item ->> kt.key, a) IS NOT NULL
																					LIMIT 1)) || '</td>', '<td></td>') END, '' ORDER BY o)
						   FROM unnest(attrs) WITH ORDINALITY AS u(a, o)), '')
			|| '</tr>';
	END LOOP;
	IF prev_pk IS NOT NULL THEN
		out := out || '</tbody>';
	END IF;
	out := out || '</table>';
	IF n > max_items THEN
		out := out || '<p class="note sampled">Sampled: the first ' || max_items
			|| ' items in key order are shown, not the whole '
			|| CASE WHEN ix IS NULL THEN 'table' ELSE 'index' END || '.</p>';
	ELSIF n = 0 THEN
		out := out || '<p class="note">No items.</p>';
	END IF;
	RETURN out;
END $$;

-- Item count and size per partition key value of a key space, from a sample
-- of at most max_items items (sizes by DynamoDB's rules).
CREATE FUNCTION stdesign.studio_partitions(table_name text, ix text, pk_name text, max_items integer)
	RETURNS TABLE (pk text, items bigint, bytes bigint, sampled boolean)
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	WITH s AS (SELECT x FROM stdesign.studio_scan(table_name, ix, max_items + 1, true) AS x),
		 n AS (SELECT count(*) > max_items AS sampled FROM s),
		 -- a GSI with several HASH attributes: its partition is all of them,
		 -- named as st_partitions names it (a JSON array of their texts)
		 h AS (SELECT array_agg(k ->> 'AttributeName' ORDER BY o) AS names
				 FROM stdesign.indexes AS i, jsonb_array_elements(i.key_schema) WITH ORDINALITY AS e(k, o)
				WHERE i.table_name = studio_partitions.table_name AND i.index_name = studio_partitions.ix
				  AND k ->> 'KeyType' = 'HASH')
	SELECT CASE WHEN cardinality(h.names) > 1
				THEN (SELECT jsonb_agg(coalesce(x -> a ->> 'S', x -> a ->> 'N', x -> a ->> 'B') ORDER BY o)::text
						FROM unnest(h.names) WITH ORDINALITY AS u(a, o))
				ELSE coalesce(x -> pk_name ->> 'S', x -> pk_name ->> 'N', x -> pk_name ->> 'B') END, count(*),
		   sum(@extschema@.st_item_size(x, typed => true))::bigint, (SELECT sampled FROM n)
	  FROM (SELECT x FROM s LIMIT max_items) AS s, h
	 GROUP BY 1
	 ORDER BY 2 DESC, 3 DESC, 1
$$;

-- The bar chart of the largest partitions (inline SVG).
CREATE FUNCTION stdesign.studio_partition_chart(table_name text, ix text, pk_name text, max_items integer)
	RETURNS text LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	out text;
	r record;
	y integer := 0;
	top_items bigint;
	avg_items numeric;
	nparts bigint;
	was_sampled boolean := false;
BEGIN
	SELECT max(p.items), avg(p.items), count(*), bool_or(p.sampled)
	  INTO top_items, avg_items, nparts, was_sampled
	  FROM stdesign.studio_partitions(table_name, ix, pk_name, max_items) AS p;
	IF nparts = 0 THEN
		RETURN '<p class="note">No items.</p>';
	END IF;
	out := '<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="760" height="'
		|| (least(nparts, 15) * 22 + 10) || '" role="img">';
	FOR r IN SELECT * FROM stdesign.studio_partitions(table_name, ix, pk_name, max_items) LIMIT 15
	LOOP
		out := out || '<text x="0" y="' || (y + 15) || '" class="lbl">' || stdesign.html_escape(left(r.pk, 40))
			|| '</text><rect x="300" y="' || (y + 3) || '" height="16" width="'
			|| greatest(1, round(360.0 * r.items / top_items)) || '" class="bar"/><text x="'
			|| (305 + round(360.0 * r.items / top_items)) || '" y="' || (y + 15) || '" class="val">'
			|| r.items || CASE WHEN r.items = 1 THEN ' item, ' ELSE ' items, ' END
			|| round(r.bytes / 1024.0, 1) || ' KB</text>';
		y := y + 22;
	END LOOP;
	out := out || '</svg><p class="note">' || nparts || ' partition key values'
		|| '; the largest holds ' || top_items || CASE WHEN top_items = 1 THEN ' item, ' ELSE ' items, ' END || round(top_items / avg_items, 1)
		|| ' times the average (skew)'
		|| CASE WHEN was_sampled THEN '; sampled: the first ' || max_items || ' items in key order' ELSE '' END
		|| '.</p>';
	RETURN out;
END $$;

-- The value of placeholder name read back from a key value made by template
-- ("CUST#{customer_id}", "CUST#123", "customer_id" -> "123"), or NULL when
-- the value does not fit the template: the static page's cells of
-- attributes that only a key holds.
CREATE FUNCTION stdesign.studio_from_template(template text, value text, name text) RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog, pg_temp AS $$
	SELECT (regexp_match(value, '^' || regexp_replace(regexp_replace(template, '([.^$*+?()\[\]\\|])', '\\\1', 'g'),
													   '\{[^{}]+\}', '(.*?)', 'g') || '$', 's'))
		   [(SELECT p.o FROM regexp_matches(template, '\{([^{}]+)\}', 'g') WITH ORDINALITY AS p(m, o)
			  WHERE p.m[1] = name LIMIT 1)]
$$;

-- An access pattern's key condition as a reader writes it:
-- "PK = CUST#{customer_id} and begins_with(SK, ORDER#)".
CREATE FUNCTION stdesign.studio_key_condition(def jsonb, pk_name text, sk_name text) RETURNS text
	LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT concat_ws(' and ',
		CASE WHEN def ? 'pk' THEN pk_name || ' = ' || (def ->> 'pk') END,
		CASE WHEN jsonb_typeof(def -> 'sk') = 'string' THEN sk_name || ' = ' || (def ->> 'sk')
			 WHEN def -> 'sk' ? 'begins_with' THEN 'begins_with(' || sk_name || ', ' || (def -> 'sk' ->> 'begins_with') || ')'
			 WHEN def -> 'sk' ? 'between' THEN sk_name || ' between ' || (def -> 'sk' -> 'between' ->> 0) || ' and ' || (def -> 'sk' -> 'between' ->> 1)
			 WHEN jsonb_typeof(def -> 'sk') = 'object' THEN
				(SELECT sk_name || ' ' || e.key || ' ' || (e.value #>> '{}') FROM jsonb_each(def -> 'sk') AS e LIMIT 1) END,
		CASE WHEN def ? 'filter' THEN 'filter ' || (def ->> 'filter') END,
		CASE WHEN def ? 'entity' THEN 'writes ' || (def ->> 'entity') END)
$$;

-- The same for a Query pattern of a GSI with a multi-attribute key
-- (key_schema: stdesign.indexes.key_schema), each key attribute it gives in
-- key order: "tenant = {tenant} and tier = {tier} and day >= {from}"; NULL
-- for any other pattern.  "pk" and "sk" as the model takes them: an array
-- in key order, an object by attribute name, or a lone value for the first.
CREATE FUNCTION stdesign.studio_key_condition_multi(def jsonb, key_schema jsonb) RETURNS text
	LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT concat_ws(' and ',
		(SELECT string_agg(CASE WHEN jsonb_typeof(v) = 'string' THEN name || ' = ' || (v #>> '{}')
								WHEN v ? 'begins_with' THEN 'begins_with(' || name || ', ' || (v ->> 'begins_with') || ')'
								WHEN v ? 'between' THEN name || ' between ' || (v -> 'between' ->> 0) || ' and ' || (v -> 'between' ->> 1)
								ELSE (SELECT name || ' ' || e.key || ' ' || (e.value #>> '{}') FROM jsonb_each(v) AS e LIMIT 1) END,
						   ' and ' ORDER BY o)
		   FROM (SELECT k.o, k.name,
						CASE WHEN jsonb_typeof(k.side) = 'array' THEN k.side -> (k.pos - 1)::int
							 WHEN jsonb_typeof(k.side) = 'object'
								  AND NOT (k.side ?| ARRAY(SELECT e ->> 'AttributeName' FROM jsonb_array_elements(key_schema) AS e))
								  AND k.side ?| ARRAY['=', '<', '<=', '>', '>=', 'between', 'begins_with']
								THEN CASE WHEN k.pos = 1 THEN k.side END
							 WHEN jsonb_typeof(k.side) = 'object' THEN k.side -> k.name
							 WHEN k.pos = 1 THEN k.side END AS v
				   FROM (SELECT x.o, x.e ->> 'AttributeName' AS name,
								row_number() OVER (PARTITION BY x.e ->> 'KeyType' ORDER BY x.o) AS pos,
								CASE x.e ->> 'KeyType' WHEN 'HASH' THEN def -> 'pk' ELSE def -> 'sk' END AS side
						   FROM jsonb_array_elements(key_schema) WITH ORDINALITY AS x(e, o)) AS k) AS c
		  WHERE jsonb_typeof(v) IN ('string', 'object')),
		CASE WHEN def ? 'filter' THEN 'filter ' || (def ->> 'filter') END)
	 WHERE key_schema IS NOT NULL AND def ->> 'op' = 'Query'
$$;

-- Design studio: the whole page, one self-contained HTML document.
CREATE FUNCTION st_studio_html(table_name text, max_items integer DEFAULT 200)
	RETURNS text LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	t record;
	model jsonb := @extschema@.st_get_model(table_name);
	ents text[];
	out text;
	r record;
	ix record;
	checks jsonb;
	costs jsonb;
	palette text[] := ARRAY['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e',
							'#17becf', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];
BEGIN
	IF max_items IS NULL OR max_items < 1 OR max_items > 10000 THEN
		RAISE EXCEPTION 'ValidationException: max_items must be from 1 to 10000'
			USING ERRCODE = 'SD001';
	END IF;
	SELECT * INTO t FROM stdesign.tables AS x WHERE x.table_name = st_studio_html.table_name;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'ResourceNotFoundException: Requested resource not found: Table: % not found', table_name
			USING ERRCODE = 'SD002';
	END IF;
	ents := ARRAY(SELECT jsonb_object_keys(COALESCE(model -> 'entities', '{}')) ORDER BY 1);
	out := '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
		|| '<meta http-equiv="Content-Security-Policy" content="default-src ''none''; style-src ''unsafe-inline''; script-src ''unsafe-inline''; img-src data:">'
		|| '<title>' || stdesign.html_escape(table_name) || ' - stdesign design studio</title>'
		|| '<script>window.studioErrors=[];window.onerror=function(m,s,l){window.studioErrors.push(String(m)+" line "+l);'
		|| 'var e=document.getElementById("studio-errors");if(e){var li=document.createElement("li");li.className="studio-error";'
		|| 'li.textContent=String(m)+" line "+l;e.appendChild(li);}};</script>'
		|| '<style>body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222}h1{font-size:20px}h2{font-size:16px;margin-top:28px}'
		|| 'table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}'
		|| 'th{background:#f3f3f3;font-weight:600}.agg tr.pkrow td{background:#e8eef7;font-weight:600}.count{font-weight:400;color:#666;margin-left:8px}'
		|| '.agg tr.hdr th{background:#fafafa;font-size:11px;color:#555}.badge{color:#fff;border-radius:3px;padding:0 5px;font-size:11px}'
		|| '.note{color:#555;font-style:italic}.sampled{color:#a40}.ok{color:#2a7}.bad{color:#c22}.chart .bar{fill:#4a7bd0}.chart text{font-size:11px}'
		|| '.legend span{margin-right:10px;cursor:pointer}.dim{opacity:.25}code{background:#f6f6f6;padding:0 3px}th.gsikey{color:#6a3d9a}td.derived{color:#666;font-style:italic}';
	FOR i IN 0..9 LOOP
		out := out || '.badge.e' || i || '{background:' || palette[i + 1] || '}tr.item.e' || i
			|| ' td:first-child{border-left:4px solid ' || palette[i + 1] || '}';
	END LOOP;
	out := out || '.badge.enone{background:#999}</style></head><body>'
		|| '<h1>' || stdesign.html_escape(table_name) || '</h1><p>Partition key <code>'
		|| stdesign.html_escape(t.pk_name) || '</code> (' || t.pk_type || ')'
		|| COALESCE(', sort key <code>' || stdesign.html_escape(t.sk_name) || '</code> (' || t.sk_type || ')', '')
		|| '; ' || (SELECT CASE WHEN count(*) > 10000 THEN 'more than 10000 items'
								WHEN count(*) = 1 THEN '1 item' ELSE count(*) || ' items' END
					  FROM stdesign.studio_scan(table_name, NULL, 10001, false) AS x) || '.</p>';
	IF model IS NULL THEN
		out := out || '<p class="note">This table has no model: store one with st_set_model to see entities, access patterns, checks and costs.</p>';
	ELSE
		out := out || COALESCE('<p>' || stdesign.html_escape(model ->> 'description') || '</p>', '')
			|| '<p class="legend">Entities: '
			|| COALESCE((SELECT string_agg('<span class="badge e' || ((o - 1) % 10) || '" data-entity-toggle="'
										   || stdesign.html_escape(e) || '">' || stdesign.html_escape(e) || '</span>', ' ' ORDER BY o)
						   FROM unnest(ents) WITH ORDINALITY AS u(e, o)), '') || '</p>';
	END IF;

	out := out || '<h2>Table ' || stdesign.html_escape(table_name) || ' (aggregate view)</h2>'
		|| stdesign.studio_view_html(table_name, NULL, t.pk_name, t.sk_name, model, max_items);
	FOR ix IN SELECT * FROM stdesign.indexes AS i WHERE i.table_name = st_studio_html.table_name ORDER BY i.index_name
	LOOP
		out := out || '<h2>Index ' || stdesign.html_escape(ix.index_name) || ' ('
			|| CASE WHEN ix.is_local THEN 'LSI' ELSE 'GSI' END || ', ' || ix.projection_type || ')</h2>'
			|| stdesign.studio_view_html(table_name, ix.index_name, ix.pk_name, ix.sk_name, model, max_items);
	END LOOP;

	IF model IS NOT NULL THEN
		-- each measured once
		checks := (SELECT jsonb_agg(to_jsonb(x)) FROM @extschema@.st_check_model(table_name) AS x);
		costs := (SELECT jsonb_agg(to_jsonb(x)) FROM @extschema@.st_model_cost(table_name) AS x);
		out := out || '<h2>Access patterns</h2><table class="patterns"><thead><tr><th>pattern</th><th>operation</th>'
			|| '<th>index</th><th>key condition</th><th>entities</th><th>items read / returned per call</th>'
			|| '<th>RCU / WCU per call</th><th>calls/s</th><th>on demand $/month</th><th>provisioned $/month</th><th>check</th></tr></thead><tbody>';
		FOR r IN SELECT c.*, k.calls_per_second, k.read_units, k.write_units, k.on_demand_monthly,
						k.provisioned_monthly, k.note, model #> ARRAY['patterns', c.name] AS def
				   FROM jsonb_to_recordset(checks) AS c(kind text, name text, operation text, index_name text, entities text[], read_per_call float8, returned_per_call float8, ok boolean, findings text[], measured_with jsonb)
				   LEFT JOIN jsonb_to_recordset(costs) AS k(pattern text, operation text, index_name text, calls_per_second float8, read_units float8, write_units float8, on_demand_monthly numeric, provisioned_monthly numeric, note text) ON k.pattern = c.name
				  WHERE c.kind = 'pattern'
		LOOP
			out := out || '<tr><td>' || stdesign.html_escape(r.name) || '</td><td>' || r.operation || '</td><td>'
				|| stdesign.html_escape(COALESCE(r.index_name, 'table')) || '</td><td><code>'
				|| stdesign.html_escape(COALESCE(stdesign.studio_key_condition_multi(r.def,
						(SELECT i.key_schema FROM stdesign.indexes AS i WHERE i.table_name = st_studio_html.table_name AND i.index_name = r.index_name)),
					stdesign.studio_key_condition(r.def,
						COALESCE((SELECT i.pk_name FROM stdesign.indexes AS i WHERE i.table_name = st_studio_html.table_name AND i.index_name = r.index_name), t.pk_name),
						COALESCE((SELECT i.sk_name FROM stdesign.indexes AS i WHERE i.table_name = st_studio_html.table_name AND i.index_name = r.index_name), t.sk_name))))
				|| '</code></td><td>'
				|| stdesign.html_escape(array_to_string(r.entities, ', ')) || '</td><td>'
				|| CASE WHEN r.operation = 'PutItem' THEN '' ELSE round(r.read_per_call::numeric, 1) || ' / ' || round(r.returned_per_call::numeric, 1) END
				|| COALESCE('<br><span class="note">' || stdesign.html_escape(stdesign.studio_measured_with(r.measured_with)) || '</span>', '')
				|| '</td><td>' || round(r.read_units::numeric, 2) || ' / ' || round(r.write_units::numeric, 2) || '</td><td>'
				|| r.calls_per_second || '</td><td>' || round(r.on_demand_monthly, 2) || '</td><td>'
				|| round(r.provisioned_monthly, 2) || '</td><td>'
				|| CASE WHEN r.ok THEN '<span class="ok">ok</span>'
						ELSE '<ul>' || (SELECT string_agg('<li class="bad">' || stdesign.html_escape(f) || '</li>', '') FROM unnest(r.findings) AS f) || '</ul>' END
				|| '</td></tr>';
		END LOOP;
		SELECT * INTO r FROM jsonb_to_recordset(costs) AS k(pattern text, operation text, index_name text, calls_per_second float8, read_units float8, write_units float8, on_demand_monthly numeric, provisioned_monthly numeric, note text) WHERE k.pattern IS NULL;
		out := out || '<tr><td colspan="7">' || stdesign.html_escape(r.note) || '</td><td>' || r.calls_per_second || '</td><td>'
			|| round(r.on_demand_monthly, 2) || '</td><td>' || round(r.provisioned_monthly, 2) || '</td><td></td></tr></tbody></table>'
			|| '<p class="note">Costs from stdesign.prices ('
			|| stdesign.html_escape((SELECT p.name || ', ' || p.as_of FROM stdesign.prices AS p WHERE p.name = 'us-east-1'))
			|| '), measured on the stored items by DynamoDB''s capacity rules.</p>';
		out := out || '<h2>Model checks</h2><table><thead><tr><th>kind</th><th>name</th><th>check</th></tr></thead><tbody>';
		FOR r IN SELECT * FROM jsonb_to_recordset(checks) AS c(kind text, name text, operation text, index_name text, entities text[], read_per_call float8, returned_per_call float8, ok boolean, findings text[], measured_with jsonb) WHERE c.kind <> 'pattern'
		LOOP
			out := out || '<tr><td>' || r.kind || '</td><td>' || stdesign.html_escape(r.name) || '</td><td>'
				|| CASE WHEN r.ok THEN '<span class="ok">ok</span>'
						ELSE (SELECT string_agg('<span class="bad">' || stdesign.html_escape(f) || '</span>', '<br>') FROM unnest(r.findings) AS f) END
				|| '</td></tr>';
		END LOOP;
		out := out || '</tbody></table>';
	END IF;

	out := out || '<h2>Hot partitions</h2><h3>Table</h3>'
		|| stdesign.studio_partition_chart(table_name, NULL, t.pk_name, 10000);
	FOR ix IN SELECT * FROM stdesign.indexes AS i WHERE i.table_name = st_studio_html.table_name ORDER BY i.index_name
	LOOP
		out := out || '<h3>Index ' || stdesign.html_escape(ix.index_name) || '</h3>'
			|| stdesign.studio_partition_chart(table_name, ix.index_name, ix.pk_name, 10000);
	END LOOP;
	-- the counters, when stdesign is preloaded and the caller may read them
	IF stdesign.studio_traffic_shown(table_name) THEN
		out := out || '<h3>Traffic counted since the last reset</h3><table class="traffic"><tbody>'
			|| COALESCE((SELECT string_agg('<tr>' || (SELECT string_agg('<td>' || stdesign.html_escape(v.key || ': ' || stdesign.studio_value(v.value)) || '</td>', '')
													  FROM jsonb_each(x.j) AS v) || '</tr>', '')
						   FROM (SELECT to_jsonb(tr) AS j FROM @extschema@.st_partition_traffic(table_name) AS tr LIMIT 50) AS x),
						'<tr><td class="note">Nothing counted.</td></tr>')
			|| '</tbody></table>';
	END IF;
	out := out || '<p class="note">Partition sizes by DynamoDB''s item size rules; DynamoDB serves at most 3,000 read units and 1,000 write units per second per partition.</p>'
		|| '<ul id="studio-errors"></ul><p id="studio-status" data-ok="0" hidden></p>'
		|| '<script>(function(){var t=document.querySelectorAll("[data-entity-toggle]");'
		|| 'for(var i=0;i<t.length;i++){t[i].addEventListener("click",function(ev){var n=ev.currentTarget.getAttribute("data-entity-toggle");'
		|| 'var all=document.body.getAttribute("data-lit")===n;document.body.setAttribute("data-lit",all?"":n);'
		|| 'var rows=document.querySelectorAll("tr.item");for(var j=0;j<rows.length;j++){rows[j].classList.toggle("dim",!all&&rows[j].getAttribute("data-entity")!==n);}});}'
		|| 'var s=document.getElementById("studio-status");if(window.studioErrors.length===0){s.setAttribute("data-ok","1");}'
		|| '})();</script></body></html>';
	RETURN out;
END $$;
COMMENT ON FUNCTION st_studio_html(text, integer) IS
	'Design studio: one self-contained HTML page of the table: aggregate views, access patterns with checks and costs, hot partitions';

-- May the page show the table's traffic counters (stdesign preloaded, and
-- the caller may read them as st_partition_traffic's caller)?
CREATE FUNCTION stdesign.studio_traffic_shown(table_name text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'studio_traffic_shown' LANGUAGE C STABLE;

-- st_check_model's measured_with in a few words: the first call's
-- parameters, and how many more calls; NULL for none.
CREATE FUNCTION stdesign.studio_measured_with(measured_with jsonb) RETURNS text
	LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT 'measured with ' || CASE WHEN measured_with -> 0 = '{}' THEN 'no parameters'
									ELSE (measured_with -> 0)::text END
		|| CASE WHEN jsonb_array_length(measured_with) > 1
				THEN ' and ' || (jsonb_array_length(measured_with) - 1) || ' more' ELSE '' END
$$;

-- Design studio: the same, as lines of text for psql.
CREATE FUNCTION st_studio_text(table_name text) RETURNS SETOF text
	LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	t record;
	r record;
	model jsonb := @extschema@.st_get_model(table_name);
	checks jsonb;
	costs jsonb;
BEGIN
	SELECT * INTO t FROM stdesign.tables AS x WHERE x.table_name = st_studio_text.table_name;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'ResourceNotFoundException: Requested resource not found: Table: % not found', table_name
			USING ERRCODE = 'SD002';
	END IF;
	RETURN NEXT format('table %s: partition key %s (%s)%s', table_name, t.pk_name, t.pk_type,
					   COALESCE(format(', sort key %s (%s)', t.sk_name, t.sk_type), ''));
	FOR r IN SELECT * FROM stdesign.indexes AS i WHERE i.table_name = st_studio_text.table_name ORDER BY i.index_name
	LOOP
		RETURN NEXT format('  index %s (%s, %s): %s%s', r.index_name, CASE WHEN r.is_local THEN 'LSI' ELSE 'GSI' END,
						   r.projection_type, r.pk_name, COALESCE(' / ' || r.sk_name, ''));
	END LOOP;
	IF model IS NULL THEN
		RETURN NEXT 'no model (st_set_model)';
	ELSE
		RETURN NEXT 'entities:';
		FOR r IN SELECT e.key AS name, e.value AS def FROM jsonb_each(model -> 'entities') AS e ORDER BY 1
		LOOP
			RETURN NEXT format('  %s: %s', r.name,
							   (SELECT string_agg(k.key || ' = ' || (k.value #>> '{}'), ', '
												  ORDER BY k.key = t.pk_name DESC, k.key = t.sk_name DESC, k.key)
								  FROM jsonb_each(r.def -> 'keys') AS k));
		END LOOP;
		-- each measured once
		checks := (SELECT jsonb_agg(to_jsonb(x)) FROM @extschema@.st_check_model(table_name) AS x);
		costs := (SELECT jsonb_agg(to_jsonb(x)) FROM @extschema@.st_model_cost(table_name) AS x);
		RETURN NEXT 'access patterns:';
		FOR r IN SELECT c.*, k.calls_per_second, k.read_units, k.write_units, k.on_demand_monthly, k.provisioned_monthly
				   FROM jsonb_to_recordset(checks) AS c(kind text, name text, operation text, index_name text, entities text[], read_per_call float8, returned_per_call float8, ok boolean, findings text[], measured_with jsonb)
				   LEFT JOIN jsonb_to_recordset(costs) AS k(pattern text, operation text, index_name text, calls_per_second float8, read_units float8, write_units float8, on_demand_monthly numeric, provisioned_monthly numeric, note text) ON k.pattern = c.name
				  WHERE c.kind = 'pattern'
		LOOP
			RETURN NEXT format('  %s: %s on %s, %s %s; %s; %s RCU %s WCU per call; %s/s: $%s on demand, $%s provisioned a month; %s',
							   r.name, r.operation, COALESCE(r.index_name, 'the table'),
							   CASE WHEN r.operation = 'PutItem' THEN 'writes' ELSE 'reads' END,
							   COALESCE(NULLIF(array_to_string(r.entities, ', '), ''), 'no entity'),
							   CASE WHEN r.operation = 'PutItem' THEN 'one item per call'
									ELSE format('%s/%s items read/returned per call%s', round(r.read_per_call::numeric, 1),
												round(r.returned_per_call::numeric, 1),
												COALESCE(' (' || stdesign.studio_measured_with(r.measured_with) || ')', '')) END,
							   round(r.read_units::numeric, 2), round(r.write_units::numeric, 2),
							   r.calls_per_second, round(r.on_demand_monthly, 2), round(r.provisioned_monthly, 2),
							   CASE WHEN r.ok THEN 'ok' ELSE array_to_string(r.findings, '; ') END);
		END LOOP;
		SELECT * INTO r FROM jsonb_to_recordset(costs) AS k(pattern text, operation text, index_name text, calls_per_second float8, read_units float8, write_units float8, on_demand_monthly numeric, provisioned_monthly numeric, note text) WHERE k.pattern IS NULL;
		RETURN NEXT format('  %s: $%s on demand, $%s provisioned a month', r.note,
						   round(r.on_demand_monthly, 2), round(r.provisioned_monthly, 2));
		RETURN NEXT 'checks:';
		FOR r IN SELECT * FROM jsonb_to_recordset(checks) AS c(kind text, name text, operation text, index_name text, entities text[], read_per_call float8, returned_per_call float8, ok boolean, findings text[], measured_with jsonb) WHERE c.kind <> 'pattern'
		LOOP
			RETURN NEXT format('  %s %s: %s', r.kind, r.name,
							   CASE WHEN r.ok THEN 'ok' ELSE array_to_string(r.findings, '; ') END);
		END LOOP;
	END IF;
	RETURN NEXT 'largest partitions (sampled, at most 10000 items):';
	FOR r IN SELECT * FROM stdesign.studio_partitions(table_name, NULL, t.pk_name, 10000) LIMIT 5
	LOOP
		RETURN NEXT format('  %s: %s %s, %s bytes', r.pk, r.items, CASE WHEN r.items = 1 THEN 'item' ELSE 'items' END, r.bytes);
	END LOOP;
END $$;
COMMENT ON FUNCTION st_studio_text(text) IS
	'Design studio: the model, access patterns with checks and costs, and the largest partitions, as text';
-- Time to live -----------------------------------------------------------------

-- UpdateTimeToLive's setting of a table: the attribute that holds each item's
-- expiry (epoch seconds) and whether expiry is on.  The attribute is kept
-- while disabled, as DynamoDB names it in DISABLING; updated_at is when it
-- last changed.
ALTER TABLE stdesign.tables ADD COLUMN ttl_attribute text COLLATE "C";
ALTER TABLE stdesign.tables ADD COLUMN ttl_enabled boolean NOT NULL DEFAULT false;
ALTER TABLE stdesign.tables ADD COLUMN ttl_updated_at timestamptz;

-- An item's time of expiry: the attribute's Number as numeric, NULL for
-- anything else.  With ttl_second and ttl_shard below, the key of a table's
-- time-to-live index, which enabling time to live creates
-- (stdesign_data."<table>:ttl") and disabling it drops.  Postgres computes
-- the index's key on every write of the table, so none of them ever raises
-- an error, whatever the item holds (src/storage/ttl_expiry.c).
CREATE FUNCTION stdesign.ttl_expiry(item jsonb, attribute text) RETURNS numeric
	AS 'MODULE_PATHNAME', 'st_ttl_expiry' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- The index's key: the expiry's whole second (floor), a bigint, NULL when
-- there is none or it is 10^18 or more; st_expire checks ttl_expiry's exact
-- value on the items the index gives.
CREATE FUNCTION stdesign.ttl_second(item jsonb, attribute text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'st_ttl_second' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- The index's first column: a shard of the item's key (0 to 15, a hash of
-- the key columns' bytes), so that writers of items expiring in the same
-- second do not all add their entries to one page of the index.
CREATE FUNCTION stdesign.ttl_shard(pk "any") RETURNS integer
	AS 'MODULE_PATHNAME', 'st_ttl_shard' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION stdesign.ttl_shard(pk "any", sk "any") RETURNS integer
	AS 'MODULE_PATHNAME', 'st_ttl_shard' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- 0.1.0 had no time to live: no table of an upgraded catalog has it
-- enabled, so none needs its index here.

CREATE FUNCTION st_update_ttl(table_name text, attribute_name text, enabled boolean DEFAULT true)
	RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_update_ttl' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_update_ttl(text, text, boolean) IS
	'UpdateTimeToLive: turn expiry on or off; returns the TimeToLiveSpecification';

CREATE FUNCTION st_describe_ttl(table_name text) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_describe_ttl' LANGUAGE C STABLE;
COMMENT ON FUNCTION st_describe_ttl(text) IS
	'DescribeTimeToLive: the table''s TimeToLiveDescription';

CREATE FUNCTION st_expire(table_name text) RETURNS bigint
	AS 'MODULE_PATHNAME', 'st_expire' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_expire(text) IS
	'delete the table''s expired items now, as the time-to-live worker does; returns how many';
-- PartiQL -----------------------------------------------------------------

-- A PartiQL statement (SELECT, INSERT, UPDATE, DELETE) with its ? parameters,
-- as ExecuteStatement runs it; returns every item it reads or returns
-- (RETURNING), all pages.
CREATE FUNCTION st_partiql(statement text, parameters jsonb DEFAULT NULL,
						   typed boolean DEFAULT false) RETURNS SETOF jsonb
	AS 'MODULE_PATHNAME', 'st_partiql' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_partiql(text, jsonb, boolean) IS
	'ExecuteStatement: run a PartiQL statement (parameters: a JSON array of values, typed AttributeValues with typed => true); returns its items';
-- Tags -----------------------------------------------------------------------

-- The tags of each table (TagResource, UntagResource, ListTagsOfResource;
-- CreateTable's Tags), dropped with the table.
CREATE TABLE stdesign.tags (
	table_name text COLLATE "C" NOT NULL REFERENCES stdesign.tables ON DELETE CASCADE,
	tag_key text COLLATE "C" NOT NULL,
	tag_value text NOT NULL,
	PRIMARY KEY (table_name, tag_key)
);
SELECT pg_catalog.pg_extension_config_dump('stdesign.tags', '');

CREATE FUNCTION st_tag_table(table_name text, tags jsonb) RETURNS void
	AS 'MODULE_PATHNAME', 'st_tag_table' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_tag_table(text, jsonb) IS
	'TagResource: add tags {"key": "value", ...} to a table (a key given again takes the new value)';
CREATE FUNCTION st_untag_table(table_name text, tag_keys text[]) RETURNS void
	AS 'MODULE_PATHNAME', 'st_untag_table' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_untag_table(text, text[]) IS
	'UntagResource: remove tags of a table by key';
CREATE FUNCTION st_table_tags(table_name text) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_table_tags' LANGUAGE C STABLE;
COMMENT ON FUNCTION st_table_tags(text) IS
	'ListTagsOfResource: the tags of a table, {"key": "value", ...}';
-- The HTTP workers keep the access keys they have looked up; every change
-- to the key table invalidates those caches when it commits.
CREATE FUNCTION stdesign.access_keys_changed() RETURNS trigger
	AS 'MODULE_PATHNAME', 'st_access_keys_changed' LANGUAGE C;
COMMENT ON FUNCTION stdesign.access_keys_changed() IS
	'trigger: the HTTP workers forget the access keys they cached';
REVOKE ALL ON FUNCTION stdesign.access_keys_changed() FROM PUBLIC;
CREATE TRIGGER access_keys_changed
	AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON stdesign.access_keys
	FOR EACH STATEMENT EXECUTE FUNCTION stdesign.access_keys_changed();
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
	multi text;
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
			-- Workbench's KeyAttributes hold one PartitionKey and one SortKey
			-- object: a key of several attributes (an array there) is no part
			-- of its format (docs/studio.md, "NoSQL Workbench")
			SELECT COALESCE(g->>'IndexName', '#' || (o - 1)) INTO multi
			  FROM jsonb_array_elements(m->'GlobalSecondaryIndexes') WITH ORDINALITY AS x(g, o)
			 WHERE jsonb_typeof(g #> '{KeyAttributes,PartitionKey}') = 'array'
				OR jsonb_typeof(g #> '{KeyAttributes,SortKey}') = 'array'
			 ORDER BY o LIMIT 1;
			IF multi IS NOT NULL THEN
				RAISE EXCEPTION 'ValidationException: DataModel[%] (table %): the "KeyAttributes" of GSI % is not of NoSQL Workbench''s format, one "PartitionKey" and one "SortKey" object; create a GSI with a key of several attributes with CreateTable or UpdateTable',
					i - 1, tname, multi
					USING ERRCODE = 'SD001';
			END IF;
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
		-- the facets: each an entity of the table's model (docs/sql.md, Import and
		-- export), its sample items (the facet's TableData) written too
		DECLARE
			facets jsonb := m->'TableFacets';
			f jsonb;
			doc jsonb;
			entity jsonb;
			attrs jsonb;
			fn integer;
			tinfo jsonb := jsonb_build_object('TableName', tname);
		BEGIN
			n := COALESCE(n, 0);
			IF facets IS NOT NULL AND jsonb_typeof(facets) <> 'array' THEN
				RAISE EXCEPTION 'ValidationException: DataModel[%] (table %): "TableFacets" must be an array of facets', i - 1, tname
					USING ERRCODE = 'SD001';
			END IF;
			IF jsonb_array_length(COALESCE(facets, '[]')) > 0 THEN
				doc := jsonb_build_object('type_attribute', NULL, 'entities', '{}'::jsonb);
				fn := 0;
				FOR f IN SELECT value FROM jsonb_array_elements(facets) LOOP
					fn := fn + 1;
					IF jsonb_typeof(f) IS DISTINCT FROM 'object' OR jsonb_typeof(f->'FacetName') IS DISTINCT FROM 'string'
					   OR jsonb_typeof(f #> '{KeyAttributeAlias,PartitionKeyAlias}') IS DISTINCT FROM 'string'
					   OR (m #> '{KeyAttributes,SortKey}' IS NOT NULL
						   AND jsonb_typeof(f #> '{KeyAttributeAlias,SortKeyAlias}') IS DISTINCT FROM 'string')
					   OR (f->'NonKeyAttributes' IS NOT NULL AND jsonb_typeof(f->'NonKeyAttributes') <> 'array')
					   OR (f->'TableData' IS NOT NULL AND jsonb_typeof(f->'TableData') <> 'array') THEN
						RAISE EXCEPTION 'ValidationException: DataModel[%] (table %): TableFacets[%] needs a "FacetName" and "KeyAttributeAlias": {"PartitionKeyAlias"%}; "NonKeyAttributes" and "TableData" are arrays',
							i - 1, tname, fn - 1, CASE WHEN m #> '{KeyAttributes,SortKey}' IS NULL THEN '' ELSE ', "SortKeyAlias"' END
							USING ERRCODE = 'SD001';
					END IF;
					IF doc #> ARRAY['entities', f->>'FacetName'] IS NOT NULL THEN
						RAISE EXCEPTION 'ValidationException: DataModel[%] (table %): two facets are named %', i - 1, tname, f->>'FacetName'
							USING ERRCODE = 'SD001';
					END IF;
					-- an alias's <placeholder> is a template's {placeholder}
					entity := jsonb_build_object('keys', jsonb_strip_nulls(jsonb_build_object(
						m #>> '{KeyAttributes,PartitionKey,AttributeName}',
						regexp_replace(f #>> '{KeyAttributeAlias,PartitionKeyAlias}', '<([^<>{}]*)>', '{\1}', 'g'),
						COALESCE(m #>> '{KeyAttributes,SortKey,AttributeName}', '-'),
						regexp_replace(f #>> '{KeyAttributeAlias,SortKeyAlias}', '<([^<>{}]*)>', '{\1}', 'g'))));
					IF m #> '{KeyAttributes,SortKey}' IS NULL THEN
						entity := jsonb_set(entity, '{keys}', (entity->'keys') - '-');
					END IF;
					-- the attributes: the facet's, and the aliases' placeholders,
					-- typed by the table's NonKeyAttributes (else a placeholder S,
					-- another any)
					SELECT COALESCE(jsonb_object_agg(a, COALESCE(
							   (SELECT d->>'AttributeType' FROM jsonb_array_elements(
									CASE WHEN jsonb_typeof(m->'NonKeyAttributes') = 'array' THEN m->'NonKeyAttributes' ELSE '[]' END) AS d
								 WHERE d->>'AttributeName' = a LIMIT 1),
							   CASE WHEN ph THEN 'S' ELSE 'any' END)), '{}')
					  INTO attrs
					  FROM (SELECT a, bool_or(ph) AS ph
							  FROM (SELECT x #>> '{}' AS a, false AS ph
									  FROM jsonb_array_elements(COALESCE(f->'NonKeyAttributes', '[]')) AS x
									UNION ALL
									SELECT (regexp_matches(COALESCE(f #>> '{KeyAttributeAlias,PartitionKeyAlias}', '') || ' '
														   || COALESCE(f #>> '{KeyAttributeAlias,SortKeyAlias}', ''),
														   '<([^<>{}]*)>', 'g'))[1], true) AS u
							 GROUP BY a) AS v;
					IF attrs ? 'entity_type' THEN
						doc := jsonb_set(doc, '{type_attribute}', '"entity_type"');
					END IF;
					entity := entity || jsonb_build_object('attributes', attrs);
					doc := jsonb_set(doc, ARRAY['entities', f->>'FacetName'], entity);
					SELECT n + COALESCE(@extschema@.st_put_all(item, tname, true), 0) INTO n
					  FROM jsonb_array_elements(COALESCE(f->'TableData', '[]')) AS x(item);
				END LOOP;
				-- a model the facets cannot form (aliases that are only labels, two
				-- facets with the same keys) leaves the table without one: a warning
				BEGIN
					PERFORM @extschema@.st_set_model(tname, doc);
					tinfo := tinfo || jsonb_build_object('Entities', fn);
				EXCEPTION WHEN OTHERS THEN
					RAISE WARNING 'the facets of table % were not stored as its model: %', tname, SQLERRM;
					tinfo := tinfo || jsonb_build_object('ModelError', SQLERRM);
				END;
			END IF;
			tables := tables || (tinfo || jsonb_build_object('Items', n));
			total := total + n;
		END;
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
	multi text;
BEGIN
	FOR name IN SELECT DISTINCT n FROM unnest(COALESCE(table_names, ARRAY(SELECT @extschema@.st_list_tables()))) AS u(n)
				 ORDER BY n LOOP
		d := @extschema@.st_describe_table(name);
		-- a GSI with a key of several attributes: Workbench's KeyAttributes
		-- hold one PartitionKey and one SortKey, so it is left out, said in a
		-- WARNING (docs/studio.md, "NoSQL Workbench")
		FOR multi IN SELECT g->>'IndexName'
					   FROM jsonb_array_elements(COALESCE(d->'GlobalSecondaryIndexes', '[]')) WITH ORDINALITY AS x(g, o)
					  WHERE jsonb_array_length(g->'KeySchema') > 2
						 OR (g #>> '{KeySchema,1,KeyType}') = 'HASH'
					  ORDER BY o LOOP
			RAISE WARNING 'GSI % of table % is left out of the NoSQL Workbench model: its key has several partition-key or sort-key attributes, which the model''s KeyAttributes (one PartitionKey, one SortKey) cannot hold',
				multi, name;
		END LOOP;
		SELECT COALESCE(jsonb_agg(s.item ORDER BY s.o), '[]') INTO items
		  FROM stdesign.studio_scan(name, NULL, max_items, true) WITH ORDINALITY AS s(item, o);
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
			-- then those of the sample items (typed by the first item that has them),
			-- then those the model's entities declare with a type
			'NonKeyAttributes', COALESCE((
				SELECT jsonb_agg(jsonb_build_object('AttributeName', an, 'AttributeType', at) ORDER BY an)
				  FROM (SELECT DISTINCT ON (an) an, at
						  FROM (SELECT a->>'AttributeName' AS an, a->>'AttributeType' AS at, 0 AS o
								  FROM jsonb_array_elements(d->'AttributeDefinitions') AS a
								UNION ALL
								SELECT e.key, (SELECT min(t) FROM jsonb_object_keys(e.value) AS t), 1
								  FROM jsonb_array_elements(items) AS it, jsonb_each(it) AS e
								UNION ALL
								SELECT a.key, a.value #>> '{}', 2
								  FROM jsonb_each(COALESCE(@extschema@.st_get_model(name)->'entities', '{}')) AS e,
									   jsonb_each(COALESCE(e.value->'attributes', '{}')) AS a
								 WHERE a.value #>> '{}' <> 'any') AS c
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
				  FROM jsonb_array_elements(d->'GlobalSecondaryIndexes') WITH ORDINALITY AS x(g, o)
				 WHERE jsonb_array_length(g->'KeySchema') <= 2
				   AND (g #>> '{KeySchema,1,KeyType}') IS DISTINCT FROM 'HASH'), '[]'),
			'TableData', items,
			-- the model's entities as facets: the table's key templates as
			-- aliases ({x} as <x>), the attributes (and the type attribute)
			'TableFacets', COALESCE((
				SELECT jsonb_agg(jsonb_build_object(
						   'FacetName', e.key,
						   'KeyAttributeAlias', jsonb_strip_nulls(jsonb_build_object(
							   'PartitionKeyAlias', regexp_replace(e.value #>> ARRAY['keys', d #>> '{KeySchema,0,AttributeName}'],
																   '\{([^{}]*)\}', '<\1>', 'g'),
							   'SortKeyAlias', regexp_replace(e.value #>> ARRAY['keys', d #>> '{KeySchema,1,AttributeName}'],
															  '\{([^{}]*)\}', '<\1>', 'g'))),
						   'TableData', '[]'::jsonb,
						   'NonKeyAttributes', (
							   SELECT COALESCE(jsonb_agg(an ORDER BY an), '[]')
								 FROM (SELECT jsonb_object_keys(COALESCE(e.value->'attributes', '{}')) AS an
									   UNION
									   SELECT COALESCE(e.value->>'type_attribute',
													   CASE WHEN mdl ? 'type_attribute' THEN mdl->>'type_attribute'
															ELSE 'entity_type' END)
										WHERE NOT (e.value ? 'type_attribute' AND e.value->'type_attribute' = 'null')) AS na
								WHERE an IS NOT NULL),
						   'DataAccess', '{"MySql": {}}'::jsonb) ORDER BY e.key)
				  FROM (SELECT @extschema@.st_get_model(name) AS mdl) AS g,
					   jsonb_each(COALESCE(g.mdl->'entities', '{}')) AS e), '[]'),
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
-- Citus --------------------------------------------------------------------
-- (docs/citus.md.)  Distribute a table's relation by its partition key
-- over the workers of a Citus cluster (run on the coordinator); run again,
-- it copies the table's catalog rows to the workers again (after a worker
-- was added, say).  Returns the number of shards.  Citus is found at run
-- time: without it, this raises and nothing else changes.
CREATE FUNCTION st_distribute_table(table_name text, shard_count integer DEFAULT 32) RETURNS integer
	AS 'MODULE_PATHNAME', 'st_distribute_table' LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION st_distribute_table(text, integer) IS
	'distribute a table over the workers of a Citus cluster by its partition key';
REVOKE EXECUTE ON FUNCTION st_distribute_table(text, integer) FROM PUBLIC;
-- The items the studio's pages and exports read (st_studio_html,
-- st_export_workbench): st_scan's, but not counted in the traffic counters,
-- which are there for the application's reads and writes.
CREATE FUNCTION stdesign.studio_scan(table_name text, ix text, max_items integer, typed boolean)
	RETURNS SETOF jsonb
	AS 'MODULE_PATHNAME', 'st_studio_scan' LANGUAGE C STABLE;
COMMENT ON FUNCTION stdesign.studio_scan(text, text, integer, boolean) IS
	'The items of a table or index as st_scan returns them, read by the studio: not counted as traffic';
-- (docs/citus.md.)  The C part of a distributed table's delegated read
-- functions (stdesign_data."<relation>_dget" and "<relation>_dquery", made
-- by st_distribute_table): a GetItem, or a Query of one table partition
-- from its start, run at the node Citus sent the call to.  Rows: the items
-- in their stored form (one NULL item when there is none), and whether this
-- node read its own shard directly.  pk, sk and the bounds must have the
-- types of the table's key columns.
CREATE FUNCTION stdesign.st_delegated_get(pk "any", sk "any", table_name text,
										  OUT item jsonb, OUT direct boolean) RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'st_delegated_get' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION stdesign.st_delegated_get("any", "any", text) IS
	'a GetItem a Citus coordinator delegated to this node: the stored item, and whether it was read from a local shard';
CREATE FUNCTION stdesign.st_delegated_query(pk "any", lower_kind integer, lower "any", upper_kind integer,
											upper "any", backward boolean, "limit" bigint, table_name text,
											OUT item jsonb, OUT direct boolean) RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'st_delegated_query' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION stdesign.st_delegated_query("any", integer, "any", integer, "any", boolean, bigint, text) IS
	'a Query of one table partition a Citus coordinator delegated to this node: the stored items, and whether they were read from a local shard';
-- HTTP endpoint: CPU time in stdesign.http_status() -------------------------
-- (docs/http.md.)  With stdesign.http_track_timing on, the
-- requests timed and the CPU time of their handling and of their
-- authentication, in microseconds of the workers' thread CPU time.
DROP FUNCTION stdesign.http_status();
CREATE FUNCTION stdesign.http_status()
	RETURNS TABLE (worker integer, pid integer, listen_addresses text, port integer,
				   open_connections integer, requests_served bigint, requests_failed bigint,
				   by_operation jsonb, requests_timed bigint, request_cpu_us bigint,
				   auth_cpu_us bigint)
	AS 'MODULE_PATHNAME', 'st_http_status' LANGUAGE C VOLATILE
	SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION stdesign.http_status() IS
	'the HTTP endpoint''s workers (no rows unless stdesign is in shared_preload_libraries)';
-- Security: the catalog is not a grant ----------------------------------------
-- (docs/security.md.)  Table administration goes through stdesign's
-- functions and st_api, which check the caller's right (the ownership of
-- the table's relation for every change, CREATE on stdesign_data for a new
-- table) and then write the catalog's rows as its owner.  No other role
-- writes the catalog, whatever it was granted: each catalog table refuses
-- INSERT, UPDATE, DELETE and TRUNCATE by a role that is neither a superuser
-- nor its owner (pg_restore and ALTER EXTENSION run as one of those).
CREATE FUNCTION stdesign.catalog_write_guard() RETURNS trigger
	AS 'MODULE_PATHNAME', 'st_catalog_write_guard' LANGUAGE C;
COMMENT ON FUNCTION stdesign.catalog_write_guard() IS
	'trigger: refuse writes of stdesign''s catalog by roles other than its owner and superusers';
REVOKE ALL ON FUNCTION stdesign.catalog_write_guard() FROM PUBLIC;
CREATE TRIGGER catalog_write_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON stdesign.tables
	FOR EACH STATEMENT EXECUTE FUNCTION stdesign.catalog_write_guard();
CREATE TRIGGER catalog_write_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON stdesign.indexes
	FOR EACH STATEMENT EXECUTE FUNCTION stdesign.catalog_write_guard();
CREATE TRIGGER catalog_write_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON stdesign.tags
	FOR EACH STATEMENT EXECUTE FUNCTION stdesign.catalog_write_guard();
CREATE TRIGGER catalog_write_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON stdesign.models
	FOR EACH STATEMENT EXECUTE FUNCTION stdesign.catalog_write_guard();
-- What the README of 0.1.0 told a table-admin role to have (INSERT, UPDATE,
-- DELETE on stdesign.tables and stdesign.indexes), and every other write
-- privilege on the catalog tables (TRUNCATE; REFERENCES and TRIGGER, with
-- which a role could hang its own code on the catalog), is taken back from
-- every role but the owner; SELECT stays.  A REVOKE in an extension script
-- also records the table's ACL as the extension's initial privileges, which
-- pg_dump leaves out of a dump: the SELECT grants users made would not
-- survive a dump and restore.  So a table that had no initial privileges
-- before gets none.
DO $$
DECLARE
	r record;
	catalog pg_catalog.oid[] := ARRAY(
		SELECT c.oid FROM pg_catalog.pg_class AS c
		 WHERE c.relnamespace OPERATOR(pg_catalog.=) 'stdesign'::pg_catalog.regnamespace
		   AND c.relname OPERATOR(pg_catalog.=) ANY (ARRAY['tables', 'indexes', 'tags', 'models']::pg_catalog.name[]));
	had pg_catalog.oid[] := ARRAY(
		SELECT p.objoid FROM pg_catalog.pg_init_privs AS p
		 WHERE p.classoid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
		   AND p.objsubid OPERATOR(pg_catalog.=) 0);
BEGIN
	FOR r IN SELECT DISTINCT c.oid::pg_catalog.regclass AS rel, a.grantee
			   FROM pg_catalog.pg_class AS c, pg_catalog.aclexplode(c.relacl) AS a
			  WHERE c.oid OPERATOR(pg_catalog.=) ANY (catalog)
				AND a.grantee OPERATOR(pg_catalog.<>) c.relowner
				AND a.privilege_type OPERATOR(pg_catalog.<>) 'SELECT'
	LOOP
		EXECUTE pg_catalog.format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON %s FROM %s CASCADE',
								  r.rel, CASE WHEN r.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'
											  ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(r.grantee)) END);
	END LOOP;
	DELETE FROM pg_catalog.pg_init_privs AS p
	 WHERE p.classoid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	   AND p.objsubid OPERATOR(pg_catalog.=) 0
	   AND p.objoid OPERATOR(pg_catalog.=) ANY (catalog)
	   AND NOT p.objoid OPERATOR(pg_catalog.=) ANY (had);
END $$;

-- HTTP endpoint: access keys bound to their role's OID ----------------------
-- (docs/http.md, "Access keys".)  A key serves only while the role of OID role_oid
-- is still named role_name: after DROP ROLE, a role created under the same
-- name does not inherit the dropped one's keys.  Keys made before take the
-- OID of the role that has their name now; those whose role is gone keep
-- none, and are refused.
ALTER TABLE stdesign.access_keys ADD COLUMN role_oid oid;
UPDATE stdesign.access_keys k SET role_oid = r.oid
  FROM pg_catalog.pg_roles r WHERE r.rolname = k.role_name;
CREATE OR REPLACE FUNCTION st_list_access_keys()
	RETURNS TABLE (access_key_id text, role name, enabled boolean, created_at timestamptz)
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
	AS $$
	SELECT k.key_id, k.role_name, k.enabled AND r.oid IS NOT NULL, k.created_at
	  FROM stdesign.access_keys k
	  LEFT JOIN pg_catalog.pg_roles r ON r.oid = k.role_oid AND r.rolname = k.role_name
	 ORDER BY k.created_at, k.key_id
	$$;
COMMENT ON FUNCTION st_list_access_keys() IS
	'the access keys of the HTTP endpoint (never their secrets); enabled is false once disabled or once its role was dropped or renamed';

-- On-demand backups -------------------------------------------------------------
-- (docs/sql.md, "Backups"; docs/security.md.)  CreateBackup copies a table's
-- items into stdesign.backup_items in one statement (one snapshot) and
-- records the backup in stdesign.backups: what DescribeBackup tells, and the
-- CreateTable request RestoreTableFromBackup starts from.  A backup belongs
-- to the role that made it (owner_role, while that role is still named
-- owner_name: a dump restored where OIDs differ, or a dropped role's OID
-- given to a new role, hands it to nobody but superusers) and outlives its
-- table.  Both are
-- the catalog's: read and written by stdesign's functions only, granted to
-- no one (the items are the table's data).
CREATE TABLE stdesign.backups (
	backup_id bigint PRIMARY KEY,
	backup_arn text COLLATE "C" NOT NULL UNIQUE,
	backup_name text COLLATE "C" NOT NULL,
	table_name text COLLATE "C" NOT NULL,	-- the source table's name (no reference: it may be gone)
	owner_role oid NOT NULL,
	owner_name name NOT NULL,
	created_at timestamptz NOT NULL,
	size_bytes bigint NOT NULL,
	source jsonb NOT NULL,		-- SourceTableDetails and SourceTableFeatureDetails
	definition jsonb NOT NULL	-- the CreateTable request of a restore
);
CREATE INDEX backups_table_created ON stdesign.backups (table_name, created_at);
CREATE TABLE stdesign.backup_items (
	backup_id bigint NOT NULL,	-- stdesign.backups (no foreign key: a million-item copy checks none)
	item jsonb NOT NULL
);
CREATE INDEX backup_items_backup ON stdesign.backup_items (backup_id);
REVOKE ALL ON stdesign.backups, stdesign.backup_items FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('stdesign.backups', '');
SELECT pg_catalog.pg_extension_config_dump('stdesign.backup_items', '');
CREATE TRIGGER catalog_write_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON stdesign.backups
	FOR EACH STATEMENT EXECUTE FUNCTION stdesign.catalog_write_guard();
CREATE TRIGGER catalog_write_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON stdesign.backup_items
	FOR EACH STATEMENT EXECUTE FUNCTION stdesign.catalog_write_guard();

CREATE FUNCTION st_create_backup(table_name text, backup_name text) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_create_backup' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_create_backup(text, text) IS
	'CreateBackup: a transactionally consistent copy of a table, kept until deleted; returns BackupDetails';
CREATE FUNCTION st_restore_backup(backup_arn text, target_table_name text) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_restore_backup' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_restore_backup(text, text) IS
	'RestoreTableFromBackup: a new table from a backup; returns its TableDescription';
CREATE FUNCTION st_delete_backup(backup_arn text) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_delete_backup' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_delete_backup(text) IS
	'DeleteBackup: delete a backup; returns its BackupDescription';

-- Multi-attribute keys of GSIs ----------------------------------------------
-- (docs/sql.md, "Multi-attribute GSI keys".)  A GSI's key may have up to 4
-- HASH and 4 RANGE attributes; key_schema lists them all, in order.  NULL,
-- as in every row written before, is one HASH (pk_name) and at most one
-- RANGE attribute (sk_name): existing indexes keep working unchanged.
-- Added before Contributor Insights' columns, where a fresh install
-- (stdesign.sql) has it.
ALTER TABLE stdesign.indexes ADD COLUMN key_schema jsonb;

-- Contributor Insights --------------------------------------------------------
-- (docs/studio.md, "Contributor Insights".)  UpdateContributorInsights'
-- setting of a table and of each global secondary index: its mode
-- (ACCESSED_AND_THROTTLED_KEYS or THROTTLED_KEYS; NULL: disabled) and when
-- it last changed.  Written by st_api's operations only, for the owner of
-- the table's relation.
ALTER TABLE stdesign.tables ADD COLUMN insights_mode text
	CHECK (insights_mode IN ('ACCESSED_AND_THROTTLED_KEYS', 'THROTTLED_KEYS'));
ALTER TABLE stdesign.tables ADD COLUMN insights_updated_at timestamptz;
ALTER TABLE stdesign.indexes ADD COLUMN insights_mode text
	CHECK (insights_mode IN ('ACCESSED_AND_THROTTLED_KEYS', 'THROTTLED_KEYS'));
ALTER TABLE stdesign.indexes ADD COLUMN insights_updated_at timestamptz;

CREATE FUNCTION st_contributor_insights(table_name text, index_name text DEFAULT NULL, top integer DEFAULT 10)
	RETURNS TABLE(partition_key text, reads bigint, writes bigint,
				  read_units double precision, write_units double precision,
				  peak_read_units double precision, peak_write_units double precision,
				  throttle_worthy boolean)
	AS 'MODULE_PATHNAME', 'st_contributor_insights' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_contributor_insights(text, text, integer) IS
	'Contributor Insights from the traffic counters: the top partition keys of a table or GSI by units, with their per-second peaks and whether a peak passed DynamoDB''s per-partition limits (needs shared_preload_libraries)';

-- Resource-based policies -------------------------------------------------------
-- (Issue 31; docs/security.md, "Resource-based policies".)  PutResourcePolicy's
-- documents, one per table (stream_label '') and per stream of a table, with
-- their revision ids.  Stored and returned, never evaluated.  Granted to
-- nobody: stdesign writes them for the table's owner and reads them for a
-- role that may read the table.
CREATE TABLE stdesign.resource_policies (
	table_name text COLLATE "C" NOT NULL REFERENCES stdesign.tables ON DELETE CASCADE,
	stream_label text COLLATE "C" NOT NULL DEFAULT '',
	policy text NOT NULL,
	revision_id text COLLATE "C" NOT NULL,
	PRIMARY KEY (table_name, stream_label)
);
REVOKE ALL ON stdesign.resource_policies FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('stdesign.resource_policies', '');
CREATE TRIGGER catalog_write_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON stdesign.resource_policies
	FOR EACH STATEMENT EXECUTE FUNCTION stdesign.catalog_write_guard();

-- DynamoDB Streams: the change log of a table ---------------------------------
-- (Issue 30.)  A stream per enabling of a table's stream: enabling again
-- makes a new stream with a new label, disabling (or deleting the table)
-- keeps the old one readable until its records age out.  Granted to
-- nobody: stdesign writes both tables as their owner, and reads a stream's
-- records for a role that may SELECT the table (st_stream_records).
CREATE TABLE stdesign.streams (
	stream_id bigint PRIMARY KEY,
	table_name text COLLATE "C" NOT NULL,
	-- DynamoDB's StreamLabel: the time of the enabling, ISO 8601 with ms
	label text COLLATE "C" NOT NULL,
	view_type text NOT NULL
		CHECK (view_type IN ('KEYS_ONLY', 'NEW_IMAGE', 'OLD_IMAGE', 'NEW_AND_OLD_IMAGES')),
	-- the shard records are written to now (one per stream until shards roll over)
	shard_id text COLLATE "C" NOT NULL,
	enabled_at timestamptz NOT NULL,
	disabled_at timestamptz,
	table_deleted_at timestamptz,
	-- what DescribeStream answers and who reads the stream once the table
	-- is deleted (its relation's owner then): kept from the enabling
	key_schema jsonb,
	table_owner regrole,
	-- table_owner's name when it was recorded: the owner is table_owner
	-- only while that role still has this name (a dropped role's OID given
	-- to a new role, or a restore where OIDs differ, hands the stream to
	-- nobody but superusers), as stdesign.backups' owner_name
	table_owner_name name
);
-- At most one enabled stream per table.
CREATE UNIQUE INDEX streams_enabled ON stdesign.streams (table_name)
	WHERE disabled_at IS NULL AND table_deleted_at IS NULL;
CREATE SEQUENCE stdesign.stream_ids;
-- Sequence numbers of every stream's records: taken at commit, under the
-- stream's lock, so that they grow in commit order (src/storage/stream_capture.c).
-- By blocks: a commit numbers up to 1000 records from each number it takes
-- (n, n + 1, ...), so numbers grow but are not consecutive, as DynamoDB's.
CREATE SEQUENCE stdesign.stream_sequence_numbers INCREMENT BY 1000;
-- The records: written at commit, one per change of an item.  A record's
-- shard is the one of its stream whose range (stream_shards: above
-- starting_sequence, up to ending_sequence once closed) holds its number:
-- a stream writes to one shard at a time and rolls over under the lock it
-- numbers under, so its shards' ranges are disjoint and in order.  No shard
-- id per record: the key is what each commit inserts, kept small.  A row
-- is one record (batch NULL) or a batch: several records of one commit,
-- consecutive in their stream, packed in batch (src/storage/stream_batch.c)
-- and numbered by the last; its own record columns NULL, size_bytes their
-- sum.  Read them as records with stdesign.stream_record_rows.  batch is
-- stored PLAIN: never compressed nor moved out of the row (it is bounded
-- to fit), read in place.
CREATE TABLE stdesign.stream_records (
	stream_id bigint NOT NULL,
	sequence_number bigint NOT NULL,	-- a batch's: its last record's
	created_at timestamptz NOT NULL,	-- the commit's time (ApproximateCreationDateTime)
	event_name text CHECK (event_name IN ('INSERT', 'MODIFY', 'REMOVE')),
	keys jsonb,
	new_image jsonb,					-- as the view type keeps them
	old_image jsonb,
	size_bytes integer NOT NULL,		-- DynamoDB's size of keys and images kept
	ttl_deletion boolean,				-- removed by time to live
	batch bytea,						-- several records (NULL: the row is one)
	PRIMARY KEY (stream_id, sequence_number),
	CHECK (CASE WHEN batch IS NULL
		THEN event_name IS NOT NULL AND keys IS NOT NULL AND ttl_deletion IS NOT NULL
		ELSE event_name IS NULL AND keys IS NULL AND new_image IS NULL AND old_image IS NULL
			AND ttl_deletion IS NULL END)
);
ALTER TABLE stdesign.stream_records ALTER COLUMN batch SET STORAGE PLAIN;
REVOKE ALL ON stdesign.streams, stdesign.stream_records FROM PUBLIC;
-- The sequences keep their default privileges (the owner's only): PUBLIC
-- has none on a new sequence, and an explicit ACL on them comes back from
-- pg_upgrade to a newer major with a table's privileges.
SELECT pg_catalog.pg_extension_config_dump('stdesign.streams', '');
SELECT pg_catalog.pg_extension_config_dump('stdesign.stream_records', '');
SELECT pg_catalog.pg_extension_config_dump('stdesign.stream_ids', '');
SELECT pg_catalog.pg_extension_config_dump('stdesign.stream_sequence_numbers', '');
CREATE TRIGGER catalog_write_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON stdesign.streams
	FOR EACH STATEMENT EXECUTE FUNCTION stdesign.catalog_write_guard();
CREATE TRIGGER catalog_write_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON stdesign.stream_records
	FOR EACH STATEMENT EXECUTE FUNCTION stdesign.catalog_write_guard();
-- The records of a stream numbered above after_sequence, in order, at most
-- max, each as a row of its own (batch NULL) however it is stored.  Granted
-- to nobody: the SQL readers call it as the catalog's owner.
CREATE FUNCTION stdesign.stream_record_rows(stream_id bigint, after_sequence bigint DEFAULT 0,
		max integer DEFAULT 2147483647) RETURNS SETOF stdesign.stream_records
	AS 'MODULE_PATHNAME', 'st_stream_record_rows' LANGUAGE C STRICT VOLATILE;
REVOKE EXECUTE ON FUNCTION stdesign.stream_record_rows(bigint, bigint, integer) FROM PUBLIC;
-- The number of records of a batch (st_stream_stats, the trimming's count).
CREATE FUNCTION stdesign.stream_batch_records(batch bytea) RETURNS integer
	AS 'MODULE_PATHNAME', 'st_stream_batch_records' LANGUAGE C STRICT IMMUTABLE;
REVOKE EXECUTE ON FUNCTION stdesign.stream_batch_records(bytea) FROM PUBLIC;

-- The capture: an AFTER ROW trigger on the relation of a table with an
-- enabled stream (arguments: stream id, view type, key attribute names),
-- created and dropped by st_stream_enable and st_stream_disable as the
-- function's owner.  stdesign's direct writes record their changes
-- themselves (src/storage/row_write.c).
CREATE FUNCTION stdesign.stream_capture() RETURNS trigger
	AS 'MODULE_PATHNAME', 'st_stream_capture' LANGUAGE C;
REVOKE EXECUTE ON FUNCTION stdesign.stream_capture() FROM PUBLIC;

CREATE FUNCTION st_stream_enable(table_name text, view_type text DEFAULT 'NEW_AND_OLD_IMAGES') RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_stream_enable' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_stream_enable(text, text) IS
	'UpdateTable''s StreamSpecification {StreamEnabled: true}: a new stream of the table''s changes';
CREATE FUNCTION st_stream_disable(table_name text) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_stream_disable' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_stream_disable(text) IS
	'UpdateTable''s StreamSpecification {StreamEnabled: false}: the stream stops; its records stay readable';
CREATE FUNCTION st_stream_records(table_name text, after_sequence numeric DEFAULT 0,
								  max integer DEFAULT 1000) RETURNS SETOF jsonb
	AS 'MODULE_PATHNAME', 'st_stream_records' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_stream_records(text, numeric, integer) IS
	'the records of the table''s latest stream after a sequence number, in order, as GetRecords gives them';
-- A record's eventID (src/common/st_record_id.c): GetRecords computes it in
-- C, the SQL readers call this, so both print the same 32 digits.
CREATE FUNCTION stdesign.stream_event_id(stream_id bigint, sequence_number bigint) RETURNS text
	AS 'MODULE_PATHNAME', 'st_stream_event_id' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The shards of each stream (issue 30), as DynamoDB Streams' DescribeStream
-- lists them.  One shard per stream is open (streams.shard_id names it);
-- the first committing writer after stdesign.stream_shard_lifetime closes
-- it (ending_sequence: its last record's number, or starting_sequence when
-- it has none) and opens a child, under the stream's lock
-- (src/storage/stream_capture.c).  starting_sequence: a number taken from
-- stdesign.stream_sequence_numbers when the shard opened, below all of its
-- records.  trimmed_sequence: the highest number trimmed from the shard;
-- an iterator at or below it reads trimmed data (TrimmedDataAccessException).
-- A trimmer that deletes a shard's records sets it to the highest number it
-- deleted, then calls ops_stream_drop_trimmed_shards() (src/ops/stream_ops.c),
-- which deletes the closed shards that have no record left.
CREATE TABLE stdesign.stream_shards (
	stream_id bigint NOT NULL,
	shard_id text COLLATE "C" NOT NULL,
	parent_shard_id text COLLATE "C",
	created_at timestamptz NOT NULL,
	starting_sequence bigint NOT NULL,
	ending_sequence bigint,
	closed_at timestamptz,
	trimmed_sequence bigint,
	PRIMARY KEY (stream_id, shard_id)
);
-- The key of the shard iterators' HMAC (src/ops/stream_read.c): readable by
-- the catalog's owner only, made anew by each installation (not dumped:
-- an iterator lives 15 minutes).  gen_random_uuid() draws from the server's
-- strong random source.
CREATE TABLE stdesign.stream_iterator_key (
	key text NOT NULL
);
INSERT INTO stdesign.stream_iterator_key
	SELECT pg_catalog.gen_random_uuid()::pg_catalog.text OPERATOR(pg_catalog.||)
		   pg_catalog.gen_random_uuid()::pg_catalog.text;
REVOKE ALL ON stdesign.stream_shards, stdesign.stream_iterator_key FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('stdesign.stream_shards', '');
CREATE TRIGGER catalog_write_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON stdesign.stream_shards
	FOR EACH STATEMENT EXECUTE FUNCTION stdesign.catalog_write_guard();
CREATE TRIGGER catalog_write_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON stdesign.stream_iterator_key
	FOR EACH STATEMENT EXECUTE FUNCTION stdesign.catalog_write_guard();
-- Consumers in SQL (issue 30): a named checkpoint in a table's stream,
-- per role, that st_stream_read moves in the reader's own transaction
-- (src/ops/stream_consumers.c).  Granted to nobody, as the streams: read
-- and written as the catalog's owner for the role that calls.
CREATE TABLE stdesign.stream_consumers (
	role regrole NOT NULL,				-- its role (regrole: dumped by name)
	consumer_name text COLLATE "C" NOT NULL,
	table_name text COLLATE "C" NOT NULL,
	stream_id bigint NOT NULL,			-- the stream it reads
	position bigint NOT NULL,			-- the sequence number of the last record read
	created_at timestamptz NOT NULL,
	-- role's name at the creation: a consumer is role's while that role
	-- still has this name (not a new role's that got a dropped one's OID)
	role_name name NOT NULL,
	PRIMARY KEY (role, consumer_name)
);
REVOKE ALL ON stdesign.stream_consumers FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('stdesign.stream_consumers', '');
CREATE TRIGGER catalog_write_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON stdesign.stream_consumers
	FOR EACH STATEMENT EXECUTE FUNCTION stdesign.catalog_write_guard();

CREATE FUNCTION st_stream_consumer_create(consumer text, table_name text,
										  starting_position text DEFAULT 'TRIM_HORIZON') RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_stream_consumer_create' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_stream_consumer_create(text, text, text) IS
	'a named checkpoint of yours in the table''s stream, at TRIM_HORIZON or LATEST';
CREATE FUNCTION st_stream_consumer_drop(consumer text) RETURNS boolean
	AS 'MODULE_PATHNAME', 'st_stream_consumer_drop' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_stream_consumer_drop(text) IS
	'drop your consumer; false when you had none of the name';
CREATE FUNCTION st_stream_consumer_reset(consumer text, starting_position text DEFAULT 'TRIM_HORIZON') RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_stream_consumer_reset' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_stream_consumer_reset(text, text) IS
	'move your consumer to TRIM_HORIZON or LATEST of its table''s latest stream';
CREATE FUNCTION st_stream_read(consumer text, table_name text DEFAULT NULL, max integer DEFAULT 100)
	RETURNS SETOF jsonb
	AS 'MODULE_PATHNAME', 'st_stream_read' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_stream_read(text, text, integer) IS
	'the next records of your consumer, as GetRecords gives them; the consumer moves past them in this transaction';
CREATE FUNCTION st_stream_wait(consumer text, timeout double precision DEFAULT 10) RETURNS boolean
	AS 'MODULE_PATHNAME', 'st_stream_wait' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_stream_wait(text, double precision) IS
	'wait (at most timeout seconds) until your consumer has records to read; true when it has';
CREATE FUNCTION st_stream_stats(table_name text DEFAULT NULL)
	RETURNS TABLE (table_name text, stream_label text, stream_status text, records bigint,
				   bytes bigint, oldest timestamptz, newest timestamptz)
	AS 'MODULE_PATHNAME', 'st_stream_stats' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_stream_stats(text) IS
	'per stream of the tables you may read: its records, their bytes, the oldest and newest';
-- The retention's trim, now (the time-to-live worker runs it each round).
CREATE FUNCTION stdesign.stream_trim() RETURNS bigint
	AS 'MODULE_PATHNAME', 'st_stream_trim' LANGUAGE C VOLATILE;
REVOKE EXECUTE ON FUNCTION stdesign.stream_trim() FROM PUBLIC;
COMMENT ON FUNCTION stdesign.stream_trim() IS
	'delete the stream records past stdesign.stream_retention, remove the streams aged out and the dead letters past stdesign.stream_dead_letter_retention';
-- Event source mappings (issue 30): a SQL function of a role called by the
-- stream worker with each batch of a table's stream records, the batch and
-- the mapping's checkpoint committed together (src/ops/stream_mappings.c,
-- src/ttl/stream_worker.c).  Granted to nobody, as the consumers: read
-- and written as the catalog's owner for the role that calls, and by the
-- worker.  role_name is checked against role at every run, so that a role
-- dropped and another given its OID never runs the mapping.
CREATE TABLE stdesign.stream_mappings (
	uuid uuid PRIMARY KEY,
	role regrole NOT NULL,				-- the registering role, run as (regrole: dumped by name)
	role_name name NOT NULL,			-- its name then
	table_name text COLLATE "C" NOT NULL,
	stream_id bigint NOT NULL,			-- the stream it reads
	-- the function, called with one jsonb ({"Records": [...]}): its OID,
	-- its qualified name and its owner, which find it again after pg_upgrade
	-- or a restore (a regprocedure column would stop pg_upgrade)
	function oid NOT NULL,
	function_name text NOT NULL,
	function_owner regrole NOT NULL,
	batch_size integer NOT NULL,
	starting_position text NOT NULL,
	maximum_retry_attempts integer NOT NULL,	-- -1: retried until it succeeds
	dead_letter boolean NOT NULL,		-- a batch out of retries goes to stdesign.stream_dead_letters
	state text NOT NULL,				-- Enabled or Disabled
	state_transition_reason text NOT NULL,
	position bigint NOT NULL,			-- the sequence number of the last record processed
	retries integer NOT NULL,			-- failed attempts of the batch after position
	last_error text,
	last_error_at timestamptz,
	last_run timestamptz,
	last_processing_result text,
	created_at timestamptz NOT NULL,
	last_modified timestamptz NOT NULL
);
-- The batches a mapping's function failed on more than its retries allow
-- (its on-failure destination), readable by the mapping's role through
-- st_stream_dead_letters; removed by it (st_stream_dead_letter_delete),
-- with the mapping, or by the time-to-live worker once older than
-- stdesign.stream_dead_letter_retention.
CREATE TABLE stdesign.stream_dead_letters (
	mapping uuid NOT NULL,
	role regrole NOT NULL,
	table_name text COLLATE "C" NOT NULL,
	first_sequence bigint NOT NULL,
	last_sequence bigint NOT NULL,
	records jsonb NOT NULL,				-- the batch as the function was given it
	error text NOT NULL,				-- the last attempt's error
	attempts integer NOT NULL,
	failed_at timestamptz NOT NULL
);
CREATE INDEX ON stdesign.stream_dead_letters (mapping, first_sequence);
CREATE INDEX ON stdesign.stream_dead_letters (failed_at);
REVOKE ALL ON stdesign.stream_mappings, stdesign.stream_dead_letters FROM PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('stdesign.stream_mappings', '');
SELECT pg_catalog.pg_extension_config_dump('stdesign.stream_dead_letters', '');
CREATE TRIGGER catalog_write_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON stdesign.stream_mappings
	FOR EACH STATEMENT EXECUTE FUNCTION stdesign.catalog_write_guard();
CREATE TRIGGER catalog_write_guard BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON stdesign.stream_dead_letters
	FOR EACH STATEMENT EXECUTE FUNCTION stdesign.catalog_write_guard();

CREATE FUNCTION st_stream_mapping_create(table_name text, function regprocedure,
										 batch_size integer DEFAULT 100,
										 starting_position text DEFAULT 'LATEST',
										 maximum_retry_attempts integer DEFAULT -1,
										 dead_letter boolean DEFAULT true,
										 enabled boolean DEFAULT true) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_stream_mapping_create' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_stream_mapping_create(text, regprocedure, integer, text, integer, boolean, boolean) IS
	'call your function(jsonb) with each batch of the table''s stream, as you, in the background';
CREATE FUNCTION st_stream_mapping_update(mapping uuid, enabled boolean DEFAULT NULL,
										 batch_size integer DEFAULT NULL,
										 maximum_retry_attempts integer DEFAULT NULL,
										 dead_letter boolean DEFAULT NULL) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_stream_mapping_update' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_stream_mapping_update(uuid, boolean, integer, integer, boolean) IS
	'enable or disable your stream mapping, or change its batch size, retries or dead letters';
CREATE FUNCTION st_stream_mapping_drop(mapping uuid) RETURNS boolean
	AS 'MODULE_PATHNAME', 'st_stream_mapping_drop' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_stream_mapping_drop(uuid) IS
	'drop your stream mapping and its dead letters; false when you had none of the id';
CREATE FUNCTION st_stream_mappings()
	RETURNS TABLE (mapping uuid, table_name text, function regprocedure, batch_size integer,
				   starting_position text, maximum_retry_attempts integer, dead_letter boolean,
				   state text, state_transition_reason text, sequence_number bigint, retries integer,
				   last_error text, last_error_at timestamptz, last_run timestamptz,
				   last_processing_result text, created_at timestamptz, last_modified timestamptz)
	AS 'MODULE_PATHNAME', 'st_stream_mappings' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_stream_mappings() IS
	'your stream mappings: their settings, state, position, retries and last error';
CREATE FUNCTION st_stream_dead_letters(mapping uuid DEFAULT NULL)
	RETURNS TABLE (mapping uuid, table_name text, first_sequence bigint, last_sequence bigint,
				   records jsonb, error text, attempts integer, failed_at timestamptz)
	AS 'MODULE_PATHNAME', 'st_stream_dead_letters' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_stream_dead_letters(uuid) IS
	'the batches your stream mappings (or one) failed on past their retries';
CREATE FUNCTION st_stream_dead_letter_delete(mapping uuid, first_sequence bigint) RETURNS boolean
	AS 'MODULE_PATHNAME', 'st_stream_dead_letter_delete' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_stream_dead_letter_delete(uuid, bigint) IS
	'remove a dead letter of your stream mapping (once handled); false when you had none such';

-- Multi-attribute keys of GSIs: st_query_index ----------------------------------
-- (docs/sql.md, "Multi-attribute GSI keys".)  st_query for a key of several
-- attributes: every partition-key value, then sort-key values from the first.
CREATE FUNCTION st_query_index("table" text, index text, pk_values jsonb, sk_values jsonb DEFAULT NULL,
							   sk_prefix jsonb DEFAULT NULL, sk_from jsonb DEFAULT NULL, sk_to jsonb DEFAULT NULL,
							   forward boolean DEFAULT true, "limit" integer DEFAULT NULL,
							   filter text DEFAULT NULL, names jsonb DEFAULT NULL, "values" jsonb DEFAULT NULL,
							   projection text DEFAULT NULL, typed boolean DEFAULT false) RETURNS SETOF jsonb
	AS 'MODULE_PATHNAME', 'st_query_index' LANGUAGE C STABLE;
COMMENT ON FUNCTION st_query_index(text, text, jsonb, jsonb, jsonb, jsonb, jsonb, boolean, integer, text, jsonb, jsonb, text, boolean) IS
	'Query by a key of several attributes (a multi-attribute GSI key; any index, or the table with index NULL): every partition-key value, sort-key values from the first, optionally a prefix or range on the next';
