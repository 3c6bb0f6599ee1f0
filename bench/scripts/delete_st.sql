\set d random(1, :deletable)
SELECT st_delete('DEL#' || :d, 'X', 'Bench');
