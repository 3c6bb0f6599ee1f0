-- Expressions as DynamoDB validates and evaluates them: operand types of
-- :values refused for the request before any item is read (while the same
-- type from the stored item only makes a condition false); attribute_type's
-- path; a key condition with the value on the left; which functions go
-- where in an UpdateExpression; limits by operators, not depth; list
-- indexes; parentheses around operands; size() of a string.

SELECT st_api('CreateTable', '{"TableName": "Expr", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]}')
  #>> '{TableDescription,TableName}' AS created;
SET stdesign.default_table = 'Expr';
-- The error of a request, or 'ok'.
CREATE FUNCTION api_err(op text, req jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM st_api(op, req);
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLERRM;
END $$;
SELECT st_put('{"PK": "p", "SK": "1", "n": 5, "s": "abc", "t": true, "z": null, "l": [1, 2, 3],
                "m": {"a": 1}, "ss": ["x"], "u": "é𝄞"}');

-- A :value whose type the operator cannot take: a ValidationException for
-- the request.  A Query whose filter is invalid fails even when it reads no
-- item; a condition on a missing item fails validation, not the check.
SELECT f, v, api_err('Query', jsonb_build_object('TableName', 'Expr',
  'KeyConditionExpression', 'PK = :p', 'FilterExpression', f,
  'ExpressionAttributeValues', jsonb_build_object(':p', '{"S": "no such partition"}'::jsonb, ':v', v))) AS error
  FROM (VALUES ('n < :v', '{"M": {}}'::jsonb), ('n <= :v', '{"L": []}'), ('n > :v', '{"SS": ["a"]}'),
               ('n >= :v', '{"BOOL": true}'), ('n < :v', '{"NULL": true}'), ('n > :v', '{"NS": ["1"]}'),
               ('n BETWEEN :v AND :p', '{"BS": ["AA=="]}'), ('size(:v) > n', '{"N": "1"}'),
               ('size(:v) > n', '{"BOOL": false}'), ('begins_with(s, :v)', '{"N": "1"}'),
               ('begins_with(:v, s)', '{"L": []}'), ('contains(:v, s)', '{"N": "1"}'),
               ('contains(:v, s)', '{"M": {}}'), ('attribute_type(s, :v)', '{"N": "1"}'),
               ('attribute_type(s, :v)', '{"S": "STRING"}')) AS d(f, v);
SELECT st_api('Query', '{"TableName": "Expr", "KeyConditionExpression": "PK = :p",
  "FilterExpression": "n BETWEEN :lo AND :hi",
  "ExpressionAttributeValues": {":p": {"S": "p"}, ":lo": {"N": "1"}, ":hi": {"S": "z"}}}');
SELECT st_api('Query', '{"TableName": "Expr", "KeyConditionExpression": "PK = :p",
  "FilterExpression": "size(size(s)) > :n", "ExpressionAttributeValues": {":p": {"S": "p"}, ":n": {"N": "1"}}}');
SELECT st_api('Query', '{"TableName": "Expr", "KeyConditionExpression": "PK = :p",
  "FilterExpression": "begins_with(s, size(s))", "ExpressionAttributeValues": {":p": {"S": "p"}}}');
SELECT st_api('PutItem', '{"TableName": "Expr", "Item": {"PK": {"S": "missing"}, "SK": {"S": "1"}},
  "ConditionExpression": "n > :m", "ExpressionAttributeValues": {":m": {"M": {"a": {"N": "1"}}}}}');
SELECT st_get('missing', '1') AS not_written;
-- attribute_type's first operand must be a document path.
SELECT st_api('Scan', '{"TableName": "Expr", "FilterExpression": "attribute_type(:v, :t)",
  "ExpressionAttributeValues": {":v": {"S": "S"}, ":t": {"S": "S"}}}');

-- The same types from the stored item: the condition is only false.
SELECT f, st_api('Query', jsonb_build_object('TableName', 'Expr', 'Select', 'COUNT',
  'KeyConditionExpression', 'PK = :p', 'FilterExpression', f,
  'ExpressionAttributeValues', jsonb_build_object(':p', '{"S": "p"}'::jsonb, ':v', v))) -> 'Count' AS count
  FROM (VALUES ('m < :v', '{"N": "1"}'::jsonb), ('t >= :v', '{"S": "a"}'), ('z <= :v', '{"S": "a"}'),
               ('l BETWEEN :v AND :v', '{"N": "1"}'), ('size(t) > :v', '{"N": "0"}'),
               ('begins_with(n, :v)', '{"S": "5"}'), ('contains(t, :v)', '{"S": "x"}'),
               ('contains(m, :v)', '{"S": "a"}'), ('n < :v', '{"N": "6"}'),
               ('contains(l, :v)', '{"N": "2"}'), ('contains(ss, :v)', '{"S": "x"}')) AS d(f, v);

-- size() of a string counts UTF-16 code units: "é𝄞" is 3 (é is one, 𝄞 two).
SELECT st_api('Query', '{"TableName": "Expr", "Select": "COUNT", "KeyConditionExpression": "PK = :p",
  "FilterExpression": "size(u) = :three AND size(s) = :abc",
  "ExpressionAttributeValues": {":p": {"S": "p"}, ":three": {"N": "3"}, ":abc": {"N": "3"}}}') -> 'Count' AS size_3;

-- KeyConditionExpression with the value on the left: ":v < SK" is "SK > :v".
SELECT st_put(jsonb_build_object('PK', 'k', 'SK', i::text)) FROM generate_series(1, 5) AS i;
SELECT st_api('Query', '{"TableName": "Expr", "KeyConditionExpression": ":p = PK AND :s < SK",
  "ExpressionAttributeValues": {":p": {"S": "k"}, ":s": {"S": "3"}}}') -> 'Items' AS sk_after_3;
SELECT st_api('Query', '{"TableName": "Expr", "KeyConditionExpression": ":p = PK AND :s >= SK",
  "ExpressionAttributeValues": {":p": {"S": "k"}, ":s": {"S": "2"}}}') -> 'Count' AS sk_up_to_2;
SELECT st_api('Query', '{"TableName": "Expr", "KeyConditionExpression": "PK = :p AND begins_with(:s, SK)",
  "ExpressionAttributeValues": {":p": {"S": "k"}, ":s": {"S": "2"}}}');

-- UpdateExpression: if_not_exists and list_append nest in each other.
SELECT st_update('p', '2', 'SET a = if_not_exists(a, if_not_exists(b, :v)), l = list_append(if_not_exists(l, :e), :l)',
                 "values" => '{":v": 7, ":e": [], ":l": [1]}');
SELECT st_update('p', '2', 'SET l = list_append(:l, if_not_exists(l, :e)), c = if_not_exists(c, :v) + :v',
                 "values" => '{":v": 7, ":e": [], ":l": [0]}');
SELECT st_update('p', '2', 'SET a = if_not_exists(a, size(l))');
SELECT st_update('p', '2', 'SET a = contains(l, :v)', "values" => '{":v": 1}');
SELECT st_update('p', '2', 'SET a = list_prepend(l, :v)', "values" => '{":v": [1]}');
SELECT st_update('p', '2', 'SET a = if_not_exists(if_not_exists(a, b), :v)', "values" => '{":v": 1}');
SELECT st_update('p', '2', 'SET a = :v', condition => 'a = if_not_exists(a, :v)', "values" => '{":v": 1}');
SELECT st_update('p', '2', 'SET #a = :v', names => '{"#a-b": "a"}', "values" => '{":v": 1}');
SELECT st_update('p', '2', 'SET #a = :v', names => '{"#": "a"}', "values" => '{":v": 1}');

-- Parentheses: one pair around each operand of SET arithmetic and one
-- around the whole value; in a condition, around an operand.
SELECT st_update('p', '3', 'SET b = :b, c = :c', "values" => '{":b": {"a": 2}, ":c": [0, 40]}', return_values => 'NONE');
SELECT st_update('p', '3', 'SET b.c = ((c[1]) + (b.a))', return_values => 'UPDATED_NEW');
SELECT st_update('p', '3', 'SET d = (c[1]) - (b.a), e = (:v)', "values" => '{":v": 1}', return_values => 'UPDATED_NEW');
SELECT st_update('p', '3', 'SET d = (((c[1])))');
SELECT st_update('p', '3', 'SET d = (b.c).d + :v', "values" => '{":v": 1}');
SELECT st_api('Query', '{"TableName": "Expr", "Select": "COUNT", "KeyConditionExpression": "PK = :p",
  "FilterExpression": "(b.a) BETWEEN (:lo) AND (:hi) AND ((b.c) = :v)",
  "ExpressionAttributeValues": {":p": {"S": "p"}, ":lo": {"N": "1"}, ":hi": {"N": "3"}, ":v": {"N": "42"}}}') -> 'Count' AS parenthesised;
SELECT st_api('Scan', '{"TableName": "Expr", "FilterExpression": "((b)) = :v", "ExpressionAttributeValues": {":v": {"N": "1"}}}');

-- Limits: 300 operators (and 4 KB), not a nesting depth.  149 nested
-- parenthesised ORs (299 operators) are valid; 150 are not.
SELECT st_api('Query', jsonb_build_object('TableName', 'Expr', 'Select', 'COUNT',
  'KeyConditionExpression', 'PK = :p',
  'FilterExpression', repeat('(n = :v OR ', 149) || 'n = :five' || repeat(')', 149),
  'ExpressionAttributeValues', '{":p": {"S": "p"}, ":v": {"N": "0"}, ":five": {"N": "5"}}'::jsonb)) -> 'Count' AS nested_149;
SELECT st_api('Query', jsonb_build_object('TableName', 'Expr', 'Select', 'COUNT',
  'KeyConditionExpression', 'PK = :p',
  'FilterExpression', repeat('(n = :v OR ', 150) || 'n = :five' || repeat(')', 150),
  'ExpressionAttributeValues', '{":p": {"S": "p"}, ":v": {"N": "0"}, ":five": {"N": "5"}}'::jsonb));
SELECT st_update('p', '4', 'SET a = ' || repeat('if_not_exists(a,', 150) || ':v' || repeat(')', 150),
                 "values" => '{":v": 1}');
SELECT st_update('p', '4', 'SET a = :v', condition => repeat('NOT ', 298) || 'attribute_exists(a)',
                 "values" => '{":v": 2}', return_values => 'UPDATED_NEW');

-- Document paths: SET past the end of a list appends; an index beyond a
-- 32-bit integer is refused, naming it, in every kind of expression.
SELECT st_update('p', '5', 'SET l = :l', "values" => '{":l": ["a", "b", "c"]}', return_values => 'NONE');
SELECT st_update('p', '5', 'SET l[99] = :v', "values" => '{":v": "d"}');
SELECT st_update('p', '5', 'SET l[2147483648] = :v', "values" => '{":v": "e"}');
SELECT st_get('p', '5', projection => 'l[99999999999999999999]');
SELECT st_get('p', '5', projection => 'l[2147483647], l[3]');
SELECT st_api('Query', '{"TableName": "Expr", "KeyConditionExpression": "PK = :p",
  "FilterExpression": "l[4294967296] = :v", "ExpressionAttributeValues": {":p": {"S": "p"}, ":v": {"S": "a"}}}');

SELECT st_drop_table('Expr');
DROP FUNCTION api_err(text, jsonb);
