\set d random(1, :deletable)
DELETE FROM hand WHERE pk = 'DEL#' || :d AND sk = 'X';
