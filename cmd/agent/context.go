package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/mcp"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
	"github.com/ctxloop/agent/internal/toolsearch"
)

type sessionFlags struct {
	session string
	cont    bool
	json    bool
}

func addSessionFlags(cmd *cobra.Command, f *sessionFlags, withJSON bool) {
	cmd.Flags().StringVar(&f.session, "session", "", "session id (or a unique prefix)")
	cmd.Flags().BoolVarP(&f.cont, "continue", "c", false, "the latest session of this directory (the default)")
	if withJSON {
		cmd.Flags().BoolVar(&f.json, "json", false, "print JSON")
	}
}

func newContextCmd(g *globalFlags) *cobra.Command {
	f := &sessionFlags{}
	cmd := &cobra.Command{
		Use:   "context",
		Short: "Show where a session's context tokens go",
		Long: `context prints the token calculator's reading of a session: the same
total the status bar shows and compaction decides on, how it was computed
(last call's input and output plus an estimate of what came after), and
its breakdown into system prompt, tool schemas and messages, and the
status line's prompt-cache figures (JSON cache: last_hit_rate and
session_cached_share, shares in [0, 1]; null until a step read or wrote
the cache).`,
		Example: `  agent context
  agent context --session 01JX3K --json | jq .total`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return showContext(cmd.Context(), g, f, os.Stdout)
		},
	}
	addSessionFlags(cmd, f, true)
	return cmd
}

func showContext(ctx context.Context, g *globalFlags, f *sessionFlags, out io.Writer) error {
	c, err := openCommand(ctx, g, f, sessionOpening{access: readOnly})
	if err != nil {
		return err
	}
	defer c.Close()
	a, st, id := c.a, c.st, c.id
	reg, rows := contextTools(ctx, a)
	reading, restore, sess, err := loop.ReadContext(ctx, st, a.cfg, reg, id)
	if err != nil {
		return err
	}
	reading.Breakdown.PromptLines.Skills = a.skillsRow(sess.Dir) // skills.go
	msgs, err := st.ListMessages(ctx, id)
	if err != nil {
		return err
	}
	cs := contextReport{Reading: reading, RestoreCost: restore, sessionUsage: sess.Usage}
	cs.Breakdown = contextBreakdown{Breakdown: reading.Breakdown, MCP: rows}
	cs.lastUsage = lastStepUsage(msgs)
	cs.Cache = message.CacheFiguresOf(cs.lastUsage, cs.sessionUsage)
	if a.cfg.Compaction.Prune {
		p := loop.PruneThresholds(a.cfg.Compaction, reading)
		cs.PruneProtect, cs.PruneMinimum = p.Protect, p.Minimum
	}
	if f.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(cs)
	}
	fmt.Fprint(out, formatContextReport(cs))
	return nil
}

// contextReport is the output of `agent context`: the calculator's
// reading and the prune thresholds in effect (0 when pruning is off).
type contextReport struct {
	tokens.Reading
	// Breakdown adds the MCP servers' rows to the reading's.
	Breakdown    contextBreakdown `json:"breakdown"`
	PruneProtect int64            `json:"prune_protect"`
	PruneMinimum int64            `json:"prune_minimum"`
	// undo_tokens and restore_tokens: the request after `agent compact
	// --undo` (null: nothing to undo) and with everything restored.
	loop.RestoreCost
	// Cache: the prompt-cache figures of the status line (null before a
	// step read or wrote the cache).
	Cache *message.CacheFigures `json:"cache"`
	// lastUsage and sessionUsage are the usages Cache comes from.
	lastUsage, sessionUsage message.Usage
}

// contextBreakdown is the reading's breakdown with a row per MCP server
// whose tools are offered: the tokens of its tool schemas, which
// breakdown.tools includes.
type contextBreakdown struct {
	tokens.Breakdown
	MCP []mcpBreakdown `json:"mcp"`
}

// contextTools are the tools a session of this directory offers: the
// built-in ones and those of the configured MCP servers, which are asked
// (each within its startup timeout), and the servers' rows.
func contextTools(ctx context.Context, a *app) (*tools.Registry, []mcpBreakdown) {
	reg := a.offeredTools()
	if len(a.cfg.MCP) == 0 {
		return reg, []mcpBreakdown{}
	}
	servers := mcp.Start(ctx, a.cfg.MCP, a.mcpOptions())
	defer servers.Close()
	wctx, cancel := context.WithTimeout(ctx, mcpListTimeout)
	defer cancel()
	_ = servers.Wait(wctx)
	// A tool over the limit of one tool is never sent (toolsearch.ToolLimit).
	limit := a.toolLimit()
	var sent []tools.Tool
	for _, t := range servers.Tools() {
		if !toolsearch.TooLarge(t, limit) {
			sent = append(sent, t)
		}
	}
	return reg.With(sent...), mcpRows(servers, limit)
}

