package loop

// Hooks (internal/hooks) fire at these points, each a one-line call from
// where it happens; with Options.Hooks nil every call returns at once.
//
//   - SessionStart at Open (source startup, or resume for an existing
//     session): its context joins the system prompt for the runner's
//     lifetime (it is not stored).
//   - UserPromptSubmit before a message the user wrote is stored (a sent
//     message, or queued ones when they are delivered): a block keeps it
//     from the model and tells the user why (ErrPromptBlocked; queued ones
//     leave the queue); its context follows the message as a synthetic one.
//   - PreToolUse before the permission check: a block or deny is the
//     call's error result (nothing runs); allow skips the permission
//     question (a tool the configuration denies stays denied); ask, or no
//     opinion, leaves it to the usual check.
//   - PostToolUse after a call's result, before it is stored: a block's
//     reason and any context are appended to the result the model reads.
//   - PreCompact and PostCompact around every compaction (trigger manual or
//     auto): a block stops the compaction (ErrCompactionBlocked), except an
//     emergency one (the provider refused the request as too long), which
//     has to run.
//   - Stop when a turn ends on its own: a block goes on with the turn, the
//     reason a synthetic user message, at most maxStopContinuations times
//     a turn, within the turn's step limit; stop_hook_active is set then.
//
// "continue": false from a tool hook ends the turn after the step; its
// stopReason, like any other, is a note. Every hook that ran is reported
// to the observer as an EventHook.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxloop/agent/internal/hooks"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// ErrPromptBlocked is the error of a message a UserPromptSubmit hook
// blocked.
var ErrPromptBlocked = errors.New("blocked by a UserPromptSubmit hook")

// ErrCompactionBlocked is the error of a compaction a PreCompact hook
// blocked.
var ErrCompactionBlocked = errors.New("blocked by a PreCompact hook")

// maxStopContinuations bounds how often Stop hooks may keep one turn going.
const maxStopContinuations = 3

// fireHook fires ev for this session and reports each run.
func (r *Runner) fireHook(ctx context.Context, ev hooks.Event) hooks.Outcome {
	ev.SessionID, ev.Dir = r.sess.ID, r.toolEnv.Dir
	out := r.opt.Hooks.Fire(ctx, ev)
	for _, run := range out.Runs {
		r.emit(message.Event{Type: message.EventHook, SessionID: ev.SessionID, Hook: &message.HookRun{
			Event: run.Event, Command: run.Command, Source: run.Source, Output: run.Output, Blocked: run.Blocked,
			ExitCode: run.ExitCode, TimedOut: run.TimedOut, Error: run.Error, Tool: ev.Tool, DurationMS: run.Duration.Milliseconds(),
		}})
	}
	if out.Stop && out.StopReason != "" {
		r.note(fmt.Sprintf("%s hook: %s", ev.Name, out.StopReason))
	}
	return out
}

// sessionStartHooks fires SessionStart at Open; its context joins the
// system prompt.
func (r *Runner) sessionStartHooks(ctx context.Context, resumed bool) {
	if !r.opt.Hooks.Has(hooks.SessionStart) {
		return
	}
	source := hooks.SourceStartup
	if resumed {
		source = hooks.SourceResume
	}
	out := r.fireHook(ctx, hooks.Event{Name: hooks.SessionStart, Source: source, Model: r.model})
	if out.Context != "" {
		r.hookSystem = "Context from the user's SessionStart hooks:\n" + out.Context
		r.system = r.withHookContext(r.system)
	}
}

// withHookContext adds the SessionStart hooks' context to system messages.
func (r *Runner) withHookContext(system []string) []string {
	if r.hookSystem == "" {
		return system
	}
	return append(system[:len(system):len(system)], r.hookSystem)
}

