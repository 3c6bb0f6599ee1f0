-- Both tables emptied, and no dirty pages left to the next load (included by load.sql).
TRUNCATE hand;
TRUNCATE stdesign_data."Bench";
CHECKPOINT;
