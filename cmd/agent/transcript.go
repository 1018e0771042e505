package main

// The Markdown transcript of a session, for `agent sessions show` (long
// tool outputs and reasoning clipped) and `agent sessions export` (all of
// it). It shows what the user and the model said (and, marked as the
// agent's, the git status it sent with a message), every tool call with its
// input and output, and where compactions happened; step bookkeeping
// parts are left out. Nothing here sanitises: the caller strips terminal
// controls when the transcript goes to a terminal.

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
)

// transcriptOptions say how much of a session a transcript shows.
type transcriptOptions struct {
	// full keeps tool outputs and reasoning whole; otherwise they are
	// clipped to clipLines lines and clipChars characters.
	full bool
	// cfg prices the session's model: without a price its cost is
	// "unknown" (nil: printed as stored).
	cfg *config.Config
}

// Clipping of tool outputs, tool inputs and reasoning in a short
// transcript.
const (
	clipLines = 20
	clipChars = 2000
)

// writeTranscript writes the session's transcript in Markdown.
func writeTranscript(w io.Writer, s *message.Session, hist []message.Entry, opt transcriptOptions) error {
	var b strings.Builder
	title := s.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(&b, "# %s\n\n", oneLine(title, 200))
	fmt.Fprintf(&b, "- session: `%s`\n", s.ID)
	fmt.Fprintf(&b, "- directory: `%s`\n", s.Dir)
	fmt.Fprintf(&b, "- model: %s\n", s.Model)
	fmt.Fprintf(&b, "- created %s, updated %s\n", stamp(s.CreatedAt), stamp(s.UpdatedAt))
	fmt.Fprintf(&b, "- %d messages; tokens in %d, out %d; cost %s\n", len(hist), s.Usage.Input, s.Usage.Output, costText(opt.cfg, s.Model, s.CostUSD))
	for _, e := range hist {
		writeEntry(&b, e, opt)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeEntry(b *strings.Builder, e message.Entry, opt transcriptOptions) {
	m := e.Message
	switch {
	case m.Role == message.RoleUser && isCompactionMarker(e):
		for _, p := range e.Parts {
			if p.Type == message.PartCompaction && p.Compaction != nil {
				writeCompaction(b, m, p.Compaction)
			}
		}
		return
	case m.Role == message.RoleUser && m.Synthetic:
		fmt.Fprintf(b, "\n## User (automatic) · %s\n", stamp(m.CreatedAt))
	case m.Role == message.RoleUser:
		fmt.Fprintf(b, "\n## User · %s\n", stamp(m.CreatedAt))
	case m.Summary:
		fmt.Fprintf(b, "\n## Summary · %s · %s\n\n_Written by a compaction; the model saw this instead of the messages above it._\n", m.Model, stamp(m.CreatedAt))
	default:
		fmt.Fprintf(b, "\n## Assistant · %s · %s\n", m.Model, stamp(m.CreatedAt))
	}
	for _, p := range e.Parts {
		switch p.Type {
		case message.PartText:
			if strings.TrimSpace(p.Text) != "" {
				fmt.Fprintf(b, "\n%s\n", strings.TrimRight(p.Text, "\n"))
			}
		case message.PartReasoning:
			writeReasoning(b, p.Text, opt)
		case message.PartTool:
			if p.Tool != nil {
				writeTool(b, p.Tool, opt)
			}
		case message.PartCompaction:
			if p.Compaction != nil {
				writeCompaction(b, m, p.Compaction)
			}
		case message.PartPatch:
			if p.Patch != nil {
				writePatch(b, p.Patch)
			}
		case message.PartFile:
			if f := p.File; f != nil && f.Kind == message.AttachEnv {
				b.WriteString("\n_Sent by the agent with this message: the git status, changed since the model was last told it._\n")
				writeFenced(b, "", f.Content)
			}
		}
	}
	if m.Rewound() {
		fmt.Fprintf(b, "\n_Taken back by a rewind (%s); not sent to the model._\n", m.RewindID)
	}
	if m.Error != "" {
		fmt.Fprintf(b, "\n**Error:** %s\n", oneLine(m.Error, 500))
	}
}

// isCompactionMarker reports whether a user message only records a
// compaction.
func isCompactionMarker(e message.Entry) bool {
	if len(e.Parts) == 0 {
		return false
	}
	for _, p := range e.Parts {
		if p.Type != message.PartCompaction {
			return false
		}
	}
	return true
}

func writeCompaction(b *strings.Builder, m message.Message, c *message.CompactionState) {
	kind := "manual"
	switch {
	case c.Emergency:
		kind = "emergency"
	case c.Auto:
		kind = "automatic"
	}
	fmt.Fprintf(b, "\n---\n\n**Compaction** (%s", kind)
	if c.Reason != "" && c.Reason != kind {
		fmt.Fprintf(b, ", %s", c.Reason)
	}
	fmt.Fprintf(b, ") · %s: %d → %d tokens", stamp(m.CreatedAt), c.TokensBefore, c.TokensAfter)
	if c.Rejected {
		b.WriteString(" · **rejected** (the summary did not shrink the context)")
	}
	b.WriteString("\n")
	if c.Focus != "" {
		fmt.Fprintf(b, "\nFocus: %s\n", oneLine(c.Focus, 500))
	}
	b.WriteString("\n---\n")
}

func writeReasoning(b *strings.Builder, text string, opt transcriptOptions) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	text, omitted := clip(text, opt.full)
	b.WriteString("\n> **Reasoning**\n>\n")
	for _, line := range strings.Split(text, "\n") {
		fmt.Fprintf(b, "> %s\n", line)
	}
	if omitted != "" {
		fmt.Fprintf(b, ">\n> _%s_\n", omitted)
	}
}

func writeTool(b *strings.Builder, t *message.ToolState, opt transcriptOptions) {
	fmt.Fprintf(b, "\n**Tool `%s`**", t.Name)
	if t.Title != "" {
		fmt.Fprintf(b, " · %s", oneLine(t.Title, 120))
	}
	fmt.Fprintf(b, " · %s", t.Status)
	if !t.StartedAt.IsZero() && !t.EndedAt.IsZero() {
		fmt.Fprintf(b, " in %s", t.EndedAt.Sub(t.StartedAt).Round(time.Millisecond))
	}
	b.WriteString("\n")
	if t.Input != "" {
		lang, input := toolInput(t)
		input, omitted := clip(input, opt.full)
		writeFenced(b, lang, input)
		if omitted != "" {
			fmt.Fprintf(b, "_%s_\n", omitted)
		}
	}
	output := t.Output
	if t.RawOutput != "" && opt.full {
		output = t.RawOutput
	}
	if output != "" {
		output, omitted := clip(strings.TrimRight(output, "\n"), opt.full)
		b.WriteString("\nOutput:\n")
		writeFenced(b, "", output)
		if omitted != "" {
			fmt.Fprintf(b, "_%s_\n", omitted)
		}
	}
	if t.Truncated && t.FullOutputPath != "" {
		fmt.Fprintf(b, "\n_The model was given a truncated output; the full output was saved to `%s`._\n", t.FullOutputPath)
	}
	if !t.CompactedAt.IsZero() {
		fmt.Fprintf(b, "\n_Pruned from the model's context on %s._\n", stamp(t.CompactedAt))
	}
}

// toolInput renders a tool call's input: a bash command as shell, other
// inputs as indented JSON.
func toolInput(t *message.ToolState) (lang, text string) {
	if t.Name == "bash" {
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal([]byte(t.Input), &in) == nil && in.Command != "" {
			return "sh", in.Command
		}
	}
	var v any
	if json.Unmarshal([]byte(t.Input), &v) == nil {
		if out, err := json.MarshalIndent(v, "", "  "); err == nil {
			return "json", string(out)
		}
	}
	return "", t.Input
}

// writeFenced writes text as a fenced code block whose fence is longer
// than any run of backticks inside it, so no content can close it early.
func writeFenced(b *strings.Builder, lang, text string) {
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	fmt.Fprintf(b, "\n%s%s\n%s\n%s\n", fence, lang, text, fence)
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

// clip keeps the first clipLines lines and clipChars characters of s
// unless full is set, and says what it left out.
func clip(s string, full bool) (kept, omitted string) {
	if full {
		return s, ""
	}
	lines := strings.Count(s, "\n") + 1
	cut := s
	if lines > clipLines {
		idx := 0
		for range clipLines {
			idx += strings.IndexByte(cut[idx:], '\n') + 1
		}
		cut = cut[:idx-1]
	}
	if len(cut) > clipChars {
		n := clipChars
		for n > 0 && !utf8.RuneStart(cut[n]) { // do not split a rune
			n--
		}
		cut = cut[:n]
	}
	if cut == s {
		return s, ""
	}
	rest := s[len(cut):]
	restLines := strings.Count(strings.TrimPrefix(rest, "\n"), "\n") + 1
	return cut, fmt.Sprintf("… %d more characters (%d lines) not shown; `agent sessions show --full` shows all", len(rest), restLines)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// writePatch lists the files a step changed, with their line counts.
func writePatch(b *strings.Builder, p *message.PatchState) {
	added, deleted := p.Lines()
	fmt.Fprintf(b, "\n**Files changed** (%d, +%d −%d):\n\n", len(p.Files), added, deleted)
	for _, f := range p.Files {
		counts := fmt.Sprintf("+%d −%d", f.LinesAdded, f.LinesDeleted)
		if f.Binary {
			counts = "binary"
		}
		mode := ""
		if f.OldMode != "" {
			mode = fmt.Sprintf(", mode %s → %s", f.OldMode, f.NewMode)
		}
		fmt.Fprintf(b, "- `%s` %s (%s%s)\n", f.Path, f.Status, counts, mode)
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(b, "- `%s` not checkpointed: %s\n", s.Path, s.Reason)
	}
	for _, l := range p.Lost {
		fmt.Fprintf(b, "- not restorable: %s\n", loop.DescribeLost(l))
	}
	for _, o := range p.Outside {
		fmt.Fprintf(b, "- `%s` %s, not the agent's: %s\n", o.Path, o.Status, o.Why)
	}
}
