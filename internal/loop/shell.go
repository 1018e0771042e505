package loop

// !command (issue 17): a line typed as "!ls -la" runs in the session's
// directory through the bash tool — its timeout, output cap and
// truncation notice, the agent's secrets kept out of its environment, its
// process group stopped on cancel — with no model call. It is the user's
// own command, typed at their prompt like in a terminal, so no permission
// is asked (the permission rules govern what the model asks to run). Its
// output is stored as a user message of its own holding one command
// attachment, so it is in the next request as context, counted and
// compacted like any message, and the transcript shows it as a tool card.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// RunShell runs command for the user (!command) and adds its output to the
// conversation. It fails while a turn runs: the output would land in the
// middle of the model's step. progress, when not nil, gets the command's
// last lines while it runs (bash's Call.Progress: at most 10 a second,
// from another goroutine). Cancelling ctx stops the command's process
// group; what it printed until then is kept.
func (r *Runner) RunShell(ctx context.Context, command string, progress func(lastLines string)) (*message.FileState, error) {
	command = strings.TrimSpace(command)
	if command == "" {
		return nil, errors.New("run !command: empty command")
	}
	if !r.turns.claim() {
		return nil, errors.New("run !command: the agent is busy; wait for the turn to end or press esc")
	}
	defer r.turns.release()
	input, _ := json.Marshal(map[string]string{"command": command})
	release := func() {}
	started := func(g tools.ProcessGroup) { release = r.opt.Children.Record(g, "!"+command) }
	res := r.stepper.registry().Run(ctx, r.toolEnv, tools.Call{ID: "user-command", Name: "bash", Input: input, Progress: progress, Started: started})
	release() // bash has ended, and its group was stopped
	f := &message.FileState{Kind: message.AttachCommand, Path: command, Content: res.Output, Truncated: res.Truncated, IsError: res.IsError}
	// A stopped command's output is kept: the writes outlive ctx.
	ctx = context.WithoutCancel(ctx)
	m := message.Message{SessionID: r.state.sess.ID, Role: message.RoleUser, Synthetic: true, Model: r.Model(), FinishedAt: time.Now()}
	if err := r.store.CreateMessage(ctx, &m); err != nil {
		return nil, fmt.Errorf("run !command: save: %w", err)
	}
	p := message.Part{SessionID: r.state.sess.ID, MessageID: m.ID, Type: message.PartFile, File: f}
	if err := r.store.UpsertPart(ctx, &p); err != nil {
		return nil, fmt.Errorf("run !command: save: %w", err)
	}
	r.userMessageAdded(ctx, m, []message.Part{p}, true)
	return f, nil
}
