package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
)

type sessionsFlags struct {
	json bool
	all  bool
}

func newSessionsCmd(g *globalFlags) *cobra.Command {
	f := &sessionsFlags{}
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List sessions of this directory, newest first",
		Example: `  agent sessions
  agent sessions --all --json | jq -r '.[].id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return listSessions(cmd.Context(), g, f)
		},
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print JSON")
	cmd.Flags().BoolVar(&f.all, "all", false, "list the sessions of every directory")
	return cmd
}

// sessionRow is one session in `agent sessions --json`.
type sessionRow struct {
	ID        string        `json:"id"`
	Title     string        `json:"title"`
	Dir       string        `json:"dir"`
	Model     string        `json:"model"`
	CreatedAt time.Time     `json:"created_at"`
	UpdatedAt time.Time     `json:"updated_at"`
	Messages  int           `json:"messages"`
	Usage     message.Usage `json:"usage"`
	CostUSD   float64       `json:"cost_usd"`
}

func listSessions(ctx context.Context, g *globalFlags, f *sessionsFlags) error {
	a, err := loadApp(g)
	if err != nil {
		return err
	}
	st, err := a.openReadOnly(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	dir := a.dir
	if f.all {
		dir = ""
	}
	list, err := st.ListSessions(ctx, dir)
	if err != nil {
		return err
	}
	rows := make([]sessionRow, 0, len(list))
	for _, s := range list {
		stats, err := st.SessionStats(ctx, s.ID)
		if err != nil {
			return err
		}
		rows = append(rows, sessionRow{ID: s.ID, Title: s.Title, Dir: s.Dir, Model: s.Model, CreatedAt: s.CreatedAt,
			UpdatedAt: s.UpdatedAt, Messages: stats.Messages, Usage: s.Usage, CostUSD: s.CostUSD})
	}
	if f.json {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(os.Stderr, "no sessions yet")
		return nil
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tMSGS\tCOST\tMODEL\tTITLE")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t$%.4f\t%s\t%s\n", r.ID, r.UpdatedAt.Local().Format("2006-01-02 15:04"),
			r.Messages, r.CostUSD, termsafe.Strip(r.Model), oneLine(termsafe.Strip(r.Title), 60))
	}
	return tw.Flush()
}
