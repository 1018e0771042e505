package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ctxloop/agent/internal/attachments"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/tools"
	"github.com/ctxloop/agent/internal/toolsearch"
)

// progressInterval throttles how often a running tool's progress is saved.
const progressInterval = 250 * time.Millisecond

// runTools runs the tool calls of a step. Calls are checked in call order
// (doom loop first, then permission); read-only calls that follow each other
// run concurrently, the others one at a time. Results are persisted as each
// finishes and sent to the model in call order. It returns a stop reason
// when the turn must end (a refused doom loop, a denial that stopped the
// turn).
func (sp *stepper) runTools(ctx context.Context, e *message.Entry, calls []int) (stop string, stopErr error) {
	ctx = tools.WithResultRoom(ctx, resultRoom(sp.calc().Reading()))
	for i := 0; i < len(calls); {
		if ctx.Err() != nil {
			break
		}
		ix := calls[i]
		p := e.Parts[ix]
		if stop, stopErr = sp.checkDoom(ctx, e, ix); stop != "" {
			// The refused call and every call after it are not run.
			why := "the turn stopped on a repeated tool call"
			if stopErr != nil {
				why = strings.TrimPrefix(stopErr.Error(), "doom loop: ")
			}
			for _, rest := range calls[i:] {
				sp.finishTool(ctx, e, rest, tools.Result{IsError: true, Output: "Not run: " + why + ". Try a different approach."})
			}
			return stop, stopErr
		}
		if tool, ok := sp.registry().Get(p.Tool.Name); ok && tool.ReadOnly() {
			// Gather the run of read-only calls starting here.
			j := i + 1
			for j < len(calls) {
				q := e.Parts[calls[j]]
				t, ok := sp.registry().Get(q.Tool.Name)
				if !ok || !t.ReadOnly() {
					break
				}
				if s, serr := sp.checkDoom(ctx, e, calls[j]); s != "" {
					stop, stopErr = s, serr
					break
				}
				j++
			}
			var wg sync.WaitGroup
			var mu sync.Mutex // guards e.Parts and the calculator's ordering
			for _, cix := range calls[i:j] {
				wg.Add(1)
				go func(cix int) {
					defer wg.Done()
					sp.runOne(ctx, e, cix, &mu)
				}(cix)
			}
			wg.Wait()
			if stop == "" && sp.takeStopTurn() {
				stop = FinishStopped
			}
			if stop != "" {
				why := "Not run: the turn stopped on a repeated tool call."
				if stop == FinishStopped {
					why = "Not run: the user stopped the turn."
				}
				for _, rest := range calls[j:] {
					sp.finishTool(ctx, e, rest, tools.Result{IsError: true, Output: why})
				}
				return stop, stopErr
			}
			i = j
			continue
		}
		sp.runOne(ctx, e, ix, nil)
		i++
		if sp.takeStopTurn() {
			// The user denied this call and stopped the turn.
			for _, rest := range calls[i:] {
				sp.finishTool(ctx, e, rest, tools.Result{IsError: true, Output: "Not run: the user stopped the turn."})
			}
			return FinishStopped, nil
		}
	}
	if ctx.Err() != nil {
		sp.interruptTools(context.WithoutCancel(ctx), e)
		return "", nil
	}
	sp.fitStep(ctx, e, calls)
	return "", nil
}

// checkDoom applies the doom-loop guard to the call at e.Parts[ix]. It asks
// the user when it can, and otherwise stops the turn.
func (sp *stepper) checkDoom(ctx context.Context, e *message.Entry, ix int) (string, error) {
	t := e.Parts[ix].Tool
	why := sp.doom.observe(t.Name, t.Input)
	if why == "" {
		return "", nil
	}
	key := t.Name + "\x00" + canonicalJSON(t.Input)
	if sp.allowed[key] {
		return "", nil
	}
	reason := why
	if why != doomReapplied {
		reason = fmt.Sprintf(why, DoomThreshold)
	}
	err := fmt.Errorf("doom loop: %s was called %s", t.Name, reason)
	if sp.opt.Doom == nil {
		sp.emitError(err.Error())
		return FinishDoomLoop, err
	}
	reply, askErr := sp.opt.Doom.AskDoomLoop(ctx, t.Name, t.Input)
	if askErr != nil {
		return FinishDoomLoop, err
	}
	switch reply {
	case DoomContinue:
		sp.doom.reset()
		return "", nil
	case DoomAlwaysAllow:
		sp.allowed[key] = true
		sp.doom.reset()
		return "", nil
	}
	return FinishDoomLoop, nil
}

