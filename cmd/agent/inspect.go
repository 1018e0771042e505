package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/snapshot"
	"github.com/ctxloop/agent/internal/storage"
	"github.com/ctxloop/agent/internal/termsafe"
)

func newInspectCmd(g *globalFlags) *cobra.Command {
	f := &sessionFlags{}
	cmd := &cobra.Command{
		Use:   "inspect",
		Short: "Show a session's conversation inspector: counts and a timeline of prunes, compactions and cache boundaries",
		Example: `  agent inspect -c
  agent inspect --session 01JX3K --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInspect(cmd.Context(), g, f, os.Stdout)
		},
	}
	addSessionFlags(cmd, f, true)
	return cmd
}

// inspection is the output of `agent inspect --json`.
type inspection struct {
	SessionID      string          `json:"session_id"`
	Title          string          `json:"title"`
	Messages       int             `json:"messages"`
	Parts          int             `json:"parts"`
	CompactedParts int             `json:"compacted_parts"`
	TruncatedParts int             `json:"truncated_outputs"`
	Summaries      int             `json:"summaries"`
	Usage          message.Usage   `json:"usage"`
	CostUSD        float64         `json:"cost_usd"`
	model          string          // the session's, to price it
	Timeline       []timelineEntry `json:"timeline"`
	// Steps are the session's model calls that reported usage, oldest
	// first: what each read from the provider's prompt cache.
	Steps []stepUsage `json:"steps"`
	// Snapshots describe the checkpoint store of the session's directory
	// (shared by its sessions); nil when checkpoints are off there.
	Snapshots *snapshotStats `json:"snapshots"`
}

// snapshotStats is the checkpoint store of a directory in `agent inspect`.
type snapshotStats struct {
	Count     int   `json:"count"`
	Sessions  int   `json:"sessions"`
	SizeBytes int64 `json:"size_bytes"`
	// Patches are the session's steps that changed files.
	Patches int `json:"patches"`
}

// stepUsage is one step's usage in `agent inspect`.
type stepUsage struct {
	MessageID string        `json:"message_id"`
	Model     string        `json:"model"`
	Usage     message.Usage `json:"usage"`
	CostUSD   float64       `json:"cost_usd"`
}

type timelineEntry struct {
	At time.Time `json:"at"`
	// Kind is prune, cache_boundary (a request that broke the prompt
	// cache's prefix, and why), compaction (a summary applied), compaction_fallback
	// (compacted without a summary), compaction_rejected,
	// compaction_failed, context_limit (the provider refused a request
	// for its size), or usage_suspect (the session's first usage report
	// ignored as implausible: reported → our count).
	Kind         string `json:"kind"`
	Parts        int    `json:"parts,omitempty"`
	TokensBefore int64  `json:"tokens_before"`
	TokensAfter  int64  `json:"tokens_after"`
	Reason       string `json:"reason,omitempty"`
	Auto         *bool  `json:"auto,omitempty"`
	// Model wrote the summary (empty for the fallback); Outcome, Attempt,
	// Error, Note and DroppedTurns describe a compaction attempt.
	Model        string `json:"model,omitempty"`
	Outcome      string `json:"outcome,omitempty"`
	Attempt      int    `json:"attempt,omitempty"`
	Error        string `json:"error,omitempty"`
	Note         string `json:"note,omitempty"`
	DroppedTurns int    `json:"dropped_turns,omitempty"`
	// Emergency: the provider forced the compaction by refusing a request
	// for its size (it runs even with compaction.auto off).
	Emergency bool `json:"emergency,omitempty"`
	// Limit is what a context_limit row learnt: the provider's stated
	// limit and prompt size, and the session's compaction point after it.
	Limit *message.ContextLimit `json:"limit,omitempty"`
	// Boundary is a cache_boundary row: a request that broke the prompt
	// cache's prefix, why (Reason) and the tools that joined then.
	Boundary *loop.CacheBoundary `json:"boundary,omitempty"`
}

func runInspect(ctx context.Context, g *globalFlags, f *sessionFlags, out io.Writer) error {
	c, err := openCommand(ctx, g, f, sessionOpening{access: readOnly})
	if err != nil {
		return err
	}
	defer c.Close()
	a, st, id := c.a, c.st, c.id
	ins, err := inspectSession(ctx, st, id)
	if err != nil {
		return err
	}
	ins.Snapshots = a.snapshotStats(ctx, st, id)
	if f.json {
		// JSON escapes control characters itself: the title stays as stored.
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(ins)
	}
	fmt.Fprintf(out, "Session %s  %s\n", ins.SessionID, termsafe.Strip(oneLine(ins.Title, 60)))
	fmt.Fprintf(out, "  messages %d, parts %d, compacted parts %d, truncated outputs %d, summaries %d\n",
		ins.Messages, ins.Parts, ins.CompactedParts, ins.TruncatedParts, ins.Summaries)
	fmt.Fprintf(out, "  usage: input %d (cached %d), output %d (reasoning %d), cost %s\n",
		ins.Usage.Input, ins.Usage.CachedInput, ins.Usage.Output, ins.Usage.Reasoning, costText(a.cfg, ins.model, ins.CostUSD))
	if len(ins.Steps) > 0 {
		fmt.Fprintf(out, "  prompt cache: %s\n", cacheLine(ins.Usage, ins.Steps))
	}
	if sn := ins.Snapshots; sn != nil {
		fmt.Fprintf(out, "  checkpoints: %d steps changed files; the directory's store holds %d snapshots of %d sessions, %s\n",
			sn.Patches, sn.Count, sn.Sessions, formatBytes(sn.SizeBytes))
	} else {
		fmt.Fprintln(out, "  checkpoints: off")
	}
	return printTimeline(out, ins)
}

// printTimeline prints the timeline of inspect's text output.
func printTimeline(out io.Writer, ins *inspection) error {
	if len(ins.Timeline) == 0 {
		fmt.Fprintln(out, "  no prunes or compactions yet")
		return nil
	}
	fmt.Fprintln(out, "Timeline:")
	for _, e := range ins.Timeline {
		if e.Boundary != nil { // no tokens before and after
			fmt.Fprintf(out, "  %s  %-20s %17s %s\n", e.At.Local().Format("2006-01-02 15:04:05"), e.Kind, "", timelineDetail(e))
			continue
		}
		fmt.Fprintf(out, "  %s  %-20s %7d → %-7d %s\n", e.At.Local().Format("2006-01-02 15:04:05"), e.Kind, e.TokensBefore, e.TokensAfter, timelineDetail(e))
	}
	return nil
}

// cacheLine tells the session's share of input read from the prompt
// cache, its cache writes, and the cached tokens of the last steps.
func cacheLine(total message.Usage, steps []stepUsage) string {
	share := 0
	if total.Input > 0 {
		share = int(100 * total.CachedInput / total.Input)
	}
	line := fmt.Sprintf("%d%% of the input read from the cache, %d tokens written", share, total.CacheWrite)
	const last = 5
	var per []string
	for _, s := range steps[max(0, len(steps)-last):] {
		per = append(per, fmt.Sprintf("%d/%d", s.Usage.CachedInput, s.Usage.Input))
	}
	return line + "; cached/input of the last steps: " + strings.Join(per, " ")
}

// timelineDetail is the last column of a timeline row: for a compaction
// attempt its reason, the model that wrote it and why it was not applied.
func timelineDetail(e timelineEntry) string {
	switch e.Kind {
	case "prune":
		return fmt.Sprintf("%d outputs cleared", e.Parts)
	case loop.CacheBoundaryKind:
		return boundaryDetail(e)
	case "usage_suspect":
		return "usage reported far from our count of the request: such reports are ignored, the total estimated (agent context)"
	case "context_limit":
		d := "refused by the provider"
		if l := e.Limit; l != nil {
			if l.StatedLimit > 0 {
				d += fmt.Sprintf(", limit %d", l.StatedLimit)
			}
			if l.StatedPrompt > 0 {
				d += fmt.Sprintf(", request %d", l.StatedPrompt)
			}
			d += fmt.Sprintf("; calculator said %d; compaction point now %d", l.CalculatorTotal, l.CompactAt)
		}
		return termsafe.Strip(d)
	}
	d := e.Reason
	if e.Emergency {
		d = "emergency (" + e.Reason + ")"
	}
	if e.Model != "" {
		d += " by " + e.Model
	}
	switch {
	case e.Note != "":
		d += ": " + e.Note
	case e.Error != "":
		d += ": " + e.Error
	}
	return termsafe.Strip(oneLine(d, 120))
}

func inspectSession(ctx context.Context, st *storage.Store, id string) (*inspection, error) {
	sess, err := st.GetSession(ctx, id)
	if err != nil {
		return nil, err
	}
	stats, err := st.SessionStats(ctx, id)
	if err != nil {
		return nil, err
	}
	log, err := st.ListEventLog(ctx, id)
	if err != nil {
		return nil, err
	}
	ins := &inspection{SessionID: sess.ID, model: sess.Model, Title: sess.Title, Messages: stats.Messages, Parts: stats.Parts,
		CompactedParts: stats.CompactedParts, TruncatedParts: stats.TruncatedParts, Summaries: stats.Summaries,
		Usage: sess.Usage, CostUSD: sess.CostUSD, Timeline: []timelineEntry{}, Steps: []stepUsage{}}
	msgs, err := st.ListMessages(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, m := range msgs {
		if m.Role == message.RoleAssistant && !m.Usage.IsZero() {
			ins.Steps = append(ins.Steps, stepUsage{MessageID: m.ID, Model: m.Model, Usage: m.Usage, CostUSD: m.CostUSD})
		}
	}
	for _, l := range log {
		switch l.Kind {
		case "prune":
			var p message.PruneInfo
			if json.Unmarshal(l.Data, &p) == nil {
				ins.Timeline = append(ins.Timeline, timelineEntry{At: l.At, Kind: l.Kind, Parts: p.Parts,
					TokensBefore: p.TokensBefore, TokensAfter: p.TokensAfter})
			}
		case "compaction", "compaction_rejected", "compaction_failed", "compaction_fallback":
			var c message.CompactionState
			if json.Unmarshal(l.Data, &c) == nil {
				auto := c.Auto
				ins.Timeline = append(ins.Timeline, timelineEntry{At: l.At, Kind: l.Kind, Reason: c.Reason,
					TokensBefore: c.TokensBefore, TokensAfter: c.TokensAfter, Auto: &auto,
					Model: c.Model, Outcome: c.Outcome, Attempt: c.Attempt, Error: c.Error, Note: c.Note, DroppedTurns: c.DroppedTurns, Emergency: c.Emergency})
			}
		case "usage_suspect":
			// The session's first usage report far from our count of the
			// request: TokensBefore is the report, TokensAfter the count
			// the calculator used instead.
			var n loop.UsageSuspectNote
			if json.Unmarshal(l.Data, &n) == nil {
				ins.Timeline = append(ins.Timeline, timelineEntry{At: l.At, Kind: l.Kind,
					TokensBefore: n.Reported, TokensAfter: n.Estimate})
			}
		case loop.CacheBoundaryKind:
			var b loop.CacheBoundary
			if json.Unmarshal(l.Data, &b) == nil {
				ins.Timeline = append(ins.Timeline, timelineEntry{At: l.At, Kind: l.Kind, Reason: b.Reason, Model: b.Model, Boundary: &b})
			}
		case "context_limit":
			var c message.ContextLimit
			if json.Unmarshal(l.Data, &c) == nil {
				ins.Timeline = append(ins.Timeline, timelineEntry{At: l.At, Kind: l.Kind, Model: c.Model,
					TokensBefore: c.RefusedEstimate, TokensAfter: c.CompactAt, Limit: &c})
			}
		}
	}
	return ins, nil
}

// snapshotStats measures the checkpoint store of the session's directory;
// nil when checkpoints are off there.
func (a *app) snapshotStats(ctx context.Context, st *storage.Store, id string) *snapshotStats {
	sess, err := st.GetSession(ctx, id)
	if err != nil || sess.Dir == "" {
		return nil
	}
	if _, err := os.Stat(sess.Dir); err != nil {
		return nil
	}
	if snapshot.DiskBytes(a.cfg.DataDir, sess.Dir) == 0 {
		return nil // no store: a read-only command creates none
	}
	snaps, err := a.openSnapshots(ctx, sess.Dir)
	if err != nil {
		return nil
	}
	stats, err := snaps.Stats(ctx)
	if err != nil {
		return nil
	}
	out := &snapshotStats{Count: stats.Snapshots, Sessions: stats.Sessions, SizeBytes: stats.SizeBytes}
	if hist, err := st.LoadHistory(ctx, id); err == nil {
		for _, e := range hist {
			for _, p := range e.Parts {
				if p.Type == message.PartPatch {
					out.Patches++
				}
			}
		}
	}
	return out
}

// formatBytes writes a size briefly: 512 B, 3.4 KiB, 12 MiB.
func formatBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}
