package main

// `agent compact --dry-run [--json]` and `agent compact --edit`: the
// compaction a user controls. --dry-run prints what a compaction would do
// now (loop.ReadPreview: read only, no request); --edit replaces the
// newest summary's text with text read from stdin, or written in $EDITOR
// when stdin is a terminal (the original stays in the database); the
// user's messages kept verbatim in the summary and the pins are never
// editable (loop.SummaryEditFile).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/loop"
)

// compactControl are compact's flags of issue 16.
type compactControl struct {
	dryRun, edit bool
}

func addCompactControlFlags(cmd *cobra.Command, c *compactControl, f *sessionFlags) {
	cmd.Flags().BoolVar(&c.dryRun, "dry-run", false, "show what a compaction would do now, without calling any model")
	cmd.Flags().BoolVar(&f.json, "json", false, "with --dry-run: print the plan as JSON")
	cmd.Flags().BoolVar(&c.edit, "edit", false, "replace the newest summary with text from stdin (or $EDITOR on a terminal)")
}

// runCompactControl runs --dry-run or --edit; handled is false when
// neither was given.
func runCompactControl(ctx context.Context, g *globalFlags, f *sessionFlags, c *compactControl, focus string, stdin io.Reader, out io.Writer) (handled bool, err error) {
	switch {
	case c.dryRun && c.edit:
		return true, usageError("--dry-run and --edit are mutually exclusive")
	case f.json && !c.dryRun:
		return true, usageError("--json goes with --dry-run")
	case c.dryRun:
		return true, compactDryRun(ctx, g, f, focus, out)
	case c.edit:
		if focus != "" {
			return true, usageError("--edit takes no focus: the new summary comes from stdin or $EDITOR")
		}
		return true, editSummary(ctx, g, f, stdin, out)
	}
	return false, nil
}

// compactDryRunOutput is the JSON of `agent compact --dry-run --json`.
type compactDryRunOutput struct {
	Session string `json:"session"`
	Focus   string `json:"focus,omitempty"`
	loop.CompactPreview
}

func compactDryRun(ctx context.Context, g *globalFlags, f *sessionFlags, focus string, out io.Writer) error {
	c, err := openCommand(ctx, g, f, sessionOpening{access: readOnly})
	if err != nil {
		return err
	}
	defer c.Close()
	a, st, id := c.a, c.st, c.id
	p, err := loop.ReadPreview(ctx, st, a.cfg, a.offeredTools(), id)
	if err != nil {
		return err
	}
	if f.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(compactDryRunOutput{Session: id, Focus: focus, CompactPreview: p})
	}
	fmt.Fprintf(out, "Compaction preview for session %s (no request sent):\n", id)
	if focus != "" {
		fmt.Fprintf(out, "  Focus: %s\n", focus)
	}
	for _, l := range p.Lines() {
		fmt.Fprintln(out, "  "+l)
	}
	return nil
}

func editSummary(ctx context.Context, g *globalFlags, f *sessionFlags, stdin io.Reader, out io.Writer) error {
	c, err := openCommand(ctx, g, f, sessionOpening{access: writing, runner: true})
	if err != nil {
		return err
	}
	defer c.Close()
	r, id := c.r, c.id
	current, _, err := r.Summary()
	if err != nil {
		return err
	}
	// Only the summary text is replaced: the user's messages it keeps
	// verbatim and the pins stay (the editor shows them below a marker,
	// read-only; from stdin they cannot be given at all).
	var text string
	if fi, ok := stdin.(*os.File); ok && toTerminal(fi) {
		text, err = editInEditor(ctx, loop.SummaryEditFile(current, r.Pins()), os.Getenv("EDITOR"))
	} else {
		var b []byte
		b, err = io.ReadAll(stdin)
		text = string(b)
	}
	if err != nil {
		return err
	}
	before, after := loop.EditableSummary(current), loop.EditableSummary(loop.SummaryFromEditFile(text))
	if after == before {
		fmt.Fprintf(out, "summary of session %s unchanged\n", id)
		return nil
	}
	if err := r.EditSummary(ctx, text); err != nil {
		return err
	}
	fmt.Fprintf(out, "summary of session %s replaced (%d → %d characters); the original stays in the database\n",
		id, len(before), len(after))
	if _, users := compact.SplitSummary(current); len(users) > 0 {
		fmt.Fprintf(out, "the %d user messages kept word for word in it stay as they were\n", len(users))
	}
	return nil
}

// editInEditor opens text in editor (a command line, as $EDITOR) on a
// temporary file and returns the file's text once the editor exits.
func editInEditor(ctx context.Context, text, editor string) (string, error) {
	if strings.TrimSpace(editor) == "" {
		return "", usageError("--edit: $EDITOR is not set and stdin is a terminal: pipe the new summary in (agent compact --edit < summary.md)")
	}
	dir, err := os.MkdirTemp("", "agent-summary-")
	if err != nil {
		return "", fmt.Errorf("edit summary: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "summary.md")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return "", fmt.Errorf("edit summary: %w", err)
	}
	cmd := editorCommand(ctx, editor, path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("edit summary: %s: %w", editor, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("edit summary: %w", err)
	}
	return string(b), nil
}

// editorCommand runs editor (which may carry arguments, "code --wait")
// on path through the shell, as $EDITOR is meant.
func editorCommand(ctx context.Context, editor, path string) *exec.Cmd {
	return exec.CommandContext(ctx, "sh", "-c", editor+` "$1"`, "editor", path)
}
