package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/termsafe"
)

// searchSessionsLimit is how many sessions `agent sessions search` lists.
const searchSessionsLimit = 20

func newSessionsSearchCmd(g *globalFlags) *cobra.Command {
	f := &sessionsFlags{}
	cmd := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Find the sessions whose history mentions the words",
		Long: `search looks through the whole history of the sessions of this directory
(of every directory with --all): what was typed and answered, reasoning, tool
calls and their outputs — those pruned or summarised away and the saved full
outputs of truncated ones included. It prints the matching sessions, best
first, each with its id and a snippet of up to three matches.

The query is plain words, all of which must match (when no part has them
all, any may); a part holding them as a phrase ranks first.`,
		Example: `  agent sessions search flaky TestOrbit
  agent sessions search --all --json "connection refused" | jq -r '.[].id'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return searchSessions(cmd.Context(), g, f, strings.Join(args, " "), os.Stdout)
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON")
	cmd.Flags().BoolVar(&f.all, "all", false, "search the sessions of every directory")
	return cmd
}

// searchRow is one session in `agent sessions search --json`.
type searchRow struct {
	ID        string      `json:"id"`
	Title     string      `json:"title"`
	Dir       string      `json:"dir"`
	UpdatedAt time.Time   `json:"updated_at"`
	Matches   []searchHit `json:"matches"`
}

// searchHit is one match within a session.
type searchHit struct {
	MessageID string    `json:"message_id"`
	PartID    string    `json:"part_id"`
	Kind      string    `json:"kind"` // user, assistant, reasoning, summary, tool
	Tool      string    `json:"tool,omitempty"`
	CallID    string    `json:"call_id,omitempty"`
	Pruned    bool      `json:"pruned,omitempty"`
	At        time.Time `json:"at"`
	Snippet   string    `json:"snippet"`
}

func searchSessions(ctx context.Context, g *globalFlags, f *sessionsFlags, query string, out io.Writer) error {
	a, err := loadApp(g)
	if err != nil {
		return err
	}
	dir := a.dir
	if f.all {
		dir = ""
	}
	rows := []searchRow{}
	st, err := a.openReadOnly(ctx)
	switch {
	case errors.Is(err, storage.ErrNoDatabase):
	case err != nil:
		return err
	default:
		defer st.Close()
		found, err := st.SearchSessions(ctx, query, dir, searchSessionsLimit)
		if err != nil {
			return err
		}
		rows = searchRows(found)
	}
	if f.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(rows) == 0 {
		where := "in " + a.dir + " (--all searches every directory)"
		if f.all {
			where = "in any session"
		}
		fmt.Fprintf(os.Stderr, "no match for %q %s\n", query, where)
		return nil
	}
	now := time.Now()
	for i, r := range rows {
		if i > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "%s  %s  %s", r.ID, shortTime(r.UpdatedAt, now), termsafe.Strip(oneLine(r.Title, 60)))
		if f.all {
			fmt.Fprintf(out, "  (%s)", termsafe.Strip(homeRelative(r.Dir)))
		}
		fmt.Fprintln(out)
		for _, h := range r.Matches {
			what := h.Kind
			if h.Tool != "" {
				what = h.Tool
			}
			if h.Pruned {
				what += ", pruned"
			}
			fmt.Fprintf(out, "  [%s] %s\n", what, termsafe.Strip(oneLine(h.Snippet, 200)))
		}
	}
	return nil
}

func searchRows(found []storage.SessionHits) []searchRow {
	rows := make([]searchRow, 0, len(found))
	for _, s := range found {
		r := searchRow{ID: s.Session.ID, Title: s.Session.Title, Dir: s.Session.Dir, UpdatedAt: s.Session.UpdatedAt, Matches: []searchHit{}}
		for _, h := range s.Hits {
			m := searchHit{MessageID: h.Part.MessageID, PartID: h.Part.ID, At: h.MessageAt, Snippet: h.Snippet, Kind: string(h.Role)}
			switch {
			case h.Part.Tool != nil:
				m.Kind, m.Tool, m.CallID, m.Pruned = "tool", h.Part.Tool.Name, h.Part.Tool.CallID, !h.Part.Tool.CompactedAt.IsZero()
			case h.Summary:
				m.Kind = "summary"
			case h.Part.Type == message.PartReasoning:
				m.Kind = "reasoning"
			}
			r.Matches = append(r.Matches, m)
		}
		rows = append(rows, r)
	}
	return rows
}