// lastStepUsage is the usage of the newest step with input, compactions
// aside, as the TUI keeps it for the status line.
func lastStepUsage(msgs []message.Message) message.Usage {
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Role == message.RoleAssistant && !m.Summary && m.Usage.Input > 0 {
			return m.Usage
		}
	}
	return message.Usage{}
}

// formatContextReport renders `agent context` for people.
func formatContextReport(c contextReport) string {
	s := FormatReading(c.Reading)
	for _, r := range c.Breakdown.MCP {
		s += fmt.Sprintf("  of the tool schemas, MCP server %s: %d tokens (%d tools)\n", r.Server, r.Tokens, r.Tools)
		if len(r.TooLarge) > 0 {
			s += fmt.Sprintf("    never sent, each over the %d tokens one tool may take: %s\n", r.ToolLimit, strings.Join(r.TooLarge, ", "))
		}
	}
	if c.PruneProtect > 0 {
		s += fmt.Sprintf("Prune keeps the newest %d tokens of tool outputs and clears older ones when that saves more than %d\n", c.PruneProtect, c.PruneMinimum)
	} else {
		s += "Pruning is off\n"
	}
	if c.Cache != nil {
		s += fmt.Sprintf("Prompt cache: last step %d%% of its input read from the cache, session %d%%\n",
			c.lastUsage.CachedPercent(), c.sessionUsage.CachedPercent())
	} else {
		s += "Prompt cache: nothing read or written yet\n"
	}
	if c.Undo != nil {
		s += fmt.Sprintf("Undoing the last compaction (agent compact --undo) would make it ~%d tokens; restoring everything, ~%d\n", *c.Undo, c.Full)
	}
	return s
}

// FormatReading renders the calculator's reading for people.
func FormatReading(s tokens.Reading) string {
	var b strings.Builder
	approx := ""
	if s.Basis == tokens.BasisEstimated {
		approx = "~"
	}
	pct := func(n int64) string {
		if s.Window == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(s.Window))
	}
	fmt.Fprintf(&b, "Context: %s%d of %d tokens (%s), basis %s\n", approx, s.Total, s.Window, pct(s.Total), s.Basis)
	fmt.Fprintf(&b, "  system prompt  %8d  %-6s %s\n", s.Breakdown.System, pct(s.Breakdown.System), s.Labels.System)
	for _, l := range s.Breakdown.PromptLines.Named() {
		fmt.Fprintf(&b, "    of which %s guidance %d\n", l.Name, l.Tokens)
	}
	fmt.Fprintf(&b, "  tool schemas   %8d  %-6s %s\n", s.Breakdown.Tools, pct(s.Breakdown.Tools), s.Labels.Tools)
	fmt.Fprintf(&b, "  messages       %8d  %-6s %s\n", s.Breakdown.Messages, pct(s.Breakdown.Messages), s.Labels.Messages)
	fmt.Fprintf(&b, "    of which reasoning %d  %s\n", s.Breakdown.Reasoning, reasoningNote(s))
	if s.Breakdown.Pins > 0 {
		fmt.Fprintf(&b, "  pins           %8d  %-6s %s\n", s.Breakdown.Pins, pct(s.Breakdown.Pins), s.Labels.Pins)
	}
	if s.Breakdown.Todo > 0 {
		fmt.Fprintf(&b, "  todo list      %8d  %-6s %s\n", s.Breakdown.Todo, pct(s.Breakdown.Todo), s.Labels.Todo)
	}
	fmt.Fprintf(&b, "  output reserve %8d  %s\n", s.OutputReserve, pct(s.OutputReserve))
	fmt.Fprintf(&b, "  free           %8d  %s\n", s.Free, pct(s.Free))
	limit := ""
	if s.InputLimit != nil {
		limit = fmt.Sprintf(", input limit %d", *s.InputLimit)
	}
	if s.CompactAt > 0 {
		fmt.Fprintf(&b, "Compaction at %d tokens (%s%s)\n", s.CompactAt, pct(s.CompactAt), limit)
	} else {
		b.WriteString("Automatic compaction is off\n")
	}
	if s.Basis == tokens.BasisActual {
		fmt.Fprintf(&b, "Computed: last input %d + last output %d + new since %d\n", s.LastInput, s.LastOutput, s.NewEstimate)
	} else {
		fmt.Fprintf(&b, "Computed: system %d + tools %d + estimate of the history %d\n", s.Breakdown.System, s.Breakdown.Tools, s.NewEstimate)
	}
	if s.EstimateError != nil {
		fmt.Fprintf(&b, "Last estimate error: %+.1f%%\n", 100**s.EstimateError)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// reasoningNote labels the reasoning row: estimated when the model takes
// its reasoning back, else none is sent.
func reasoningNote(s tokens.Reading) string {
	if s.Labels.Reasoning == tokens.LabelEstimated {
		return tokens.LabelEstimated
	}
	return "(not sent back to this model)"
}
