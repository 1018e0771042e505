package overlay

// A picker's search (/sessions searches what it lists): typing filters
// the picker to the entries whose content holds the words, each with a
// snippet of its best match. The search runs in a command, debounced by
// SearchDelay, so typing never waits for the database; until its answer
// comes the picker keeps the previous answer (the titles, before the
// first). Empty text shows the whole list again.

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// SearchDelay is how long the picker waits after a keystroke before it
// searches.
const SearchDelay = 150 * time.Millisecond

// Searcher finds the entries whose content holds query, best first,
// each with its Snippet. It runs in a tea.Cmd, off the Update loop.
type Searcher func(query string) ([]PickerEntry, error)

// search is the state of a picker's search. seq counts the edits of the
// filter: a timer or an answer for an older edit is stale and dropped.
type search struct {
	find Searcher
	seq  int
	// query is the filter the answer found was for ("" before the first).
	query string
	found []PickerEntry
	err   error
}

// SearchDueMsg says the filter has not changed for SearchDelay.
type SearchDueMsg struct{ seq int }

// SearchFoundMsg is the answer of one search.
type SearchFoundMsg struct {
	seq   int
	query string
	found []PickerEntry
	err   error
}

// Searchable makes the picker search with find.
func (p *Picker) Searchable(find Searcher) *Picker {
	p.search = &search{find: find}
	return p
}

// Searched is the filter the search answer shown was for ("" for none).
func (p *Picker) Searched() string {
	if p.search == nil {
		return ""
	}
	return p.search.query
}

// filterChanged schedules the search of the filter just edited.
func (p *Picker) filterChanged() tea.Cmd {
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
	return tea.Tick(SearchDelay, func(time.Time) tea.Msg { return SearchDueMsg{seq: seq} })
}

// searchUpdate handles the search's messages.
func (p *Picker) searchUpdate(msg tea.Msg) tea.Cmd {
	s := p.search
	if s == nil {
		return nil
	}
	switch msg := msg.(type) {
	case SearchDueMsg:
		if msg.seq != s.seq || s.find == nil {
			return nil
		}
		find, query, seq := s.find, p.filter, s.seq
		return func() tea.Msg {
			found, err := find(query)
			return SearchFoundMsg{seq: seq, query: query, found: found, err: err}
		}
	case SearchFoundMsg:
		if msg.seq != s.seq || msg.query != p.filter {
			return nil
		}
		s.query, s.err = msg.query, msg.err
		s.found = listedFirst(msg.found, p.entries)
		p.sel = 0
	}
	return nil
}

// listedFirst is what a search found, each entry as listed when it is
// (its label and detail) with the snippet of the search.
func listedFirst(found, listed []PickerEntry) []PickerEntry {
	byValue := map[string]PickerEntry{}
	for _, e := range listed {
		byValue[e.Value] = e
	}
	out := make([]PickerEntry, 0, len(found))
	for _, f := range found {
		e, ok := byValue[f.Value]
		if !ok {
			e = f
		}
		e.Snippet = f.Snippet
		out = append(out, e)
	}
	return out
}

// searching reports that the picker shows search answers rather than the
// plain list.
func (p *Picker) searching() bool {
	return p.search != nil && strings.TrimSpace(p.filter) != "" && p.search.query != ""
}

// searchVisible is what a searchable picker shows for a filter: the
// entries the search found, best first, then those whose title has the
// text and the search did not find.
func (p *Picker) searchVisible(byTitle []PickerEntry) []PickerEntry {
	out := append([]PickerEntry(nil), p.search.found...)
	seen := map[string]bool{}
	for _, e := range out {
		seen[e.Value] = true
	}
	for _, e := range byTitle {
		if !seen[e.Value] {
			out = append(out, e)
		}
	}
	return out
}