// promptHooks fires UserPromptSubmit for a message the user wrote. It
// returns the context to add after it, or an error wrapping
// ErrPromptBlocked.
func (r *Runner) promptHooks(ctx context.Context, text string) (string, error) {
	if !r.opt.Hooks.Has(hooks.UserPromptSubmit) {
		return "", nil
	}
	out := r.fireHook(ctx, hooks.Event{Name: hooks.UserPromptSubmit, Prompt: text})
	switch {
	case out.Blocked:
		return "", fmt.Errorf("send: %w: %s", ErrPromptBlocked, out.Reason)
	case out.Stop:
		reason := out.StopReason
		if reason == "" {
			reason = `a hook answered "continue": false`
		}
		return "", fmt.Errorf("send: %w: %s", ErrPromptBlocked, reason)
	}
	return out.Context, nil
}

// addPromptContext stores a UserPromptSubmit hook's context after the
// message, as a synthetic user message.
func (r *Runner) addPromptContext(ctx context.Context, extra string) error {
	if extra == "" {
		return nil
	}
	return r.addUserMessage(ctx, "Context from the user's UserPromptSubmit hooks:\n"+extra, true)
}

// queuedPromptHooks fires UserPromptSubmit for queued messages about to
// be delivered as text. When a hook blocks them they leave the queue, the
// user is told why, and blocked is true.
func (r *Runner) queuedPromptHooks(ctx context.Context, ids []string, text string) (extra string, blocked bool) {
	extra, err := r.promptHooks(ctx, text)
	if err == nil {
		return extra, false
	}
	for _, id := range ids {
		_ = r.store.RemoveQueued(ctx, id)
	}
	r.emitQueue(ctx)
	r.emitError(err.Error())
	return "", true
}

// checkCall decides whether a tool call may run: PreToolUse hooks, then
// the permission check.
func (r *Runner) checkCall(ctx context.Context, call tools.Call) (ok bool, denial string, err error) {
	if r.opt.Hooks.Has(hooks.PreToolUse) {
		out := r.fireHook(ctx, hooks.Event{Name: hooks.PreToolUse, Tool: call.Name, ToolInput: call.Input, ToolUseID: call.ID})
		if out.Stop {
			r.hookStop.Store(true)
		}
		switch {
		case ctx.Err() != nil:
			return false, "", ctx.Err()
		case out.Blocked:
			return false, fmt.Sprintf("Blocked by a PreToolUse hook; nothing was run. The hook says:\n%s", out.Reason), nil
		case out.Permission == hooks.Allow && (r.opt.Perms == nil || r.opt.Perms.Mode(call.Name) != tools.ModeDeny):
			return true, "", nil
		}
	}
	return r.stepper.registry().Check(ctx, r.toolEnv, r.opt.Perms, call) // knows the gated (MCP) tools
}

// postToolHooks fires PostToolUse for a call's result and returns the
// result the model reads: a block's reason and any context appended.
func (r *Runner) postToolHooks(ctx context.Context, call tools.Call, res tools.Result) tools.Result {
	if !r.opt.Hooks.Has(hooks.PostToolUse) {
		return res
	}
	out := r.fireHook(ctx, hooks.Event{Name: hooks.PostToolUse, Tool: call.Name, ToolInput: call.Input, ToolUseID: call.ID,
		ToolOutput: res.Output, ToolIsError: res.IsError})
	if out.Stop {
		r.hookStop.Store(true)
	}
	var add []string
	if out.Blocked {
		add = append(add, "PostToolUse hook feedback:\n"+out.Reason)
	}
	if out.Context != "" {
		add = append(add, "PostToolUse hook context:\n"+out.Context)
	}
	if len(add) > 0 {
		res.Output = strings.TrimRight(res.Output, "\n") + "\n\n" + strings.Join(add, "\n\n")
	}
	return res
}

// takeStopTurn reports, once, whether the user (a denial) or a hook
// ("continue": false) ended the turn.
func (r *Runner) takeStopTurn() bool {
	byHook := r.hookStop.Swap(false)
	return r.opt.Perms.TakeStopTurn() || byHook
}

