-- How stdesign raises errors: DynamoDB's exception in the message and its
-- SQLSTATE, stdesign's own advice in the HINT (not in the message), and
-- Postgres's own errors where a stdesign trigger function is misused, as
-- Postgres's own trigger functions report it.

-- (What cannot happen, InternalServerError with a hint to report it, is
-- tested in test/unit/test_error.c: no statement reaches it.)

-- SQLSTATE, message and hint of what a statement raises.
CREATE FUNCTION pg_temp.raised(statement text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	state text;
	message text;
	hint text;
BEGIN
	EXECUTE statement;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
	RETURN state || ': ' || message || coalesce(E'\nHINT: ' || nullif(hint, ''), '');
END $$;

-- Advice goes to the HINT: a CloudFormation template with two tables.
SELECT pg_temp.raised($$SELECT st_create_table('{"Resources": {
  "A": {"Type": "AWS::DynamoDB::Table", "Properties": {"TableName": "ErrA"}},
  "B": {"Type": "AWS::DynamoDB::Table", "Properties": {"TableName": "ErrB"}}}}')$$);
-- and nothing was created
SELECT count(*) FROM stdesign.tables WHERE table_name IN ('ErrA', 'ErrB');

-- No table named, no default, and not exactly one table.
SELECT st_create_table('ErrOne', 'PK', 'SK') ->> 'TableStatus';
SELECT st_create_table('ErrTwo', 'PK', 'SK') ->> 'TableStatus';
SET stdesign.default_table = '';
SELECT pg_temp.raised($$SELECT st_get('a', 'b')$$);
RESET stdesign.default_table;

-- A sort-key condition given twice over: the message says what is wrong,
-- the hint how to say it.
SELECT pg_temp.raised($$SELECT * FROM st_query('a', sk_prefix => 'x', "table" => 'ErrOne', sk_from => 'y')$$);

-- A missing member: DynamoDB's message, the path of the member in it.
SELECT pg_temp.raised($$SELECT st_put(NULL, 'ErrOne')$$);
SELECT pg_temp.raised($$SELECT st_transact(NULL)$$);
SELECT pg_temp.raised($$SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Put": {"Item": {"PK": {"S": "a"}, "SK": {"S": "b"}}}}]}')$$);

-- The key trigger only works BEFORE ... FOR EACH ROW, with the key names and types.
-- (The layout guard refuses it on a relation of no table, see
-- security_crash; a superuser can disable the guard, and the function
-- itself still refuses to run outside that protocol.)
ALTER EVENT TRIGGER stdesign_layout_ddl DISABLE;
CREATE TABLE errors_rows (pk text, sk text, item jsonb);
CREATE TRIGGER keys_after AFTER INSERT ON errors_rows
	FOR EACH ROW EXECUTE FUNCTION stdesign.set_keys('PK', 'S');
SELECT pg_temp.raised($$INSERT INTO errors_rows VALUES (NULL, NULL, '{"PK": {"S": "a"}}')$$);
DROP TRIGGER keys_after ON errors_rows;
CREATE TRIGGER keys_args BEFORE INSERT ON errors_rows
	FOR EACH ROW EXECUTE FUNCTION stdesign.set_keys('PK');
SELECT pg_temp.raised($$INSERT INTO errors_rows VALUES (NULL, NULL, '{"PK": {"S": "a"}}')$$);
DROP TABLE errors_rows;
ALTER EVENT TRIGGER stdesign_layout_ddl ENABLE;

SELECT st_drop_table('ErrOne');
SELECT st_drop_table('ErrTwo');
