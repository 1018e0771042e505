package storage

// skeleton.go: Window.Load reads the skeleton of the newest compactions
// only (issue 36, scaleresume). A session compacted 70 times has 70
// markers, 70 summaries and their parts scattered over its tables; the
// window a request sends starts at the newest summary in force, its
// marker, kept tail or kept head — almost always inside the last few
// compactions. So Load first reads the skeleton from the marker of the
// newestCompactions-th newest compaction on (the cut), and reads the
// whole skeleton instead when the cut may change the answer:
//
//   - a compaction part before the cut was undone (its marker undoes a
//     summary that may lie after the cut),
//   - a summary after the cut has no compaction part after the cut naming
//     it (its marker, or the one before it, lies before the cut),
//   - the caller's answer is "" or a message before the cut: it is then
//     asked again with the whole skeleton.
//
// Otherwise the part of the skeleton before the cut cannot change what
// tokens.SentFrom (the loop's answer) makes of it: the oracle is the
// loop's TestOpenWindowSendsWhatTheWholeHistorySends and FuzzOpenWindow,
// and TestSkeletonReadsTheNewestCompactions shows each fallback. The cut
// and the undone check read migration 0011's partial indexes alone.

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ctxloop/agent/internal/message"
)

// newestCompactions is how many compactions the first skeleton holds.
// Three: the newest one's kept tail lies after the one before it, and a
// kept head reaches back one more.
const newestCompactions = 3

// loadSkeleton reads the skeleton from where the cut says and asks from
// where to start; it falls back to the whole skeleton as skeleton.go
// says.
func loadSkeleton(ctx context.Context, tx *sql.Tx, sessionID string, deltas map[string]string, from func(skeleton []Entry) string) (string, error) {
	cut, err := skeletonCut(ctx, tx, sessionID)
	if err != nil {
		return "", err
	}
	skeleton, err := readSkeleton(ctx, tx, sessionID, cut, deltas)
	if err != nil {
		return "", err
	}
	if cut != "" && !summariesMarked(skeleton) {
		cut = ""
		if skeleton, err = readSkeleton(ctx, tx, sessionID, "", deltas); err != nil {
			return "", err
		}
	}
	at := from(skeleton)
	if cut != "" && (at == "" || at < cut) {
		if skeleton, err = readSkeleton(ctx, tx, sessionID, "", deltas); err != nil {
			return "", err
		}
		at = from(skeleton)
	}
	return at, nil
}

// skeletonCut returns the message of the newestCompactions-th newest
// compaction part, "" (the whole skeleton) when there are fewer, or when
// a compaction part before it was undone.
func skeletonCut(ctx context.Context, tx *sql.Tx, sessionID string) (string, error) {
	var cut string
	err := tx.QueryRowContext(ctx, `SELECT message_id FROM parts INDEXED BY parts_compaction_message
		WHERE session_id = ? AND type = 'compaction' ORDER BY message_id DESC LIMIT 1 OFFSET ?`,
		sessionID, newestCompactions-1).Scan(&cut)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var undone bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM parts INDEXED BY parts_compaction_undone
		WHERE session_id = ? AND message_id < ? AND type = 'compaction'
		AND json_extract(state, '$.compaction.undone_at') IS NOT NULL)`, sessionID, cut).Scan(&undone); err != nil {
		return "", err
	}
	if undone {
		return "", nil
	}
	return cut, nil
}

// summariesMarked reports whether every summary of skeleton is named by
// a compaction part before it in skeleton.
func summariesMarked(skeleton []Entry) bool {
	named := map[string]bool{}
	for i := range skeleton {
		e := &skeleton[i]
		if e.Message.Summary && !named[e.Message.ID] {
			return false
		}
		for j := range e.Parts {
			if p := &e.Parts[j]; p.Type == message.PartCompaction && p.Compaction != nil && p.Compaction.SummaryID != "" {
				named[p.Compaction.SummaryID] = true
			}
		}
	}
	return true
}
