/* stdesign--0.1.0--0.2.0.sql: upgrade from 0.1.0 to 0.2.0 */

\echo Use "ALTER EXTENSION stdesign UPDATE TO '0.2.0'" to load this file. \quit

-- Every change to the extension's SQL objects between 0.1.0 and 0.2.0, in
-- the order it was made; sql/stdesign.sql holds the same objects as a fresh
-- install creates them.

-- TableId --------------------------------------------------------------------

-- TableDescription.TableId: a UUID kept for the table's life; tables created
-- before the upgrade get one now.
ALTER TABLE stdesign.tables ADD COLUMN table_id uuid NOT NULL DEFAULT gen_random_uuid();
