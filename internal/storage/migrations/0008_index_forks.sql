-- 0007: forks are searchable (issue 27). Before this, a fork's copied
-- history was written without index rows, so `agent sessions search` and
-- recall inside the fork found nothing from before the fork point. Index
-- every finished part the index lacks, as 0003 did for the databases of
-- its day (indexText in search.go; saved full outputs are not read here).
-- A part already indexed is left alone: an FTS5 insert of a rowid it holds
-- would index it twice.
INSERT INTO history_fts (rowid, body)
SELECT rowid, CASE type
        WHEN 'tool' THEN concat_ws(char(10),
            json_extract(state, '$.tool.name'),
            json_extract(state, '$.tool.input'),
            coalesce(nullif(json_extract(state, '$.tool.raw_output'), ''), json_extract(state, '$.tool.output')))
        ELSE json_extract(state, '$.text') END
FROM parts p
WHERE ((type IN ('text', 'reasoning') AND coalesce(json_extract(state, '$.text'), '') <> ''
        AND NOT EXISTS (SELECT 1 FROM part_deltas d WHERE d.part_id = p.id))
    OR (type = 'tool' AND json_extract(state, '$.tool.status') IN ('completed', 'error')))
  AND rowid NOT IN (SELECT rowid FROM history_fts);
