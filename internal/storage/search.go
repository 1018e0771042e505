package storage

// The history index: a full-text index (SQLite FTS5, table history_fts) of
// what every session's parts say, for the recall tool and `agent sessions
// search`. Nothing is forgotten: a pruned output, a message summarised
// away and the saved full output of a truncated call stay searchable.
//
// Contract:
//   - A part is indexed once what it says is final, in the transaction that
//     writes it: text and reasoning when written whole (UpsertPart, a
//     TextStream's Finish, the repair of a stream a crash cut — never the
//     delta rows of a stream), a tool call when it completes or fails (its
//     name, input, output, raw output and the first indexSavedMaxBytes of
//     its saved full output). The updates of a running tool, most of the
//     writes, touch no index. Every path that writes history indexes it
//     the same way: a fork's copy (ForkSession) and an import
//     (ImportHistory) too; migration 0007 indexes forks made before.
//   - Marking a part compacted changes what is sent, not what it says: the
//     index is not touched. Deleting a part (its session) removes its row.
//   - The index is keyed by the rowid of parts and holds no text of its own
//     (contentless, no positions): a hit is read back from parts, and a
//     phrase is checked against the text itself. Anything that renumbers
//     the rowids of parts (VACUUM) must call RebuildHistoryIndex.
//   - Queries are plain words: whatever the user or the model types is
//     split into terms the way the index splits text, so no query is an
//     FTS syntax error. All terms must match; when none does, any term may.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ctxloop/agent/internal/message"
)

// indexSavedMaxBytes bounds how much of a saved full output is indexed:
// its beginning, where builds and test runs say what failed first.
const indexSavedMaxBytes = 4 << 20

// maxQueryTerms bounds the terms of one query: more say nothing more and
// make the index work harder.
const maxQueryTerms = 16

// indexWrites is false only in benchmarks that measure what indexing
// costs.
var indexWrites = true

// indexed reports whether a part is indexed in its current state: text
// and reasoning with text, tool calls that are finished.
func indexed(p *message.Part) bool {
	if !indexWrites {
		return false
	}
	switch p.Type {
	case message.PartText, message.PartReasoning:
		return p.Text != ""
	case message.PartTool:
		return p.Tool != nil && (p.Tool.Status == message.ToolCompleted || p.Tool.Status == message.ToolError)
	}
	return false
}

// indexText is what the index holds for a part: its text, or a tool call's
// name, input and output (the raw output when it was kept) and, with
// readSaved, the beginning of its saved full output.
func indexText(p *message.Part, readSaved bool) string {
	if p.Type != message.PartTool || p.Tool == nil {
		return p.Text
	}
	t := p.Tool
	out := t.RawOutput
	if out == "" {
		out = t.Output
	}
	doc := t.Name + "\n" + t.Input + "\n" + out
	if readSaved && t.FullOutputPath != "" {
		if saved := readSavedOutput(t.FullOutputPath, indexSavedMaxBytes); saved != "" {
			doc += "\n" + saved
		}
	}
	return doc
}

// readSavedOutput reads the beginning of a saved output, "" when it is
// gone (old outputs expire) or unreadable.
func readSavedOutput(path string, maxBytes int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxBytes))
	if err != nil {
		return ""
	}
	// Cut a rune the limit split.
	for len(b) > 0 && !utf8.Valid(b[max(0, len(b)-utf8.UTFMax):]) {
		b = b[:len(b)-1]
	}
	return string(b)
}

