package tui

// /sessions searches what it lists: typing in the sessions picker filters
// it to the sessions whose history holds the words, through the same
// index as `agent sessions search` (storage.SearchSessions: pruned and
// summarised parts and saved full outputs included), each with a snippet
// of its best match. The search runs in a command, debounced by
// sessionSearchDelay, so typing never waits for the database; until its
// answer comes the picker keeps the previous answer (the titles, before
// the first). Empty text shows the whole list again.

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/termsafe"
)

// sessionSearchDelay is how long the picker waits after a keystroke before
// it searches; sessionSearchLimit, how many sessions a search lists.
const (
	sessionSearchDelay = 150 * time.Millisecond
	sessionSearchLimit = 50
)

// sessionSearch is the state of the sessions picker's search. seq counts
// the edits of the filter: a timer or an answer for an older edit is
// stale and dropped.
type sessionSearch struct {
	seq int
	// query is the filter the answer found was for ("" before the first).
	query string
	found []pickerEntry
	err   error
}

// sessionSearchDueMsg: the filter has not changed for sessionSearchDelay.
type sessionSearchDueMsg struct{ seq int }

// sessionSearchMsg is the answer of one search.
type sessionSearchMsg struct {
	seq   int
	query string
	found []storage.SessionHits
	err   error
}

// filterChanged schedules the search of the filter just edited.
func (p *picker) filterChanged() tea.Cmd {
	s := p.search
	if s == nil {
		return nil
	}
	s.seq++
	if strings.TrimSpace(p.filter) == "" {
		s.query, s.found, s.err = "", nil, nil
		return nil
	}
	seq := s.seq
	return tea.Tick(sessionSearchDelay, func(time.Time) tea.Msg { return sessionSearchDueMsg{seq: seq} })
}

// searchUpdate handles the search's messages.
func (p *picker) searchUpdate(m *Model, msg tea.Msg) tea.Cmd {
	s := p.search
	if s == nil {
		return nil
	}
	switch msg := msg.(type) {
	case sessionSearchDueMsg:
		if msg.seq != s.seq {
			return nil
		}
		st, dir, query, seq := m.opt.Loop.Store, m.opt.Loop.Dir, p.filter, s.seq
		if st == nil {
			return nil
		}
		return func() tea.Msg {
			found, err := st.SearchSessions(context.Background(), query, dir, sessionSearchLimit)
			return sessionSearchMsg{seq: seq, query: query, found: found, err: err}
		}
	case sessionSearchMsg:
		if msg.seq != s.seq || msg.query != p.filter {
			return nil
		}
		s.query, s.err = msg.query, msg.err
		s.found = searchEntries(m.opt.Loop.Config, msg.found, p.entries, m.sess.ID)
		p.sel = 0
	}
	return nil
}

// searching reports that the picker shows search answers rather than the
// plain list.
func (p *picker) searching() bool {
	return p.search != nil && strings.TrimSpace(p.filter) != "" && p.search.query != ""
}

// searchVisible is what the sessions picker shows for a filter: the
// sessions the search found, best first, then those whose title has the
// text and the search did not find.
func (p *picker) searchVisible(byTitle []pickerEntry) []pickerEntry {
	out := append([]pickerEntry(nil), p.search.found...)
	seen := map[string]bool{}
	for _, e := range out {
		seen[e.value] = true
	}
	for _, e := range byTitle {
		if !seen[e.value] {
			out = append(out, e)
		}
	}
	return out
}

// searchEntries turns the sessions found into picker entries: the listed
// entry when there is one (its label and detail), with the snippet of the
// session's best hit.
func searchEntries(cfg *config.Config, found []storage.SessionHits, listed []pickerEntry, current string) []pickerEntry {
	byID := map[string]pickerEntry{}
	for _, e := range listed {
		byID[e.value] = e
	}
	out := make([]pickerEntry, 0, len(found))
	for _, s := range found {
		e, ok := byID[s.Session.ID]
		if !ok {
			e = sessionEntry(cfg, s.Session, current)
		}
		if len(s.Hits) > 0 {
			e.snippet = hitSnippet(s.Hits[0])
		}
		out = append(out, e)
	}
	return out
}

// sessionEntry is a session's line in the picker; cfg prices its model.
func sessionEntry(cfg *config.Config, s message.Session, current string) pickerEntry {
	title := termsafe.Strip(s.Title)
	if title == "" {
		title = "(untitled)"
	}
	return pickerEntry{
		value:   s.ID,
		label:   title,
		detail:  fmt.Sprintf("%s · %s · %s", s.UpdatedAt.Local().Format("Jan 2 15:04"), termsafe.Strip(s.Model), costLabel(cfg, s.Model, s.CostUSD)),
		current: s.ID == current,
	}
}

// hitSnippet is a hit as `agent sessions search` prints it: what matched
// and the text around the match.
func hitSnippet(h storage.Hit) string {
	what := string(h.Role)
	switch {
	case h.Part.Tool != nil:
		what = h.Part.Tool.Name
		if !h.Part.Tool.CompactedAt.IsZero() {
			what += ", pruned"
		}
	case h.Summary:
		what = "summary"
	case h.Part.Type == message.PartReasoning:
		what = "reasoning"
	}
	return "[" + termsafe.Strip(what) + "] " + strings.Join(strings.Fields(termsafe.Strip(h.Snippet)), " ")
}
