// Package task is the task tool, task{description, prompt}: it runs a
// subagent — a child session with its own context — on prompt, and returns
// only the child's final answer, so that a search or an investigation that
// reads many files costs the parent's context one answer.
//
// The contract:
//
//   - The child is a new session in the parent's store, linked to it
//     (message.Session.ParentID: lists leave it out, removing the parent
//     removes it), titled with the description, driven by loop.Open with
//     the parent's provider, configuration, directory and model (config
//     task.model overrides it), and its own system prompt (prompt.go)
//     telling it that it is a subagent whose last message is all the parent
//     will read.
//   - Its tools are config task.tools (read, grep, glob and ls by default)
//     plus recall of its own history; never task (no recursion), no MCP
//     tools. task.tools may also name the web tools (web_fetch,
//     web_search: SessionOffered): the child gets the parent session's
//     own (loop.Options.Tools) when the session offers them, and goes
//     without when it does not (web fetch off, no search endpoint). Its calls go through the parent session's permissions: the
//     read-only tools need no approval; a configured write tool asks the
//     parent's asker (the chat's dialog; headless it is denied unless
//     --yes), and a grant for the session covers parent and children alike.
//     A "deny and stop the turn" stops the child's turn and then the
//     parent's. The tool is read-only (several task calls of a step run in
//     parallel) when all the child's tools are.
//   - While it runs, the child's progress — the calls it makes, its step
//     and token count — streams into the parent's tool call
//     (tools.Call.Progress), which the chat shows on the task card.
//   - The result is the child's final answer and a footer naming the child
//     session; a child that failed, hit its step limit (task.max_steps) or
//     its budget returns an error result with the last text it had. The
//     child's spending travels in the result's metadata
//     (loop.SetChildUsage) and the parent's loop adds it to the parent's
//     totals; only the answer enters the parent's context.
//   - A parent's spending cap holds its children too: a child shares the
//     parent's budget ledger (loop.Options.Ledger), so every request of
//     the parent and of all its children, parallel ones included, reserves
//     from one cap, and a child's request that cannot reserve is not sent
//     (its task fails with the figures; the parent stops at its next
//     request). A child is not started once the cap is spent.
//   - At most config task.max_parallel children run at once (per Tool, so
//     per process: SessionTools makes one Tool); a call beyond it waits for
//     a running one to end, or for its cancellation.
//   - Cancelling the call (the parent's turn) cancels the child's turn and
//     closes it before Run returns; what the child had is kept under the
//     interrupted note, with its spending.
//
// The loop never imports this package: cmd/agent adds the tool to every
// session through loop.Options.SessionTools, and the tool finds its parent
// session in the call's context (loop.ParentOf).
package task

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
)

// Name is the tool's name.
const Name = "task"

// Tool is the task tool. Make it with New.
type Tool struct {
	cfg      config.Task
	slots    chan struct{}   // one per running child, task.max_parallel
	names    []string        // the child's tools, validated
	reg      *tools.Registry // the child's built-in tools (recall joins in loop.Open)
	offered  []string        // the child's SessionOffered tools, taken from the parent's at open
	readOnly bool
}

// SessionOffered are the tools task.tools may name besides the built-in
// ones: tools a session offers by configuration (internal/webfetch),
// which a child takes from its parent session. All are read-only; their
// permission (per domain) is the parent's, asked through the parent's
// asker like any call of a child.
var SessionOffered = []string{"web_fetch", "web_search"}

// New returns the task tool for subagents configured by cfg (config task).
// Unknown tool names and task itself are left out (config.Load refuses
// them already).
func New(cfg config.Task) *Tool {
	if len(cfg.Tools) == 0 {
		cfg.Tools = config.DefaultTaskTools
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = config.DefaultTaskMaxSteps
	}
	if cfg.MaxParallel <= 0 {
		cfg.MaxParallel = config.DefaultTaskMaxParallel
	}
	t := &Tool{cfg: cfg, readOnly: true, slots: make(chan struct{}, cfg.MaxParallel)}
	builtin := tools.NewRegistry()
	var own []tools.Tool
	for _, name := range cfg.Tools {
		if name == Name || slices.Contains(t.names, name) {
			continue
		}
		if slices.Contains(SessionOffered, name) {
			t.names = append(t.names, name)
			t.offered = append(t.offered, name)
			continue
		}
		tool, ok := builtin.Get(name)
		if !ok {
			continue
		}
		t.names = append(t.names, name)
		own = append(own, tool)
		t.readOnly = t.readOnly && tool.ReadOnly()
	}
	t.reg = new(tools.Registry).With(own...)
	return t
}

// SessionTools is the loop.Options.SessionTools of a session that offers
// the task tool configured by cfg.
func SessionTools(cfg config.Task) func(sessionID string) []tools.Tool {
	t := New(cfg)
	return func(string) []tools.Tool { return []tools.Tool{t} }
}