// indexPart replaces the index row of part id with text, within tx.
func indexPart(ctx context.Context, tx *sql.Tx, id, text string) error {
	var rowid int64
	if err := tx.QueryRowContext(ctx, `SELECT rowid FROM parts WHERE id = ?`, id).Scan(&rowid); err != nil {
		return fmt.Errorf("index part %s: %w", id, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM history_fts WHERE rowid = ?`, rowid); err != nil {
		return fmt.Errorf("index part %s: %w", id, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO history_fts (rowid, body) VALUES (?, ?)`, rowid, text); err != nil {
		return fmt.Errorf("index part %s: %w", id, err)
	}
	return nil
}

// indexIfFinal indexes p within tx when it is indexed in its state.
func indexIfFinal(ctx context.Context, tx *sql.Tx, p *message.Part) error {
	if !indexed(p) {
		return nil
	}
	return indexPart(ctx, tx, p.ID, indexText(p, true))
}

// RebuildHistoryIndex indexes every part again, saved outputs included.
func (s *Store) RebuildHistoryIndex(ctx context.Context) error {
	const op = "rebuild history index"
	if err := s.writable(op); err != nil {
		return err
	}
	return s.inTx(ctx, op, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM history_fts`); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+partColumns+` FROM parts
			WHERE type IN ('text', 'reasoning', 'tool') ORDER BY id`)
		if err != nil {
			return err
		}
		var parts []*message.Part
		for rows.Next() {
			p, err := scanPart(rows)
			if err != nil {
				rows.Close()
				return err
			}
			if indexed(p) {
				parts = append(parts, p)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, p := range parts {
			if err := indexIfFinal(ctx, tx, p); err != nil {
				return err
			}
		}
		return nil
	})
}

// QueryTerms splits a query into the terms the index knows, lower-cased,
// the way the index splits text (runs of letters and digits), at most
// maxQueryTerms of them, without repeats.
func QueryTerms(query string) []string {
	var terms []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(query, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}) {
		t := strings.ToLower(f)
		if seen[t] {
			continue
		}
		seen[t] = true
		terms = append(terms, t)
		if len(terms) == maxQueryTerms {
			break
		}
	}
	return terms
}

// matchExpr builds the FTS5 query of terms: each quoted (never an
// operator), all required, or any with anyTerm.
func matchExpr(terms []string, anyTerm bool) string {
	q := make([]string, len(terms))
	for i, t := range terms {
		q[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	sep := " AND "
	if anyTerm {
		sep = " OR "
	}
	return strings.Join(q, sep)
}

// Hit is one part the history index matched.
type Hit struct {
	Part message.Part
	// Role and Summary are the part's message's; MessageAt is when the
	// message was written.
	Role      message.Role
	Summary   bool
	MessageAt time.Time
	// Phrase reports that the part holds the query as typed (letters
	// and digits, case and punctuation aside); such hits come first.
	Phrase bool
	// Snippet is a line of the text around the match.
	Snippet string
	// Text is everything the part says (indexText, saved output
	// included), for the caller to look closer; only SearchSession fills
	// it.
	Text string
}

// candidatesPerHit is how many index matches are read for each hit asked
// for, so that exact phrases found further down can move up.
const candidatesPerHit = 4

// SearchSession returns up to limit parts of a session that match query,
// best first: those holding the query as a phrase, then by relevance
// (BM25). A query with no terms matches nothing.
func (s *Store) SearchSession(ctx context.Context, sessionID, query string, limit int) ([]Hit, error) {
	op := "search session " + sessionID
	terms := QueryTerms(query)
	if len(terms) == 0 || limit <= 0 {
		return nil, nil
	}
	var hits []Hit
	for _, anyTerm := range []bool{false, true} {
		if anyTerm && (len(hits) > 0 || len(terms) == 1) {
			break
		}
		rows, err := s.rdb.QueryContext(ctx, `SELECT p.id, p.session_id, p.message_id, p.type, p.state,
			p.created_at, p.updated_at, m.role, m.summary, m.created_at
			FROM history_fts f JOIN parts p ON p.rowid = f.rowid JOIN messages m ON m.id = p.message_id
			WHERE history_fts MATCH ? AND p.session_id = ? ORDER BY f.rank LIMIT ?`,
			matchExpr(terms, anyTerm), sessionID, limit*candidatesPerHit)
		if err != nil {
			return nil, s.fail(op, err)
		}
		hits, err = scanHits(rows)
		if err != nil {
			return nil, s.fail(op, err)
		}
	}
	finishHits(hits, query, terms, true)
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

func scanHits(rows *sql.Rows) ([]Hit, error) {
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var h Hit
		var state []byte
		var created, updated, msgAt int64
		var summary int
		if err := rows.Scan(&h.Part.ID, &h.Part.SessionID, &h.Part.MessageID, &h.Part.Type, &state,
			&created, &updated, &h.Role, &summary, &msgAt); err != nil {
			return nil, err
		}
		h.Part.CreatedAt, h.Part.UpdatedAt = fromUnix(created), fromUnix(updated)
		h.Summary, h.MessageAt = summary != 0, fromUnix(msgAt)
		if err := decodeState(&h.Part, state); err != nil {
			return nil, err
		}
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// finishHits reads each hit's text, marks phrases, cuts snippets and puts
// phrase hits first (stable: relevance otherwise). keepText keeps the text
// in the hits.
func finishHits(hits []Hit, query string, terms []string, keepText bool) {
	phrase := phrasePattern(query)
	word := termsPattern(terms)
	for i := range hits {
		h := &hits[i]
		text := indexText(&h.Part, false)
		loc := findIn(text, phrase, word)
		if loc == nil && h.Part.Tool != nil && h.Part.Tool.FullOutputPath != "" {
			text = indexText(&h.Part, true) // the match is in the saved output
			loc = findIn(text, phrase, word)
		}
		h.Phrase = phrase != nil && loc != nil && phrase.MatchString(text[loc[0]:loc[1]])
		h.Snippet = Snippet(text, loc, snippetWidth)
		if keepText {
			h.Text = text
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Phrase && !hits[j].Phrase })
}

// snippetWidth is about how many characters a snippet shows.
const snippetWidth = 160

// phrasePattern matches the query's words in order with anything but
// letters and digits between them, ignoring case; nil for a one-word
// query (a term match is then the phrase).
func phrasePattern(query string) *regexp.Regexp {
	words := strings.FieldsFunc(query, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	if len(words) == 0 {
		return nil
	}
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = regexp.QuoteMeta(w)
	}
	return regexp.MustCompile(`(?i)` + strings.Join(q, `[^\p{L}\p{N}]+`))
}

// termsPattern matches any of the terms, ignoring case.
func termsPattern(terms []string) *regexp.Regexp {
	if len(terms) == 0 {
		return nil
	}
	q := make([]string, len(terms))
	for i, t := range terms {
		q[i] = regexp.QuoteMeta(t)
	}
	return regexp.MustCompile(`(?i)` + strings.Join(q, "|"))
}

// findIn returns where the phrase, else the first term, is in text; nil if
// neither is (the index also folds diacritics).
func findIn(text string, phrase, word *regexp.Regexp) []int {
	if phrase != nil {
		if loc := phrase.FindStringIndex(text); loc != nil {
			return loc
		}
	}
	if word != nil {
		return word.FindStringIndex(text)
	}
	return nil
}

// Snippet returns about width characters of text around loc (a match's
// byte range; nil: the beginning), on one line, with "…" where it was cut.
func Snippet(text string, loc []int, width int) string {
	start, end := 0, 0
	if loc != nil {
		start, end = loc[0], loc[1]
	}
	before := max(width-(end-start), 0) / 3
	from := max(start-before, 0)
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	to := min(from+width+(end-start), len(text))
	to = max(to, min(end, len(text)))
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	s := strings.Join(strings.Fields(text[from:to]), " ")
	if from > 0 {
		s = "…" + s
	}
	if to < len(text) {
		s += "…"
	}
	return s
}

// SessionHits are the hits of one session in a search across sessions.
type SessionHits struct {
	Session message.Session
	Hits    []Hit
}

// hitsPerSession is how many hits a search across sessions shows of each
// session; sessionCandidates, how many index matches it reads at most.
const (
	hitsPerSession    = 3
	sessionCandidates = 400
)

// SearchSessions searches the history of every session of dir (every
// session when dir is empty) and returns the sessions that match, best
// first, at most limit of them with up to hitsPerSession hits each.
func (s *Store) SearchSessions(ctx context.Context, query, dir string, limit int) ([]SessionHits, error) {
	const op = "search sessions"
	terms := QueryTerms(query)
	if len(terms) == 0 || limit <= 0 {
		return nil, nil
	}
	type cand struct {
		session string
		rowid   int64
	}
	var cands []cand
	for _, anyTerm := range []bool{false, true} {
		if anyTerm && (len(cands) > 0 || len(terms) == 1) {
			break
		}
		rows, err := s.rdb.QueryContext(ctx, `SELECT p.session_id, p.rowid
			FROM history_fts f JOIN parts p ON p.rowid = f.rowid JOIN sessions s ON s.id = p.session_id
			WHERE history_fts MATCH ? AND (? = '' OR s.dir = ?) ORDER BY f.rank LIMIT ?`,
			matchExpr(terms, anyTerm), dir, dir, sessionCandidates)
		if err != nil {
			return nil, s.fail(op, err)
		}
		for rows.Next() {
			var c cand
			if err := rows.Scan(&c.session, &c.rowid); err != nil {
				rows.Close()
				return nil, s.fail(op, err)
			}
			cands = append(cands, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, s.fail(op, err)
		}
	}
	// A subagent's session is hidden from the lists: its hits count for
	// the top-level session it belongs to.
	roots := map[string]string{}
	for i, c := range cands {
		root, ok := roots[c.session]
		if !ok {
			var err error
			if root, err = s.rootSession(ctx, c.session); err != nil {
				root = c.session // gone meanwhile: left out below
			}
			roots[c.session] = root
		}
		cands[i].session = root
	}
	// Sessions in the order of their best match, each with its first hits.
	var order []string
	chosen := map[string][]int64{}
	for _, c := range cands {
		ids, ok := chosen[c.session]
		if !ok {
			if len(order) == limit {
				continue
			}
			order = append(order, c.session)
		}
		if len(ids) < hitsPerSession {
			chosen[c.session] = append(ids, c.rowid)
		}
	}
	out := make([]SessionHits, 0, len(order))
	for _, id := range order {
		sess, err := s.GetSession(ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		hits, err := s.hitsByRowid(ctx, chosen[id])
		if err != nil {
			return nil, s.fail(op, err)
		}
		finishHits(hits, query, terms, false)
		out = append(out, SessionHits{Session: *sess, Hits: hits})
	}
	return out, nil
}

// rootSession is the top-level session that session id belongs to:
// itself, or its parent's root (a subagent's session names the session
// that started it).
func (s *Store) rootSession(ctx context.Context, id string) (string, error) {
	for range 8 { // task children are one level deep; a bound, not a walk
		var parent sql.NullString
		if err := s.rdb.QueryRowContext(ctx, `SELECT parent_id FROM sessions WHERE id = ?`, id).Scan(&parent); err != nil {
			return "", err
		}
		if !parent.Valid || parent.String == "" {
			return id, nil
		}
		id = parent.String
	}
	return id, nil
}

// hitsByRowid reads the parts of these rowids as hits, in that order.
func (s *Store) hitsByRowid(ctx context.Context, rowids []int64) ([]Hit, error) {
	var hits []Hit
	for _, rowid := range rowids {
		rows, err := s.rdb.QueryContext(ctx, `SELECT p.id, p.session_id, p.message_id, p.type, p.state,
			p.created_at, p.updated_at, m.role, m.summary, m.created_at
			FROM parts p JOIN messages m ON m.id = p.message_id WHERE p.rowid = ?`, rowid)
		if err != nil {
			return nil, err
		}
		h, err := scanHits(rows)
		if err != nil {
			return nil, err
		}
		hits = append(hits, h...)
	}
	return hits, nil
}

// GetPart returns one part with its message's role, as a Hit without a
// snippet; Text is everything it says, saved output included.
func (s *Store) GetPart(ctx context.Context, id string) (*Hit, error) {
	rows, err := s.rdb.QueryContext(ctx, `SELECT p.id, p.session_id, p.message_id, p.type, p.state,
		p.created_at, p.updated_at, m.role, m.summary, m.created_at
		FROM parts p JOIN messages m ON m.id = p.message_id WHERE p.id = ?`, id)
	if err != nil {
		return nil, s.fail("get part "+id, err)
	}
	hits, err := scanHits(rows)
	if err != nil {
		return nil, s.fail("get part "+id, err)
	}
	if len(hits) == 0 {
		return nil, fmt.Errorf("get part: part %s: %w", id, ErrNotFound)
	}
	h := &hits[0]
	h.Text = indexText(&h.Part, true)
	return h, nil
}

// FindToolCall returns the id of the tool part of a session with this
// call id, the newest if several.
func (s *Store) FindToolCall(ctx context.Context, sessionID, callID string) (string, error) {
	var id string
	err := s.rdb.QueryRowContext(ctx, `SELECT id FROM parts WHERE session_id = ? AND type = 'tool'
		AND json_extract(state, '$.tool.call_id') = ? ORDER BY id DESC LIMIT 1`, sessionID, callID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("find tool call %s in session %s: %w", callID, sessionID, ErrNotFound)
	}
	if err != nil {
		return "", s.fail("find tool call "+callID, err)
	}
	return id, nil
}

// SessionCompactions returns a session's compaction parts, oldest first:
// what a reader needs to know where the newest summary's history starts
// without loading the history.
func (s *Store) SessionCompactions(ctx context.Context, sessionID string) ([]message.Part, error) {
	op := "list compactions of session " + sessionID
	rows, err := s.rdb.QueryContext(ctx, `SELECT `+prefixed("p.", partColumns)+`
		FROM messages m JOIN parts p ON p.message_id = m.id
		WHERE m.session_id = ? AND m.role = 'user' AND m.synthetic = 1 AND p.type = 'compaction'
		ORDER BY p.id`, sessionID)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	var parts []message.Part
	for rows.Next() {
		p, err := scanPart(rows)
		if err != nil {
			return nil, s.fail(op, err)
		}
		parts = append(parts, *p)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return parts, nil
}

// prefixed qualifies each column of a column list.
func prefixed(prefix, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}
