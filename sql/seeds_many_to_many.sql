-- The seeds' many-to-many relationship (single-table-design-patterns): an
-- adjacency list of students and courses, each enrollment stored twice
-- (STUDENT#/COURSE# and COURSE#/STUDENT#) and written atomically by one
-- TransactWriteItems, then queried in both directions.

SELECT st_create_table('{
  "TableName": "ECommerceTable",
  "AttributeDefinitions": [
    {"AttributeName": "PK", "AttributeType": "S"},
    {"AttributeName": "SK", "AttributeType": "S"}
  ],
  "KeySchema": [
    {"AttributeName": "PK", "KeyType": "HASH"},
    {"AttributeName": "SK", "KeyType": "RANGE"}
  ],
  "BillingMode": "PAY_PER_REQUEST"
}') ->> 'TableName' AS created;

-- The guide's TransactItems, exactly: enroll STUDENT#42 in COURSE#CS101.
SELECT st_transact('[
  {
    "Put": {
      "TableName": "ECommerceTable",
      "Item": {
        "PK": {"S": "STUDENT#42"},
        "SK": {"S": "COURSE#CS101"},
        "entity_type": {"S": "Enrollment"}
      }
    }
  },
  {
    "Put": {
      "TableName": "ECommerceTable",
      "Item": {
        "PK": {"S": "COURSE#CS101"},
        "SK": {"S": "STUDENT#42"},
        "entity_type": {"S": "Enrollment"}
      }
    }
  }
]');

-- More enrollments, in the guide's enroll_student shape (names and a date on
-- both copies), plain JSON this time; each refuses to enroll twice.
CREATE FUNCTION enroll(student text, course text, student_name text, course_name text,
                       enrolled_at text) RETURNS jsonb LANGUAGE sql AS $$
  SELECT st_transact(jsonb_build_array(
    jsonb_build_object('Put', jsonb_build_object(
      'TableName', 'ECommerceTable',
      'Item', jsonb_build_object('PK', 'STUDENT#' || student, 'SK', 'COURSE#' || course,
                                 'entity_type', 'Enrollment', 'student_name', student_name,
                                 'course_name', course_name, 'enrolled_at', enrolled_at),
      'ConditionExpression', 'attribute_not_exists(PK)')),
    jsonb_build_object('Put', jsonb_build_object(
      'TableName', 'ECommerceTable',
      'Item', jsonb_build_object('PK', 'COURSE#' || course, 'SK', 'STUDENT#' || student,
                                 'entity_type', 'Enrollment', 'student_name', student_name,
                                 'course_name', course_name, 'enrolled_at', enrolled_at),
      'ConditionExpression', 'attribute_not_exists(PK)'))), plain => true)
$$;
SELECT enroll('42', 'MATH200', 'Ada', 'Linear Algebra', '2026-01-10T09:00:00');
SELECT enroll('7', 'CS101', 'Grace', 'Intro to CS', '2026-01-11T10:00:00');
SELECT enroll('7', 'PHYS110', 'Grace', 'Mechanics', '2026-01-11T10:05:00');
SELECT enroll('99', 'CS101', 'Linus', 'Intro to CS', '2026-01-12T08:30:00');
-- Enrolling twice is cancelled, and neither copy changes.
\set VERBOSITY terse
SELECT enroll('7', 'CS101', 'Grace', 'Intro to CS', '2026-02-01T00:00:00');
\set VERBOSITY default
SELECT st_get('COURSE#CS101', 'STUDENT#7') ->> 'enrolled_at' AS enrolled_at;

-- All courses for a student: Query(PK=STUDENT#42, begins_with(SK, "COURSE#")).
SELECT item ->> 'SK' AS course, item ->> 'entity_type' AS entity_type, item ->> 'course_name' AS course_name
  FROM st_query('STUDENT#42', 'COURSE#') AS item;
SELECT item ->> 'SK' AS course FROM st_query('STUDENT#7', 'COURSE#') AS item;
-- All students in a course: Query(PK=COURSE#CS101, begins_with(SK, "STUDENT#")).
SELECT item ->> 'SK' AS student, item ->> 'student_name' AS student_name
  FROM st_query('COURSE#CS101', 'STUDENT#') AS item;
SELECT item ->> 'SK' AS student FROM st_query('COURSE#PHYS110', 'STUDENT#') AS item;

-- Every enrollment is there in both directions.
SELECT count(*) AS one_way_only
  FROM stdesign_data."ECommerceTable" a
 WHERE a.pk LIKE 'STUDENT#%' AND a.sk LIKE 'COURSE#%'
   AND NOT EXISTS (SELECT FROM stdesign_data."ECommerceTable" b WHERE b.pk = a.sk AND b.sk = a.pk)
    OR a.pk LIKE 'COURSE#%' AND a.sk LIKE 'STUDENT#%'
   AND NOT EXISTS (SELECT FROM stdesign_data."ECommerceTable" b WHERE b.pk = a.sk AND b.sk = a.pk);
SELECT count(*) AS enrollment_items FROM stdesign_data."ECommerceTable";

DROP FUNCTION enroll(text, text, text, text, text);
SELECT st_drop_table('ECommerceTable');
