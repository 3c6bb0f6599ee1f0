\set n random(1, 1000000000000000)
SELECT st_api('ExecuteStatement', jsonb_build_object('Statement',
              'INSERT INTO "Bench" VALUE {''PK'': ?, ''SK'': ''ITEM'', ''v'': ?, ''entity_type'': ''New''}',
              'Parameters', jsonb_build_array(jsonb_build_object('S', 'NEW#' || :n), jsonb_build_object('N', :n::text))));
