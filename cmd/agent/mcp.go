package main

// MCP servers: started once per process for the commands that drive a
// session (run, the chat), `agent mcp list` and `agent mcp approve`.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/mcp"
	"github.com/ctxloop/agent/internal/termsafe"
)

// startMCP starts the configured MCP servers in the background (nothing
// when none is configured) for a command that drives a session; the
// caller defers a.closeMCP.
func (a *app) startMCP(ctx context.Context) {
	if len(a.cfg.MCP) == 0 || a.mcp != nil {
		return
	}
	a.mcp = mcp.Start(ctx, a.cfg.MCP, a.mcpOptions())
}

func (a *app) closeMCP() {
	if a.mcp != nil {
		a.mcp.Close()
	}
}

func (a *app) mcpOptions() mcp.Options {
	store := approval.Open(a.cfg.DataDir)
	var secrets []string
	if a.cfg.APIKey != "" {
		secrets = []string{a.cfg.APIKey}
	}
	return mcp.Options{
		Dir:      a.dir,
		Secrets:  secrets,
		Version:  version,
		Approved: mcp.ApprovedIn(store),
		Children: children(a.cfg),
	}
}

// mcpNotices are the warnings of a headless run about project servers
// that wait for the user's approval (the chat asks in a dialog).
func (a *app) mcpNotices() []string {
	var notices []string
	for _, st := range a.mcp.Status() {
		if st.State == mcp.StateNeedsApproval {
			name := mcp.Printable(st.Name)
			notices = append(notices, fmt.Sprintf("MCP server %s (declared by %s) is not started until you approve it: run `agent mcp approve %s`.", name, mcp.Printable(st.Project), name))
		}
	}
	return notices
}

// reportMCP warns on stderr about the servers that offer no tools: those
// waiting for approval and those that failed. It does not wait for the
// servers still connecting (a prompt's request never waits for them:
// their tools join from the step after they connect).
func (a *app) reportMCP() {
	if a.mcp == nil {
		return
	}
	for _, n := range a.mcpNotices() {
		fmt.Fprintln(os.Stderr, "agent: warning:", n)
	}
	for _, st := range a.mcp.Status() {
		if st.State == mcp.StateFailed {
			fmt.Fprintf(os.Stderr, "agent: warning: MCP server %s failed: %s\n", mcp.Printable(st.Name), oneLineOf(st.Reason, 300))
		}
	}
}

func newMCPCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "List and approve the configured MCP servers",
		Long: `MCP servers are declared in the config's "mcp" object: a stdio server as
{"command", "args", "env"}, a streamable-HTTP one as {"url", "headers"},
each with an optional "timeout_s" (a call, default 60) and
"startup_timeout_s" (default 30). Their tools are offered as SERVER__TOOL
and ask before they run unless permissions allow "SERVER__TOOL" or
"SERVER". A server declared by a project's .agent/config.json starts only
once you approve it with agent mcp approve.`,
		Example: `  agent mcp list
  agent mcp approve github`,
		Args: cobra.NoArgs,
	}
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "Show each MCP server's status, tools and the tokens their schemas cost",
		Long: `list connects to every configured server (in parallel, each within its
startup timeout) and prints its kind, status (connected, failed: reason,
needs approval, disabled), its tools and the tokens their schemas add to
every request (estimated as the context breakdown does).`,
		Example: `  agent mcp list
  agent mcp list --json | jq '.[] | select(.status != "connected")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return listMCP(cmd.Context(), g, asJSON, os.Stdout)
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	approve := &cobra.Command{
		Use:   "approve NAME",
		Short: "Allow a server a project file declares to start",
		Long: `approve records your approval of the MCP server NAME as this directory's
project file declares it now. Should the entry change, it needs approving
again.`,
		Example: `  agent mcp approve github`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return approveMCP(g, args[0], os.Stdout)
		},
	}
	cmd.AddCommand(list, approve)
	return cmd
}

// mcpRow is one server of `agent mcp list --json`.
type mcpRow struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Status   string   `json:"status"`
	Reason   string   `json:"reason,omitempty"`
	Project  string   `json:"project,omitempty"`
	Tools    int      `json:"tools"`
	Tokens   int64    `json:"tokens"`
	Names    []string `json:"tool_names"`
	Restarts int      `json:"restarts"`
	Stderr   string   `json:"stderr,omitempty"`
}

func listMCP(ctx context.Context, g *globalFlags, asJSON bool, out io.Writer) error {
	a, err := loadApp(g)
	if err != nil {
		return err
	}
	a.warn()
	servers := mcp.Start(ctx, a.cfg.MCP, a.mcpOptions())
	defer servers.Close()
	// Each server is bounded by its startup timeout; this only guards a
	// cancelled command.
	_ = servers.Wait(ctx)
	rows := []mcpRow{}
	for _, st := range servers.Status() {
		rows = append(rows, mcpRow{
			Name: st.Name, Kind: st.Kind, Status: string(st.State), Reason: st.Reason, Project: st.Project,
			Tools: len(st.Tools), Tokens: st.Tokens, Names: append([]string{}, st.Tools...), Restarts: st.Restarts, Stderr: st.Stderr,
		})
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(out, `No MCP servers configured: add them to the "mcp" object of your config (see agent help mcp).`)
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tSTATUS\tTOOLS\tTOKENS")
	for _, r := range rows {
		status := r.Status
		if r.Reason != "" && r.Status != string(mcp.StateConnected) {
			status += ": " + r.Reason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\n", mcp.Printable(r.Name), r.Kind, oneLineOf(status, 160), r.Tools, r.Tokens)
	}
	return tw.Flush()
}

// oneLineOf is s on one line, at most max runes, with no terminal escapes:
// a server's name, reason and stderr come from outside the agent.
func oneLineOf(s string, max int) string {
	s = strings.Join(strings.Fields(termsafe.Strip(s)), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}

func approveMCP(g *globalFlags, name string, out io.Writer) error {
	a, err := loadApp(g)
	if err != nil {
		return err
	}
	s, ok := a.cfg.MCP[name]
	if !ok {
		names := make([]string, 0, len(a.cfg.MCP))
		for n := range a.cfg.MCP {
			names = append(names, n)
		}
		sort.Strings(names)
		return fmt.Errorf("no MCP server %q in the config (servers: %s)", name, strings.Join(names, ", "))
	}
	if s.Project == "" {
		fmt.Fprintf(out, "%s is in your user config: it needs no approval\n", name)
		return nil
	}
	if err := mcp.Approve(approval.Open(a.cfg.DataDir), name, s); err != nil {
		return err
	}
	fmt.Fprintf(out, "approved %s (%s) as %s declares it\n", mcp.Printable(name), mcp.CommandLine(s), mcp.Printable(s.Project))
	return nil
}

// mcpBreakdown is the context breakdown's MCP rows: each server's tools
// and the tokens their schemas cost.
type mcpBreakdown struct {
	Server string `json:"server"`
	Tools  int    `json:"tools"`
	Tokens int64  `json:"tokens"`
}

// mcpRows are the rows of the servers that offer tools now.
func mcpRows(s *mcp.Servers) []mcpBreakdown {
	rows := []mcpBreakdown{}
	for _, st := range s.Status() {
		if len(st.Tools) > 0 {
			rows = append(rows, mcpBreakdown{Server: st.Name, Tools: len(st.Tools), Tokens: st.Tokens})
		}
	}
	return rows
}

// mcpListTimeout bounds how long `agent context` waits for the servers
// it asks for their tools.
const mcpListTimeout = 30 * time.Second