// runOne checks permission for one call, runs it and saves its result. mu,
// when not nil, serialises access to the entry between concurrent calls.
func (sp *stepper) runOne(ctx context.Context, e *message.Entry, ix int, mu *sync.Mutex) {
	lock := func() {
		if mu != nil {
			mu.Lock()
		}
	}
	unlock := func() {
		if mu != nil {
			mu.Unlock()
		}
	}
	lock()
	p := e.Parts[ix]
	unlock()
	// A call through call_tool is checked, hooked and run as the tool it names.
	call := toolsearch.Unwrap(tools.Call{ID: p.Tool.CallID, Name: p.Tool.Name, Input: json.RawMessage(p.Tool.Input)})
	if refusal := sp.opt.Mode.Refusal(sp.registry(), call); refusal != "" {
		// Plan mode: not run, not asked about, not hooked (planmode.go).
		lock()
		sp.finishTool(ctx, e, ix, planRefused(sp.registry(), sp.toolEnv, call, refusal))
		unlock()
		return
	}

	ok, denial, err := sp.checkCall(ctx, call)
	if err != nil || !ok {
		if err != nil && ctx.Err() != nil {
			return // interrupted below
		}
		if denial == "" && err != nil {
			denial = fmt.Sprintf("permission check failed: %v", err)
		}
		lock()
		sp.finishTool(ctx, e, ix, tools.Result{IsError: true, Output: denial})
		unlock()
		return
	}

	lock()
	p = e.Parts[ix]
	st := *p.Tool
	st.Status = message.ToolRunning
	st.StartedAt = time.Now()
	p.Tool = &st
	sp.savePart(ctx, e, ix, p)
	unlock()

	var lastProgress time.Time
	call.Progress = func(lines string) {
		if time.Since(lastProgress) < progressInterval {
			return
		}
		lastProgress = time.Now()
		lock()
		q := e.Parts[ix]
		qs := *q.Tool
		qs.Progress = lines
		q.Tool = &qs
		e.Parts[ix] = q
		unlock()
		// Progress is shown, not stored: it is superseded by the result.
		sp.emit(message.Event{Type: message.EventPartUpdated, SessionID: q.SessionID, Part: &q})
	}
	call.Started = func(g tools.ProcessGroup) {
		lock()
		sp.recordProcess(ctx, e, ix, g)
		unlock()
	}
	res := sp.registry().Run(sp.withParent(ctx), sp.toolEnv, call)
	if ctx.Err() != nil {
		if keptWhenInterrupted(res) {
			// The output shown so far stays the call's result.
			res.IsError = true
			lock()
			sp.finishTool(context.WithoutCancel(ctx), e, ix, res)
			unlock()
		}
		return // otherwise the caller marks the call interrupted
	}
	res = sp.postToolHooks(ctx, call, res)
	lock()
	sp.finishTool(ctx, e, ix, res)
	unlock()
}

// keptWhenInterrupted reports whether the result of a call cancelled while
// it ran is worth keeping: the tool stopped in time and reported what it
// had so far under the interrupted note (bash does), rather than being
// abandoned.
func keptWhenInterrupted(res tools.Result) bool {
	return res.Metadata["cancelled"] == true && res.Metadata["abandoned"] != true &&
		strings.HasSuffix(res.Output, message.InterruptedOutput)
}

// finishTool records a tool's result and counts it for the calculator.
func (sp *stepper) finishTool(ctx context.Context, e *message.Entry, ix int, res tools.Result) {
	p := e.Parts[ix]
	st := *p.Tool
	st.Status = message.ToolCompleted
	if res.IsError {
		st.Status = message.ToolError
	}
	st.Output = res.Output
	st.RawOutput = res.RawOutput
	st.Title = res.Title
	st.Metadata = res.Metadata
	st.Truncated = res.Truncated
	st.FullOutputPath = res.FullOutputPath
	st.Images = storeToolImages(attachments.ForDataDir(sp.opt.Config.DataDir), res.Images, sp.toolEnv.Secrets)
	st.Progress = ""
	sp.doom.result(st.Name, st.Input, res.IsError) // near-repeats count failures (doom.go)
	if st.StartedAt.IsZero() {
		st.StartedAt = time.Now()
	}
	st.EndedAt = time.Now()
	p.Tool = &st
	sp.savePart(ctx, e, ix, p)
	sp.addChildUsage(ctx, res)
	sp.calc().AddText(tokens.ToolResult(&st))
	sp.calc().AddTokens(tokens.TokensPerMessage + int64(len(st.Images))*tokens.ImageTokens)
}