func compactTrigger(req compactRequest) string {
	if req.auto || req.refused > 0 {
		return hooks.TriggerAuto
	}
	return hooks.TriggerManual
}

// preCompactHooks fires PreCompact; it returns an error wrapping
// ErrCompactionBlocked when a hook blocks the compaction.
func (r *Runner) preCompactHooks(ctx context.Context, req compactRequest) error {
	if !r.opt.Hooks.Has(hooks.PreCompact) {
		return nil
	}
	out := r.fireHook(ctx, hooks.Event{Name: hooks.PreCompact, Trigger: compactTrigger(req), CustomInstructions: req.focus})
	if !out.Blocked && !out.Stop {
		return nil
	}
	reason := out.Reason
	if reason == "" {
		reason = out.StopReason
	}
	if req.refused > 0 {
		r.note(fmt.Sprintf("a PreCompact hook asked not to compact (%s), but the provider refused the request as too long: compacting anyway", reason))
		return nil
	}
	return fmt.Errorf("%w: %s", ErrCompactionBlocked, reason)
}

// postCompactHooks fires PostCompact after a compaction that succeeded.
func (r *Runner) postCompactHooks(ctx context.Context, req compactRequest, err error) {
	if err != nil || !r.opt.Hooks.Has(hooks.PostCompact) {
		return
	}
	r.fireHook(ctx, hooks.Event{Name: hooks.PostCompact, Trigger: compactTrigger(req), Summary: r.latestSummary()})
}

// latestSummary is the text of the newest summary in the history.
func (r *Runner) latestSummary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.history) - 1; i >= 0; i-- {
		if e := r.history[i]; e.Message.Summary {
			return entryText(e)
		}
	}
	return ""
}

// lastAssistantText is the text of the newest assistant message.
func (r *Runner) lastAssistantText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.history) - 1; i >= 0; i-- {
		if e := r.history[i]; e.Message.Role == message.RoleAssistant && !e.Message.Summary {
			return entryText(e)
		}
	}
	return ""
}

func entryText(e message.Entry) string {
	var b strings.Builder
	for _, p := range e.Parts {
		if p.Type == message.PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// turnWithStopHooks runs a turn, and goes on with it while Stop hooks
// block its end (see the file comment).
func (r *Runner) turnWithStopHooks(ctx context.Context) TurnResult {
	res := r.turn(ctx)
	if !r.opt.Hooks.Has(hooks.Stop) {
		return res
	}
	defer func() { r.stepsBefore = 0 }()
	for n := 0; endedOnItsOwn(res); n++ {
		out := r.fireHook(ctx, hooks.Event{Name: hooks.Stop, StopHookActive: n > 0, LastAssistantMessage: r.lastAssistantText()})
		switch {
		case ctx.Err() != nil:
			return TurnResult{FinishReason: FinishCancelled, Steps: res.Steps}
		case out.Stop || !out.Blocked:
			return res
		case n >= maxStopContinuations:
			r.note(fmt.Sprintf("Stop hooks kept the turn going %d times; it ends here (the last said: %s)", n, out.Reason))
			return res
		case res.Steps >= r.opt.MaxSteps:
			return res
		}
		if err := r.addUserMessage(ctx, "Stop hook feedback:\n"+out.Reason, true); err != nil {
			return TurnResult{FinishReason: FinishError, Err: err, Steps: res.Steps}
		}
		r.stepsBefore = res.Steps
		next := r.turn(ctx)
		next.Steps += res.Steps
		res = next
	}
	return res
}

// endedOnItsOwn reports whether a turn ended because the model finished,
// not because the loop, the user or an error stopped it (an empty answer
// is an error).
func endedOnItsOwn(res TurnResult) bool {
	if res.Err != nil {
		return false
	}
	switch res.FinishReason {
	case FinishCancelled, FinishMaxSteps, FinishDoomLoop, FinishError, FinishStopped, FinishBudget, FinishEmpty:
		return false
	}
	return true
}
