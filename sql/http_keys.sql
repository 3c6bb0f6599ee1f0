-- The HTTP endpoint's access keys and status, from SQL (the endpoint itself
-- is tested by test/scripts/http_tests.sh with the workers running).

CREATE ROLE http_keys_app;
CREATE ROLE http_keys_other;

-- A key: an alphanumeric id and a 40-character secret, returned once.
SELECT access_key_id ~ '^STDK[A-Z0-9]{16}$' AS id_ok,
       secret_access_key ~ '^[A-Za-z0-9]{40}$' AS secret_ok
  FROM st_create_access_key('http_keys_app');
SELECT a.access_key_id <> b.access_key_id AS ids_differ,
       a.secret_access_key <> b.secret_access_key AS secrets_differ
  FROM st_create_access_key('http_keys_app') AS a, st_create_access_key('http_keys_app') AS b;

-- Listed without secrets.
SELECT role, enabled, count(*) FROM st_list_access_keys() GROUP BY role, enabled;
SELECT proargnames FROM pg_proc WHERE proname = 'st_list_access_keys';

-- A role that does not exist.
SELECT * FROM st_create_access_key('no_such_role');

-- Disabled, then dropped.
SELECT st_disable_access_key(min(access_key_id)) FROM st_list_access_keys();
SELECT enabled, count(*) FROM st_list_access_keys() GROUP BY enabled ORDER BY enabled;
SELECT st_drop_access_key(min(access_key_id)) FROM st_list_access_keys() WHERE NOT enabled;
SELECT count(*) FROM st_list_access_keys();
SELECT st_disable_access_key('STDKNOSUCHKEY0000000');
SELECT st_drop_access_key('STDKNOSUCHKEY0000000');
SELECT st_drop_access_key(NULL);

-- A key is bound to its role's OID: after DROP ROLE, a role created under
-- the same name does not inherit it; a renamed role's key is refused too.
DELETE FROM stdesign.access_keys;
CREATE ROLE http_keys_gone;
CREATE ROLE http_keys_renamed;
SELECT count(*) FROM st_create_access_key('http_keys_gone');
SELECT count(*) FROM st_create_access_key('http_keys_renamed');
SELECT count(*) FROM st_create_access_key('http_keys_app');
SELECT k.role_name, k.role_oid = r.oid AS oid_kept
  FROM stdesign.access_keys k JOIN pg_roles r ON r.rolname = k.role_name ORDER BY 1;
SELECT role, enabled FROM st_list_access_keys() ORDER BY role;
DROP ROLE http_keys_gone;
CREATE ROLE http_keys_gone;
ALTER ROLE http_keys_renamed RENAME TO http_keys_renamed2;
SELECT role, enabled FROM st_list_access_keys() ORDER BY role;
-- (renamed back, the same role with the same name: its key serves again)
ALTER ROLE http_keys_renamed2 RENAME TO http_keys_renamed;
SELECT role, enabled FROM st_list_access_keys() ORDER BY role;
DELETE FROM stdesign.access_keys;
DROP ROLE http_keys_gone;
DROP ROLE http_keys_renamed;

-- Only superusers: the functions and the table (even with the schema usable).
GRANT USAGE ON SCHEMA stdesign TO http_keys_other;
SET ROLE http_keys_other;
SELECT * FROM st_create_access_key('http_keys_other');
SELECT * FROM st_list_access_keys();
SELECT st_drop_access_key('x');
SELECT count(*) FROM stdesign.access_keys;
RESET ROLE;

-- Without shared_preload_libraries there are no workers to show.
SELECT count(*) FROM stdesign.http_status();
-- The CPU time columns (stdesign.http_track_timing), last.
SELECT requests_timed, request_cpu_us, auth_cpu_us FROM stdesign.http_status();
SELECT pg_get_function_result('stdesign.http_status()'::regprocedure);
-- The setting: a boolean, changed by reload.
ALTER SYSTEM SET stdesign.http_track_timing = 'maybe';
SET stdesign.http_track_timing = on;
SHOW stdesign.http_track_timing;

REVOKE USAGE ON SCHEMA stdesign FROM http_keys_other;
DELETE FROM stdesign.access_keys;
DROP ROLE http_keys_app;
DROP ROLE http_keys_other;
