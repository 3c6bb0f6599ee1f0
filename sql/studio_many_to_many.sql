-- Design studio: the adjacency list (many-to-many) of the seeds: an
-- enrollment is written twice, under the student and under the course,
-- atomically, and read from both sides.  Both items are of type
-- "Enrollment"; the model tells them apart by their keys.
SELECT st_create_table('{
  "TableName": "SchoolTable",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                           {"AttributeName": "SK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "BillingMode": "PAY_PER_REQUEST"}') ->> 'TableName' AS created;
SELECT st_set_model('SchoolTable', '{
  "entities": {
    "Student": {"keys": {"PK": "STUDENT#{student_id}", "SK": "PROFILE"},
                "attributes": {"student_id": "S", "student_name": "S"}, "required": ["student_name"]},
    "Course": {"keys": {"PK": "COURSE#{course_id}", "SK": "PROFILE"},
               "attributes": {"course_id": "S", "course_name": "S"}},
    "Enrollment": {"type": "Enrollment", "keys": {"PK": "STUDENT#{student_id}", "SK": "COURSE#{course_id}"},
                   "attributes": {"student_id": "S", "course_id": "S", "student_name": "S",
                                  "course_name": "S", "enrolled_at": "S"}},
    "EnrollmentByCourse": {"type": "Enrollment", "keys": {"PK": "COURSE#{course_id}", "SK": "STUDENT#{student_id}"},
                           "attributes": {"student_id": "S", "course_id": "S", "student_name": "S",
                                          "course_name": "S", "enrolled_at": "S"}}
  },
  "patterns": {
    "courses_of_student": {"op": "Query", "pk": "STUDENT#{student_id}", "sk": {"begins_with": "COURSE#"}, "rate": 20},
    "students_of_course": {"op": "Query", "pk": "COURSE#{course_id}", "sk": {"begins_with": "STUDENT#"}, "rate": 10},
    "student": {"op": "GetItem", "pk": "STUDENT#{student_id}", "sk": "PROFILE", "rate": 5},
    "enroll": {"op": "PutItem", "entity": "Enrollment", "rate": 1},
    "enroll_by_course": {"op": "PutItem", "entity": "EnrollmentByCourse", "rate": 1}
  }
}') IS NOT NULL AS stored;

-- both sides in one transaction: all or nothing
CREATE FUNCTION enroll(student text, course text, student_name text, course_name text, enrolled_at text)
RETURNS text LANGUAGE sql AS $$
  SELECT (st_put_entity('Enrollment', a, 'SchoolTable') ->> 'SK') || ' / ' ||
         (st_put_entity('EnrollmentByCourse', a, 'SchoolTable') ->> 'SK')
    FROM (SELECT jsonb_build_object('student_id', student, 'course_id', course, 'student_name', student_name,
                                    'course_name', course_name, 'enrolled_at', enrolled_at) AS a) AS x
$$;
SELECT st_put_entity('Student', '{"student_id": "42", "student_name": "Ada"}', 'SchoolTable') ->> 'SK' AS sk;
SELECT st_put_entity('Course', '{"course_id": "CS101", "course_name": "Intro to CS"}', 'SchoolTable') ->> 'PK' AS pk;
SELECT enroll('42', 'CS101', 'Ada', 'Intro to CS', '2026-01-09T09:00:00');
SELECT enroll('42', 'MATH200', 'Ada', 'Linear Algebra', '2026-01-10T09:00:00');
SELECT enroll('7', 'CS101', 'Grace', 'Intro to CS', '2026-01-11T10:00:00');
SELECT enroll('99', 'CS101', 'Linus', 'Intro to CS', '2026-01-12T08:30:00');
-- a failed second write leaves no first one
\set VERBOSITY terse
SELECT st_put_entity('Enrollment', '{"student_id": "5", "course_id": "X1"}', 'SchoolTable') IS NOT NULL
   AND st_put_entity('EnrollmentByCourse', '{"student_id": "5", "course_id": "X1", "enrolled_at": 5}', 'SchoolTable') IS NOT NULL;
\set VERBOSITY default
SELECT count(*) AS half_enrollments FROM st_query('STUDENT#5', 'COURSE#', 'SchoolTable');

SELECT i ->> 'SK' AS course, i ->> 'course_name' AS name
  FROM st_run_pattern('courses_of_student', '{"student_id": "42"}', 'SchoolTable') AS i;
SELECT i ->> 'SK' AS student, i ->> 'student_name' AS name
  FROM st_run_pattern('students_of_course', '{"course_id": "CS101"}', 'SchoolTable') AS i;
SELECT i ->> 'PK' AS pk, i ->> 'SK' AS sk, st_entity_of(i, 'SchoolTable') AS entity
  FROM st_scan('SchoolTable') AS i ORDER BY 1, 2;

SELECT kind, name, operation, entities, read_per_call, returned_per_call, ok, findings FROM st_check_model('SchoolTable');
SELECT pattern, calls_per_second, read_units, write_units, on_demand_monthly, provisioned_monthly
  FROM st_model_cost('SchoolTable');

DROP FUNCTION enroll(text, text, text, text, text);
SELECT st_drop_table('SchoolTable');
