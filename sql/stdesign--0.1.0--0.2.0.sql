/* stdesign--0.1.0--0.2.0.sql: upgrade from 0.1.0 to 0.2.0 */

\echo Use "ALTER EXTENSION stdesign UPDATE TO '0.2.0'" to load this file. \quit

-- Every change to the extension's SQL objects between 0.1.0 and 0.2.0, in
-- the order it was made; sql/stdesign.sql holds the same objects as a fresh
-- install creates them.

-- TableId --------------------------------------------------------------------

-- TableDescription.TableId: a UUID kept for the table's life; tables created
-- before the upgrade get one now.
ALTER TABLE stdesign.tables ADD COLUMN table_id uuid NOT NULL DEFAULT gen_random_uuid();

-- NUL in requests ---------------------------------------------------------------

-- st_api with the request as JSON text (what a string literal picks): a
-- request holding \u0000, which jsonb cannot store, is refused with a
-- ValidationException instead of jsonb's input error.
CREATE FUNCTION st_api(operation text, request text) RETURNS jsonb
	AS 'MODULE_PATHNAME', 'st_api_text' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION st_api(text, text) IS
	'A DynamoDB operation with its exact JSON request as text; returns DynamoDB''s JSON response';
