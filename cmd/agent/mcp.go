package main

// MCP servers: started once per process for the commands that drive a
// session (run, the chat), `agent mcp list` and `agent mcp approve`.

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/ctxloop/agent/internal/sandbox"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/mcp"
	"github.com/ctxloop/agent/internal/toolsearch"
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
		Sandbox:  sandbox.Policy{Network: a.cfg.Sandbox.Network, Hosts: a.cfg.Sandbox.Hosts, Writable: a.cfg.Sandbox.Writable, ReadOnly: []string{a.cfg.DataDir}}, // for servers that opt in
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
		switch st.State {
		case mcp.StateFailed:
			fmt.Fprintf(os.Stderr, "agent: warning: MCP server %s failed: %s\n", mcp.Printable(st.Name), oneLineOf(st.Reason, 300))
		case mcp.StateRefused:
			fmt.Fprintf(os.Stderr, "agent: warning: MCP server %s (declared by %s) is not started: %s\n", mcp.Printable(st.Name), mcp.Printable(st.Project), oneLineOf(st.Reason, 300))
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
	var asJSON, verbose bool
	list := &cobra.Command{
		Use:   "list",
		Short: "Show each MCP server's status, tools and the tokens their schemas cost",
		Long: `list connects to every configured server (in parallel, each within its
startup timeout) and prints its kind, status (connected, failed: reason,
needs approval, refused, disabled), its tools and the tokens their
schemas add to every request (estimated as the context breakdown does).
A tool whose schema alone is over the share of the window tool_search
defers at (too_large in --json) is never sent to the model. A server a
project file declares is shown in full: what it runs and sends. --verbose
names each server's tools, with the tokens of each schema.`,
		Example: `  agent mcp list
  agent mcp list --verbose
  agent mcp list --json | jq '.[] | select(.status != "connected")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return listMCP(cmd.Context(), g, asJSON, verbose, os.Stdout)
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	list.Flags().BoolVarP(&verbose, "verbose", "v", false, "name each server's tools (text mode; --json always has tool_names)")
	approve := &cobra.Command{
		Use:   "approve NAME",
		Short: "Allow a server a project file declares to start",
		Long: `approve records your approval of the MCP server NAME as this directory's
project file declares it now, and prints the entry in full: the command
and its arguments or the URL, every env entry and header with its value
as written, and the variables they reference. Should the entry change, it
needs approving again.

A project's entry expands ${VAR} only for the variables your own config
grants that server in "mcp_allow_env": {"NAME": ["VAR"]}; any other
expands to nothing. An entry whose env sets a variable that changes what
a program loads (LD_PRELOAD, PYTHONPATH, NODE_OPTIONS, BASH_ENV, PATH, …)
is refused and cannot be approved.`,
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
	// What a project's entry runs and sends, as written (the user's own
	// entries leave these out): the command and args or the URL, the env
	// and headers with their values, the variables they reference, and
	// those the user's mcp_allow_env grants it.
	Command    string            `json:"command,omitempty"`
	Args       []string          `json:"args,omitempty"`
	URL        string            `json:"url,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	Headers    map[string]string `json:"headers,omitempty"`
	References []string          `json:"references,omitempty"`
	Granted    []string          `json:"granted,omitempty"`
	// TooLarge are the tools whose schema alone is over ToolLimit, the
	// tokens one tool may take of the configured model's window
	// (toolsearch.ToolLimit): never sent to the model. Tokens leaves them
	// out.
	TooLarge  []string `json:"too_large,omitempty"`
	ToolLimit int64    `json:"tool_limit,omitempty"`
	// toolTokens are the tokens of each of Names' schemas (--verbose).
	toolTokens []int64
}

// printToolNames names a server's tools, one a line with the tokens of
// its schema (agent mcp list --verbose).
func printToolNames(out io.Writer, r mcpRow) {
	if len(r.Names) == 0 {
		return
	}
	fmt.Fprintf(out, "\n%s tools:\n", mcp.Printable(r.Name))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for i, n := range r.Names {
		tokens := "-"
		if i < len(r.toolTokens) {
			tokens = fmt.Sprintf("%d tokens", r.toolTokens[i])
		}
		fmt.Fprintf(tw, "  %s\t%s\n", mcp.Printable(n), tokens)
	}
	_ = tw.Flush()
}

func listMCP(ctx context.Context, g *globalFlags, asJSON, verbose bool, out io.Writer) error {
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
	limit := a.toolLimit()
	for _, st := range servers.Status() {
		large, sent := st.Over(limit)
		row := mcpRow{
			toolTokens: st.ToolTokens,
			Name:       st.Name, Kind: st.Kind, Status: string(st.State), Reason: st.Reason, Project: st.Project,
			Tools: len(st.Tools), Tokens: sent, Names: append([]string{}, st.Tools...), Restarts: st.Restarts, Stderr: st.Stderr,
			TooLarge: large,
		}
		if len(large) > 0 {
			row.ToolLimit = limit
		}
		if spec, ok := servers.Spec(st.Name); ok && spec.Project != "" {
			row.Command, row.Args, row.URL, row.Env, row.Headers = spec.Command, spec.Args, spec.URL, spec.Env, spec.Headers
			row.References = mcp.References(spec)
			for _, v := range row.References {
				if slices.Contains(spec.AllowEnv, v) {
					row.Granted = append(row.Granted, v)
				}
			}
		}
		rows = append(rows, row)
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
	if err := tw.Flush(); err != nil {
		return err
	}
	if verbose {
		for _, r := range rows {
			printToolNames(out, r)
		}
	}
	for _, r := range rows {
		if len(r.TooLarge) > 0 {
			fmt.Fprintf(out, "\n%s: never sent to the model, each tool's schema alone over the %d tokens one tool may take (tool_search_threshold of the window): %s\n",
				mcp.Printable(r.Name), r.ToolLimit, oneLineOf(strings.Join(r.TooLarge, ", "), 300))
		}
	}
	// A project's entries in full: what approving them runs and sends.
	for _, r := range rows {
		if r.Project == "" {
			continue
		}
		spec, _ := servers.Spec(r.Name)
		fmt.Fprintf(out, "\n%s, declared by %s:\n", mcp.Printable(r.Name), mcp.Printable(r.Project))
		for _, l := range mcp.Describe(spec) {
			fmt.Fprintln(out, "  "+l)
		}
	}
	return nil
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
	if why := mcp.Refusal(s); why != "" {
		return fmt.Errorf("MCP server %s cannot be approved: %s", mcp.Printable(name), why)
	}
	if err := mcp.Approve(approval.Open(a.cfg.DataDir), name, s); err != nil {
		return err
	}
	fmt.Fprintf(out, "approved %s as %s declares it:\n", mcp.Printable(name), mcp.Printable(s.Project))
	for _, l := range mcp.Describe(s) {
		fmt.Fprintln(out, "  "+l)
	}
	return nil
}

// mcpBreakdown is the context breakdown's MCP rows: each server's tools
// and the tokens their schemas cost.
type mcpBreakdown struct {
	Server string `json:"server"`
	Tools  int    `json:"tools"`
	Tokens int64  `json:"tokens"` // of the tools that can be sent
	// TooLarge are the tools whose schema alone is over ToolLimit, the
	// tokens one tool may take (toolsearch.ToolLimit): never sent.
	TooLarge  []string `json:"too_large,omitempty"`
	ToolLimit int64    `json:"tool_limit,omitempty"`
}

// mcpRows are the rows of the servers that offer tools now; limit is the
// tokens one tool may take.
func mcpRows(s *mcp.Servers, limit int64) []mcpBreakdown {
	rows := []mcpBreakdown{}
	for _, st := range s.Status() {
		if len(st.Tools) > 0 {
			large, sent := st.Over(limit)
			row := mcpBreakdown{Server: st.Name, Tools: len(st.Tools), Tokens: sent, TooLarge: large}
			if len(large) > 0 {
				row.ToolLimit = limit
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// toolLimit is the tokens one tool may take in a request to the
// configured model (toolsearch.ToolLimit); a tool over it is never sent.
func (a *app) toolLimit() int64 {
	info, _ := a.cfg.ModelInfo(a.cfg.Model)
	return toolsearch.ToolLimit(info.ContextWindow, a.cfg.ToolSearchThreshold)
}

// mcpListTimeout bounds how long `agent context` waits for the servers
// it asks for their tools.
const mcpListTimeout = 30 * time.Second