// Name implements tools.Tool.
func (t *Tool) Name() string { return Name }

// Description implements tools.Tool. It is sent with every request, so it
// is short.
func (t *Tool) Description() string {
	parallel := ""
	if t.readOnly {
		parallel = " Task calls of one step run in parallel."
	}
	return fmt.Sprintf("Run a subagent: a fresh session with its own context and the tools %s. "+
		"It works on prompt alone and returns only its final answer: use it for searches and investigations "+
		"whose files and matches you will not need afterwards. It sees nothing of this conversation, so make "+
		"prompt self-contained and say what the answer must contain.%s",
		strings.Join(t.names, ", "), parallel)
}

var parameters = json.RawMessage(`{"type":"object","properties":{` +
	`"description":{"type":"string","description":"a 3-5 word label of the task, shown to the user"},` +
	`"prompt":{"type":"string","description":"the whole task for the subagent"}},` +
	`"required":["description","prompt"],"additionalProperties":false}`)

// Parameters implements tools.Tool.
func (t *Tool) Parameters() json.RawMessage { return parameters }

// ReadOnly implements tools.Tool: true when every tool of the child is.
func (t *Tool) ReadOnly() bool { return t.readOnly }

type input struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
}

// Run implements tools.Tool: it runs the child session to its end (or the
// call's cancellation) and returns its answer.
func (t *Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	var in input
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return tools.Result{}, fmt.Errorf("decode input: %w", err)
	}
	in.Description = strings.Join(strings.Fields(in.Description), " ")
	if in.Description == "" {
		in.Description = loop.TitleFrom(in.Prompt)
	}
	title := Name + ": " + in.Description
	fail := func(format string, args ...any) (tools.Result, error) {
		return tools.Result{Title: title, IsError: true, Output: fmt.Sprintf(format, args...)}, nil
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return fail("task needs a prompt: the whole task for the subagent")
	}
	parent, ok := loop.ParentOf(ctx)
	if !ok {
		return fail("task runs only inside a session")
	}
	select {
	case t.slots <- struct{}{}:
		defer func() { <-t.slots }()
	case <-ctx.Done():
		return fail("task was cancelled before the subagent started\n%s", message.InterruptedOutput)
	}
	if l := parent.Options.Ledger; l != nil && l.Cap() > 0 && l.Spent() >= l.Cap() {
		return fail("Not started: this session has spent $%.4f of its budget of $%.2f.", l.Spent(), l.Cap())
	}

	reg := t.childTools(parent.Options.Tools)
	prog := newProgress(call.Progress, reg, parent.Dir)
	defer prog.close()
	child, err := t.open(ctx, parent, reg, in.Description, prog.observe)
	if err != nil {
		if ctx.Err() != nil {
			return fail("task was cancelled before the subagent started\n%s", message.InterruptedOutput)
		}
		return tools.Result{}, err
	}
	prog.begin()
	run := drive(ctx, child, in.Prompt)
	if err := child.Close(); err != nil && run.err == nil {
		run.err = fmt.Errorf("close subagent session %s: %w", run.session.ID, err)
	}
	if run.res.FinishReason == loop.FinishStopped {
		// The user denied a call of the child and stopped the turn: the
		// child's loop took the stop; the parent's turn ends too.
		parent.Options.Perms.StopTurn()
	}
	return t.result(title, run), nil
}

// open creates the child session of parent, with the tools reg, and opens it.
func (t *Tool) open(ctx context.Context, parent loop.Parent, reg *tools.Registry, description string, observe func(message.Event)) (*loop.Runner, error) {
	po := parent.Options
	model := t.cfg.Model
	if model == "" {
		model = parent.Model
	}
	cfg := *po.Config
	cfg.Model, cfg.ModelExplicit = model, false
	sess := &message.Session{Title: description, Model: model, Dir: parent.Dir, ParentID: parent.ID}
	if err := po.Store.CreateSession(ctx, sess); err != nil {
		return nil, fmt.Errorf("create subagent session: %w", err)
	}
	perms := po.Perms
	if perms == nil {
		perms = tools.NewPermissions(nil, nil, false)
	}
	opt := loop.Options{
		Store: po.Store, Provider: po.Provider, Config: &cfg, Tools: reg, Perms: perms,
		Dir: parent.Dir, OutputDir: po.OutputDir,
		Observer: observe, MaxSteps: t.cfg.MaxSteps, MaxCostUSD: parent.BudgetUSD,
		Retry: po.Retry, Estimator: po.Estimator, Sleep: po.Sleep,
		SystemPrompt: systemPrompt,
		AskFrom:      "the subagent “" + description + "”",
		CodeFiles:    po.CodeFiles, // the parent's hooks run them
		Mode:         po.Mode,      // plan mode holds in a subagent too
		Sandbox:      po.Sandbox,   // the session's sandbox confines its subagents too
	}
	// One ledger for the session and its children (budget.go in loop).
	opt.Ledger = po.Ledger
	r, err := loop.Open(ctx, opt, sess.ID)
	if err != nil {
		_ = po.Store.DeleteSession(context.WithoutCancel(ctx), sess.ID) // it never ran
		return nil, fmt.Errorf("open subagent session: %w", err)
	}
	return r, nil
}

