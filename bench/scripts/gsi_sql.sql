\set g random(0, 499)
SELECT item FROM hand
 WHERE ((item -> 'GSI1PK') ->> 'S') COLLATE "C" = 'STATUS#pending#' || :g AND item ? 'GSI1PK' AND item ? 'GSI1SK'
 ORDER BY ((item -> 'GSI1SK') ->> 'S') COLLATE "C" LIMIT 20;
