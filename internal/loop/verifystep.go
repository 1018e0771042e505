package loop

// The check before "done": a turn that ended on its own after changing
// files, with no build or test run after the last change (the rules of
// internal/verify), gets one more step. A synthetic user message
// (verify.Prompt) asks the model to run the project's tests or build, or
// to say why it cannot; an EventGuard of kind "verify" announces it. The
// step counts within the turn's step limit and its cost like any other;
// a turn asks at most once (the message is in its history), never with
// config verify off, and only in a directory with something to verify:
// one of verify.Markers (go.mod, Makefile, package.json, AGENTS.md, …),
// or the user's verify.commands set.
//
// What changed files: a write or an edit that succeeded, and any other
// bash call of a step whose checkpoint recorded changed files. Without
// checkpoints only writes and edits count.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/verify"
)

// verifyDeps is what the check works with.
type verifyDeps struct {
	cfg          config.Verify
	dir          string // the session's directory, where verify.Markers are looked for
	session      func() string
	emit         func(message.Event)
	history      func() []message.Entry
	addSynthetic func(ctx context.Context, text string) error
	// turn runs one turn of steps; maxSteps bounds a turn, and
	// stepsBefore (the hooks' count, owned by the loop goroutine) counts
	// the steps already taken when a turn is continued.
	turn        func(context.Context) TurnResult
	maxSteps    int
	stepsBefore *int
}

// verifiedTurn runs a turn and, when it needs the check, one more turn
// of steps after the check's message.
func verifiedTurn(ctx context.Context, d verifyDeps) TurnResult {
	res := d.turn(ctx)
	if !d.cfg.Enabled || !endedOnItsOwn(res) || *d.stepsBefore+res.Steps >= d.maxSteps {
		return res
	}
	if len(d.cfg.Commands) == 0 && !hasMarker(d.dir) || !verify.Needed(turnCalls(d.history(), d.cfg.Commands), d.cfg.Commands) {
		return res
	}
	return continueTurn(ctx, d, res, "verify", verify.Prompt)
}

// continueTurn goes on with a turn that ended as res: it announces a
// guard of kind with text (an EventGuard), stores text as a synthetic
// user message, and runs one more turn of steps within the turn's limit.
func continueTurn(ctx context.Context, d verifyDeps, res TurnResult, kind, text string) TurnResult {
	d.emit(message.Event{Type: message.EventGuard, SessionID: d.session(), Guard: &message.Guard{Kind: kind, Text: text}})
	if err := d.addSynthetic(ctx, text); err != nil {
		return TurnResult{FinishReason: FinishError, Err: err, Steps: res.Steps}
	}
	before := *d.stepsBefore
	*d.stepsBefore = before + res.Steps
	defer func() { *d.stepsBefore = before }()
	next := d.turn(ctx)
	next.Steps += res.Steps
	return next
}

// hasMarker reports whether dir holds one of verify.Markers.
func hasMarker(dir string) bool {
	for _, name := range verify.Markers {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// turnCalls are the tool calls of the newest turn of history (after the
// last message the user wrote), in order, as internal/verify reads them.
func turnCalls(history []message.Entry, own []string) []verify.Call {
	start := 0
	for i := len(history) - 1; i >= 0; i-- {
		if m := history[i].Message; m.Role == message.RoleUser && !m.Synthetic {
			start = i + 1
			break
		}
	}
	var calls []verify.Call
	for _, e := range history[start:] {
		if e.Message.Role == message.RoleUser {
			if strings.HasPrefix(entryText(e), verify.Marker) {
				calls = append(calls, verify.Call{Asked: true})
			}
			continue
		}
		patched := false
		for _, p := range e.Parts {
			if p.Type == message.PartPatch && p.Patch != nil && len(p.Patch.Files) > 0 {
				patched = true
			}
		}
		for _, p := range e.Parts {
			if p.Type != message.PartTool || p.Tool == nil {
				continue
			}
			t := p.Tool
			ok := t.Status == message.ToolCompleted
			switch t.Name {
			case "write", "edit":
				calls = append(calls, verify.Call{Changed: ok})
			case "bash":
				var in struct {
					Command string `json:"command"`
				}
				_ = json.Unmarshal([]byte(t.Input), &in)
				calls = append(calls, verify.Call{Command: in.Command, Changed: patched && !verify.Ran(in.Command, own)})
			}
		}
	}
	return calls
}