// childTools are the child's tools: the built-in ones of task.tools and
// those of its SessionOffered ones that the parent's tools hold.
func (t *Tool) childTools(parent *tools.Registry) *tools.Registry {
	if len(t.offered) == 0 || parent == nil {
		return t.reg
	}
	var own []tools.Tool
	for _, name := range t.names {
		tool, ok := t.reg.Get(name)
		if !ok {
			tool, ok = parent.Get(name)
		}
		if ok {
			own = append(own, tool)
		}
	}
	return new(tools.Registry).With(own...)
}

// run is how a child's turn went.
type run struct {
	session   message.Session
	res       loop.TurnResult
	answer    string // the child's last text
	cancelled bool
	err       error
}

// drive sends prompt to the child and waits for its turn to end or ctx to
// be cancelled, which cancels the turn.
func drive(ctx context.Context, child *loop.Runner, prompt string) run {
	var out run
	if _, err := child.Send(ctx, prompt); err != nil {
		out.err = fmt.Errorf("start subagent: %w", err)
		out.cancelled = ctx.Err() != nil
	} else {
		select {
		case <-child.Done():
		case <-ctx.Done():
			out.cancelled = true
			_, _ = child.Cancel(context.WithoutCancel(ctx))
			<-child.Done()
		}
		out.res = child.Wait(context.WithoutCancel(ctx))
	}
	out.session = child.Session()
	out.answer = lastText(child.History())
	return out
}

// lastText is the text of the newest assistant message that has some.
func lastText(h []message.Entry) string {
	for i := len(h) - 1; i >= 0; i-- {
		e := h[i]
		if e.Message.Role == message.RoleUser && !e.Message.Synthetic {
			return "" // nothing since the prompt
		}
		if e.Message.Role != message.RoleAssistant || e.Message.Summary {
			continue
		}
		var b strings.Builder
		for _, p := range e.Parts {
			if p.Type == message.PartText {
				b.WriteString(p.Text)
			}
		}
		if s := strings.TrimSpace(b.String()); s != "" {
			return s
		}
	}
	return ""
}

// result is the tool result of a child's run.
func (t *Tool) result(title string, r run) tools.Result {
	s := r.session
	tokens := s.Usage.Input + s.Usage.Output
	md := map[string]any{
		"session_id": s.ID, "steps": r.res.Steps, "tokens": tokens,
		"cost_usd": s.CostUSD, "finish_reason": r.res.FinishReason,
		message.WorkSummaryKey: true, // the parent's only record of the child's work: never pruned
	}
	loop.SetChildUsage(md, s.Usage, s.CostUSD)
	footer := fmt.Sprintf("[subagent session %s: %d steps, %d tokens; `agent sessions show %s`]", s.ID, r.res.Steps, tokens, s.ID)
	res := tools.Result{Title: title, Metadata: md}
	had := func(why string) string {
		if r.answer == "" {
			return why + " It had written nothing yet.\n\n" + footer
		}
		return why + " What it had:\n\n" + r.answer + "\n\n" + footer
	}
	switch {
	case r.cancelled:
		res.IsError = true
		md["cancelled"] = true
		res.Output = had("The subagent was interrupted.") + "\n" + message.InterruptedOutput
	case r.err != nil:
		res.IsError = true
		res.Output = had(fmt.Sprintf("The subagent failed: %v.", r.err))
	case r.res.FinishReason == loop.FinishStopped:
		res.IsError = true
		res.Output = had("The user stopped the subagent's work and the turn: do not retry it; wait for the user's next message.")
	case r.res.FinishReason == loop.FinishMaxSteps:
		res.IsError = true
		res.Output = had(fmt.Sprintf("The subagent stopped at its limit of %d steps (task.max_steps) before it answered.", t.cfg.MaxSteps))
	case r.res.Err != nil:
		res.IsError = true
		res.Output = had(fmt.Sprintf("The subagent stopped (%s): %v.", r.res.FinishReason, r.res.Err))
	case r.answer == "":
		res.IsError = true
		res.Output = had(fmt.Sprintf("The subagent ended (%s) without an answer.", r.res.FinishReason))
	default:
		res.Output = r.answer + "\n\n" + footer
	}
	return res
}
