package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
)

func newCompactCmd(g *globalFlags) *cobra.Command {
	f := &sessionFlags{}
	var undo bool
	c := &compactControl{}
	cmd := &cobra.Command{
		Use:   "compact [--session ID | -c] [--undo | FOCUS...]",
		Short: "Summarise a session now, with optional focus instructions",
		Long: `compact asks the model (small_model when set) to summarise the session's
history so far, keeping the user's instructions and recent turns verbatim,
exactly like /compact in the chat. FOCUS tells the summary what matters.
When there is nothing worth summarising yet (a conversation shorter than a
summary of it would be) it says so and why, asks for nothing and exits 0.

With --undo (the /compact undo of the chat) it restores the history as it
was before the newest compaction: the summary is kept but no longer sent,
and the messages it replaced are sent again. With no compaction in force it
restores the tool outputs pruning cleared. Either only when the history then
fits the model (--model switches the session's model first); otherwise it
says by how much it does not.`,
		Example: `  agent compact -c
  agent compact --session 01JX3K "keep the failing test names and the plan"
  agent compact --undo -c --model gpt-4.1
  agent compact --dry-run --json
  agent compact --edit < summary.md`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if undo {
				if len(args) > 0 {
					return usageError("compact --undo takes no focus instructions")
				}
				return runUndoCompact(cmd.Context(), g, f)
			}
			if ok, err := runCompactControl(cmd.Context(), g, f, c, strings.Join(args, " "), os.Stdin, cmd.OutOrStdout()); ok {
				return err
			}
			return runCompact(cmd.Context(), g, f, strings.Join(args, " "))
		},
	}
	addSessionFlags(cmd, f, false)
	cmd.Flags().BoolVar(&undo, "undo", false, "restore the history as it was before the newest compaction (or the pruned outputs)")
	addCompactControlFlags(cmd, c, f)
	return cmd
}

func runUndoCompact(ctx context.Context, g *globalFlags, f *sessionFlags) error {
	c, err := openCommand(ctx, g, f, sessionOpening{access: driving, model: true, runner: true})
	if err != nil {
		return err
	}
	defer c.Close()
	r, id := c.r, c.id
	u, err := r.UndoCompaction(ctx)
	if err != nil {
		return err
	}
	if u.Kind == "compaction" {
		fmt.Printf("undid the compaction of session %s: the summary is no longer sent, the history before it is; ~%d → ~%d tokens\n", id, u.TokensBefore, u.TokensAfter)
	} else {
		fmt.Printf("restored %d cleared tool outputs of session %s: ~%d → ~%d tokens\n", u.Parts, id, u.TokensBefore, u.TokensAfter)
	}
	return nil
}

func runCompact(ctx context.Context, g *globalFlags, f *sessionFlags, focus string) error {
	ctx, stop := interruptible(ctx)
	defer stop()
	c, err := openCommand(ctx, g, f, sessionOpening{access: driving, model: true, runner: true})
	if err != nil {
		return err
	}
	defer c.Close()
	r, id := c.r, c.id
	before := r.Reading()
	seen := len(r.History())
	defer func() { printAttempts(os.Stderr, r.History()[seen:]) }()
	if err := r.Compact(ctx, focus); err != nil {
		if ctx.Err() != nil {
			return &exitError{code: exitInterrupted, err: fmt.Errorf("interrupted")}
		}
		if errors.Is(err, loop.ErrNothingToCompact) {
			// Nothing to do is not a failure: say so, and why.
			fmt.Println(termsafe.Strip(err.Error()))
			return nil
		}
		return err
	}
	after := r.Reading()
	fmt.Printf("compacted session %s: %d → ~%d tokens\n", id, before.Total, after.Total)
	return nil
}

// printAttempts says on w what each compaction attempt in entries (the
// history a compaction added) came to, as `agent run` does: a failed or
// rejected summary with its reason, a model-free fallback with its note.
func printAttempts(w io.Writer, entries []message.Entry) {
	for _, e := range entries {
		if len(e.Parts) != 1 || e.Parts[0].Compaction == nil {
			continue
		}
		c := e.Parts[0].Compaction
		switch {
		case c.Rejected:
			fmt.Fprintf(w, "· compaction %s: %s\n", c.Outcome, termsafe.Strip(c.Error))
		case c.Outcome == message.CompactionFallback:
			note := ""
			if c.Note != "" {
				note = "; " + termsafe.Strip(c.Note)
			}
			fmt.Fprintf(w, "· compaction %s (no model): %d → %d tokens%s\n", c.Outcome, c.TokensBefore, c.TokensAfter, note)
		}
	}
}
