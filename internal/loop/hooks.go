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
	"github.com/ctxloop/agent/internal/plan"
	"strings"
	"sync/atomic"

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

// hookPoints fires the user's hooks at the points listed at the top of this
// file and keeps what they leave behind: the SessionStart context, a
// "continue": false from a tool hook, and the steps of a turn a Stop hook
// continues. It is given what it needs in a hookDeps and holds no
// *Runner. Its fields are not guarded by a lock: system is set at Open
// (before any other goroutine runs) and only read after it; stepsBefore
// belongs to the loop goroutine; stop is an atomic, since tool calls may
// run beside each other.
type hookPoints struct {
	d hookDeps
	// system is the SessionStart hooks' context, a system message.
	system string
	// stop is set when a tool hook answered "continue": false.
	stop atomic.Bool
	// stepsBefore counts the steps of a turn a Stop hook continues.
	stepsBefore int
}

// hookDeps is what hookPoints works with. Every func is required unless
// said otherwise.
type hookDeps struct {
	hooks *hooks.Runner // nil: no hooks, every point returns at once
	perms *tools.Permissions
	dir   string     // the session's directory, told to every hook
	mode  *plan.Mode // the session's mode, told to every hook (nil: default)
	// session is the session's id.
	session func() string
	emit    func(message.Event)
	// note reports a note (Runner's notes).
	note func(string)
	// addSynthetic stores a synthetic user message (a hook's context or a
	// Stop hook's feedback) and appends it to the history.
	addSynthetic func(ctx context.Context, text string) error
	// history is a copy of the session's history.
	history func() []message.Entry
	// turn runs one turn of steps (Runner.turn); maxSteps bounds a turn.
	turn     func(context.Context) TurnResult
	maxSteps int
}

// newHookPoints returns the hook points of a session.
func newHookPoints(d hookDeps) *hookPoints { return &hookPoints{d: d} }

// fire fires ev for this session and reports each run.
func (h *hookPoints) fire(ctx context.Context, ev hooks.Event) hooks.Outcome {
	ev.SessionID, ev.Dir, ev.Mode = h.d.session(), h.d.dir, h.d.mode.Name()
	out := h.d.hooks.Fire(ctx, ev)
	for _, run := range out.Runs {
		h.d.emit(message.Event{Type: message.EventHook, SessionID: ev.SessionID, Hook: &message.HookRun{
			Event: run.Event, Command: run.Command, Source: run.Source, Output: run.Output, Blocked: run.Blocked,
			ExitCode: run.ExitCode, TimedOut: run.TimedOut, Error: run.Error, Tool: ev.Tool, DurationMS: run.Duration.Milliseconds(),
		}})
	}
	if out.Stop && out.StopReason != "" {
		h.d.note(fmt.Sprintf("%s hook: %s", ev.Name, out.StopReason))
	}
	return out
}

// sessionStart fires SessionStart at Open for model and returns system
// with the hooks' context joined (withContext).
func (h *hookPoints) sessionStart(ctx context.Context, resumed bool, model string, system []string) []string {
	if !h.d.hooks.Has(hooks.SessionStart) {
		return system
	}
	source := hooks.SourceStartup
	if resumed {
		source = hooks.SourceResume
	}
	out := h.fire(ctx, hooks.Event{Name: hooks.SessionStart, Source: source, Model: model})
	if out.Context == "" {
		return system
	}
	h.system = "Context from the user's SessionStart hooks:\n" + out.Context
	return h.withContext(system)
}

// withContext adds the SessionStart hooks' context to system messages.
func (h *hookPoints) withContext(system []string) []string {
	if h.system == "" {
		return system
	}
	return append(system[:len(system):len(system)], h.system)
}

