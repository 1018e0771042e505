-- The history index: a full-text index (FTS5) of what every session's
-- parts say, for the recall tool and `agent sessions search`. Its rowid is
-- the part's rowid in parts. It is contentless (the text stays in parts
-- and in the saved outputs, never twice) and keeps no positions
-- (detail=none): the index stays a small fraction of the database, and
-- phrases are checked against the text itself (see search.go).
CREATE VIRTUAL TABLE history_fts USING fts5(
    body,
    content = '',
    contentless_delete = 1,
    detail = none,
    tokenize = 'unicode61 remove_diacritics 2'
);

-- A deleted part (its session deleted) leaves the index with it.
CREATE TRIGGER parts_unindex AFTER DELETE ON parts BEGIN
    DELETE FROM history_fts WHERE rowid = old.rowid;
END;

-- Index what databases already hold, as the write path does (indexText in
-- search.go): finished text and reasoning; finished tool calls' name, input
-- and output. Saved full outputs of older calls are not read here.
INSERT INTO history_fts (rowid, body)
SELECT rowid, CASE type
        WHEN 'tool' THEN concat_ws(char(10),
            json_extract(state, '$.tool.name'),
            json_extract(state, '$.tool.input'),
            coalesce(nullif(json_extract(state, '$.tool.raw_output'), ''), json_extract(state, '$.tool.output')))
        ELSE json_extract(state, '$.text') END
FROM parts p
WHERE (type IN ('text', 'reasoning') AND coalesce(json_extract(state, '$.text'), '') <> ''
       AND NOT EXISTS (SELECT 1 FROM part_deltas d WHERE d.part_id = p.id))
   OR (type = 'tool' AND json_extract(state, '$.tool.status') IN ('completed', 'error'));
