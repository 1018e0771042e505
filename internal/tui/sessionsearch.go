package tui

// /sessions searches what it lists: typing in the sessions picker filters
// it to the sessions whose history holds the words, through the same
// index as `agent sessions search` (storage.SearchSessions: pruned and
// summarised parts and saved full outputs included), each with a snippet
// of its best match. The picker runs the search (overlay/search.go); this
// file says how it searches (sessionSearcher) and what an entry shows.

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tui/overlay"
)

// sessionSearchLimit is how many sessions a search lists.
const sessionSearchLimit = 50

// sessionSearcher searches the sessions of dir in st (nil: none) for the
// sessions picker (overlay.Searcher); cfg prices their models, current
// is the chat's session.
func sessionSearcher(st *storage.Store, cfg *config.Config, dir, current string) overlay.Searcher {
	if st == nil {
		return nil
	}
	return func(query string) ([]overlay.PickerEntry, error) {
		found, err := st.SearchSessions(context.Background(), query, dir, sessionSearchLimit)
		out := make([]overlay.PickerEntry, 0, len(found))
		for _, s := range found {
			e := sessionEntry(cfg, s.Session, current)
			if len(s.Hits) > 0 {
				e.Snippet = hitSnippet(s.Hits[0])
			}
			out = append(out, e)
		}
		return out, err
	}
}

// sessionEntry is a session's line in the picker; cfg prices its model.
func sessionEntry(cfg *config.Config, s message.Session, current string) overlay.PickerEntry {
	title := termsafe.Strip(s.Title)
	if title == "" {
		title = "(untitled)"
	}
	return overlay.PickerEntry{
		Value:   s.ID,
		Label:   title,
		Detail:  fmt.Sprintf("%s · %s · %s", s.UpdatedAt.Local().Format("Jan 2 15:04"), termsafe.Strip(s.Model), costLabel(cfg, s.Model, s.CostUSD)),
		Current: s.ID == current,
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