// prompt fires UserPromptSubmit for a message the user wrote. It returns
// the context to add after it, or an error wrapping ErrPromptBlocked.
func (h *hookPoints) prompt(ctx context.Context, text string) (string, error) {
	if !h.d.hooks.Has(hooks.UserPromptSubmit) {
		return "", nil
	}
	out := h.fire(ctx, hooks.Event{Name: hooks.UserPromptSubmit, Prompt: text})
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
func (h *hookPoints) addPromptContext(ctx context.Context, extra string) error {
	if extra == "" {
		return nil
	}
	return h.d.addSynthetic(ctx, "Context from the user's UserPromptSubmit hooks:\n"+extra)
}

// checkCall decides whether a tool call may run: PreToolUse hooks, then
// the permission check of reg (which knows the gated, MCP, tools) in env.
func (h *hookPoints) checkCall(ctx context.Context, call tools.Call, reg *tools.Registry, env *tools.Env) (ok bool, denial string, err error) {
	if h.d.hooks.Has(hooks.PreToolUse) {
		out := h.fire(ctx, hooks.Event{Name: hooks.PreToolUse, Tool: call.Name, ToolInput: call.Input, ToolUseID: call.ID})
		if out.Stop {
			h.stop.Store(true)
		}
		switch {
		case ctx.Err() != nil:
			return false, "", ctx.Err()
		case out.Blocked:
			return false, fmt.Sprintf("Blocked by a PreToolUse hook; nothing was run. The hook says:\n%s", out.Reason), nil
		case out.Permission == hooks.Allow && (h.d.perms == nil || h.d.perms.Mode(call.Name) != tools.ModeDeny):
			return true, "", nil
		}
	}
	return reg.Check(ctx, env, h.d.perms, call)
}

// postTool fires PostToolUse for a call's result and returns the result
// the model reads: a block's reason and any context appended.
func (h *hookPoints) postTool(ctx context.Context, call tools.Call, res tools.Result) tools.Result {
	if !h.d.hooks.Has(hooks.PostToolUse) {
		return res
	}
	out := h.fire(ctx, hooks.Event{Name: hooks.PostToolUse, Tool: call.Name, ToolInput: call.Input, ToolUseID: call.ID,
		ToolOutput: res.Output, ToolIsError: res.IsError})
	if out.Stop {
		h.stop.Store(true)
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
func (h *hookPoints) takeStopTurn() bool {
	byHook := h.stop.Swap(false)
	return h.d.perms.TakeStopTurn() || byHook
}

func compactTrigger(req compactRequest) string {
	if req.auto || req.refused > 0 {
		return hooks.TriggerAuto
	}
	return hooks.TriggerManual
}

// preCompact fires PreCompact; it returns an error wrapping
// ErrCompactionBlocked when a hook blocks the compaction.
func (h *hookPoints) preCompact(ctx context.Context, req compactRequest) error {
	if !h.d.hooks.Has(hooks.PreCompact) {
		return nil
	}
	out := h.fire(ctx, hooks.Event{Name: hooks.PreCompact, Trigger: compactTrigger(req), CustomInstructions: req.focus})
	if !out.Blocked && !out.Stop {
		return nil
	}
	reason := out.Reason
	if reason == "" {
		reason = out.StopReason
	}
	if req.refused > 0 {
		h.d.note(fmt.Sprintf("a PreCompact hook asked not to compact (%s), but the provider refused the request as too long: compacting anyway", reason))
		return nil
	}
	return fmt.Errorf("%w: %s", ErrCompactionBlocked, reason)
}

// postCompact fires PostCompact after a compaction that succeeded.
func (h *hookPoints) postCompact(ctx context.Context, req compactRequest, err error) {
	if err != nil || !h.d.hooks.Has(hooks.PostCompact) {
		return
	}
	h.fire(ctx, hooks.Event{Name: hooks.PostCompact, Trigger: compactTrigger(req), Summary: latestSummary(h.d.history())})
}

// latestSummary is the text of the newest summary in history.
func latestSummary(history []message.Entry) string {
	for i := len(history) - 1; i >= 0; i-- {
		if e := history[i]; e.Message.Summary {
			return entryText(e)
		}
	}
	return ""
}

// lastAssistantText is the text of the newest assistant message of
// history.
func lastAssistantText(history []message.Entry) string {
	for i := len(history) - 1; i >= 0; i-- {
		if e := history[i]; e.Message.Role == message.RoleAssistant && !e.Message.Summary {
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

// turnWithStop runs a turn, and goes on with it while Stop hooks block
// its end (see the file comment).
func (h *hookPoints) turnWithStop(ctx context.Context) TurnResult {
	res := h.d.turn(ctx)
	if !h.d.hooks.Has(hooks.Stop) {
		return res
	}
	defer func() { h.stepsBefore = 0 }()
	for n := 0; endedOnItsOwn(res); n++ {
		out := h.fire(ctx, hooks.Event{Name: hooks.Stop, StopHookActive: n > 0, LastAssistantMessage: lastAssistantText(h.d.history())})
		switch {
		case ctx.Err() != nil:
			return TurnResult{FinishReason: FinishCancelled, Steps: res.Steps}
		case out.Stop || !out.Blocked:
			return res
		case n >= maxStopContinuations:
			h.d.note(fmt.Sprintf("Stop hooks kept the turn going %d times; it ends here (the last said: %s)", n, out.Reason))
			return res
		case res.Steps >= h.d.maxSteps:
			return res
		}
		if err := h.d.addSynthetic(ctx, "Stop hook feedback:\n"+out.Reason); err != nil {
			return TurnResult{FinishReason: FinishError, Err: err, Steps: res.Steps}
		}
		h.stepsBefore = res.Steps
		next := h.d.turn(ctx)
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
	case FinishCancelled, FinishMaxSteps, FinishTimeout, FinishDoomLoop, FinishError, FinishStopped, FinishBudget, FinishEmpty:
		return false
	}
	return true
}
