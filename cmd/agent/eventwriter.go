package main

// The headless event writer: what `agent run` prints of a turn. It is the
// loop's observer (Options.Observer), so it sees every event in order and
// synchronously; it writes to two writers (the answer, or the JSON events,
// to out; notices to errOut) and never to a terminal without stripping
// escape sequences (termsafe) from the model's and the tools' text. Its
// queue events are in runqueue.go. It is safe for concurrent use: observe,
// notice, done and fail may come from different goroutines (the loop's,
// --stdin-steer's, the command's).

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/ctxloop/agent/internal/context/compact"
	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/todo"
)

// eventWriter prints the loop's events: the answer as plain text, or one
// JSON object per line. The loop's observer is synchronous and complete, so
// the text_delta events concatenate to the steps' texts exactly, retried
// attempts included: a retrying event voids the text of the attempt since
// the last step_finish, and step_finish and done carry the texts that
// count. A JSON stream ends with exactly one done event; a failure is
// announced by an error event before it.
//
// In text mode, a terminal sees the answer stream (a retry ends the void
// line and says so on stderr); anything else — a pipe, a file — gets only
// the final answer (the last finished step's text) at the end, so that a
// script never reads a partial attempt glued to the answer.
type eventWriter struct {
	mu     sync.Mutex
	out    io.Writer
	errOut io.Writer
	json   bool
	// tty streams the text as it comes; errTTY dims the retry notice.
	tty, errTTY bool
	// texts holds the text of each attempt of the current step, by
	// message; final is the text of the last finished step.
	texts     map[string]*strings.Builder
	final     string
	enc       *json.Encoder
	sessionID string
	called    map[string]bool // tool parts announced with tool_call
	results   map[string]bool // tool parts announced with tool_result
	queued    int             // the queue's length (runqueue.go)
	known     map[string]bool // the ids of the queued messages reported
	endLine   bool            // the text output does not end with a newline
	lastError string          // the last error reported since the last step finished
	finished  bool            // done was written: nothing follows it
	steps     stepNumbers     // the run's steps, for the change lines (runsteps.go)
}

func newEventWriter(out, errOut io.Writer, format string) *eventWriter {
	w := &eventWriter{out: out, errOut: errOut, json: format == "json", called: map[string]bool{}, results: map[string]bool{},
		texts: map[string]*strings.Builder{}}
	w.enc = json.NewEncoder(out)
	w.enc.SetEscapeHTML(false)
	return w
}

func (w *eventWriter) emit(v map[string]any) {
	_ = w.enc.Encode(v)
}

func rawInput(s string) any {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return s
}

func (w *eventWriter) setSession(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sessionID = id
}

func (w *eventWriter) observe(ev message.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return
	}
	switch ev.Type {
	case message.EventPartDelta:
		if ev.Part == nil {
			return
		}
		if ev.Part.Type == message.PartText {
			b := w.texts[ev.Part.MessageID]
			if b == nil {
				b = &strings.Builder{}
				w.texts[ev.Part.MessageID] = b
			}
			b.WriteString(ev.Delta)
		}
		if w.json {
			typ := "text_delta"
			if ev.Part.Type == message.PartReasoning {
				typ = "reasoning_delta"
			}
			w.emit(map[string]any{"type": typ, "text": ev.Delta, "part_id": ev.Part.ID})
		} else if ev.Part.Type == message.PartText && w.tty {
			fmt.Fprint(w.out, termsafe.Strip(ev.Delta))
			w.endLine = !strings.HasSuffix(ev.Delta, "\n")
		}
	case message.EventPartUpdated:
		w.partUpdated(ev.Part)
	case message.EventQueueChanged:
		w.queueChanged(ev.Queue) // runqueue.go
	case message.EventQueueDelivered:
		w.delivered(ev.Delivery)
	case message.EventPruned:
		if w.json {
			w.emit(map[string]any{"type": "pruned", "parts": ev.Prune.Parts, "tokens_saved": ev.Prune.TokensSaved,
				"tokens_before": ev.Prune.TokensBefore, "tokens_after": ev.Prune.TokensAfter})
		}
	case message.EventCompacted:
		c := ev.Compaction
		if w.json {
			w.emit(map[string]any{"type": "compacted", "auto": c.Auto, "reason": c.Reason, "rejected": c.Rejected,
				"tokens_before": c.TokensBefore, "tokens_after": c.TokensAfter,
				"outcome": c.Outcome, "model": c.Model, "note": c.Note, "error": c.Error, "emergency": c.Emergency})
		} else if c.Rejected {
			fmt.Fprintf(w.errOut, "· compaction %s: %s\n", c.Outcome, termsafe.Strip(c.Error))
		} else if c.Emergency {
			fmt.Fprintf(w.errOut, "· %s: %d → %d tokens\n", compact.EmergencyLabel, c.TokensBefore, c.TokensAfter)
		} else if c.Note != "" {
			fmt.Fprintf(w.errOut, "· context %s: %d → %d tokens\n", c.Note, c.TokensBefore, c.TokensAfter)
		} else {
			fmt.Fprintf(w.errOut, "· context compacted: %d → %d tokens\n", c.TokensBefore, c.TokensAfter)
		}
	case message.EventCompacting:
		c := ev.Compaction
		if c == nil {
			c = &message.CompactionState{}
		}
		if w.json {
			w.emit(map[string]any{"type": "compacting", "auto": c.Auto, "reason": c.Reason, "summarising": ev.Summarising,
				"tokens_before": c.TokensBefore, "model": c.Model})
		} else {
			fmt.Fprintf(w.errOut, "· compacting: summarising %d messages (%d tokens)\n", ev.Summarising, c.TokensBefore)
		}
	case message.EventCompactionNear:
		f := ev.Forecast
		if w.json {
			w.emit(map[string]any{"type": "compaction_near", "total": f.Total, "compact_at": f.CompactAt,
				"turns_left": f.TurnsLeft, "next_step": f.NextStep, "text": f.Text, "update": f.Update})
		} else if !f.Update {
			fmt.Fprintf(w.errOut, "· context at %d of %d tokens: %s\n", f.Total, f.CompactAt, f.Text)
		}
	case message.EventRetrying:
		rt := ev.Retry
		if w.json {
			w.emit(map[string]any{"type": "retrying", "attempt": rt.Attempt, "delay_ms": rt.Delay.Milliseconds(), "reason": rt.Reason,
				"void_text": true})
			return
		}
		notice := fmt.Sprintf("retrying in %s (attempt %d): %s", rt.Delay.Round(100e6), rt.Attempt, termsafe.Strip(rt.Reason))
		switch {
		case !w.tty:
			fmt.Fprintf(w.errOut, "· %s\n", notice)
		case w.endLine:
			w.breakLine()
			notice += "; the text above is void"
			fallthrough
		default:
			if w.errTTY {
				notice = "\x1b[2m[" + notice + "]\x1b[0m"
			} else {
				notice = "[" + notice + "]"
			}
			fmt.Fprintln(w.errOut, notice)
		}
	case message.EventError:
		w.errorEvent(ev.Err)
	case message.EventNote:
		if w.json {
			w.emit(map[string]any{"type": "note", "text": ev.Note})
			return
		}
		w.breakLine()
		fmt.Fprintln(w.errOut, "agent:", termsafe.Strip(ev.Note))
	case message.EventTodoReminder:
		w.todoReminder(ev.TodoReminder) // todoevents.go
	case message.EventHook:
		w.hookEvent(ev.Hook)
	case message.EventCheckpointProgress:
		w.checkpointProgress(ev.Checkpoint)
	case message.EventGuard:
		if ev.Guard == nil {
			return
		}
		if w.json {
			w.emit(map[string]any{"type": "guard", "kind": ev.Guard.Kind, "text": ev.Guard.Text})
			return
		}
		w.breakLine()
		fmt.Fprintln(w.errOut, "agent:", guardLine(ev.Guard))
	}
}

// checkpointProgress writes, in text mode, one line on stderr for a
// checkpoint that has run over a second ("agent: taking a checkpoint…
// 3,200/13,018 files"); nothing else, and nothing in JSON mode.
func (w *eventWriter) checkpointProgress(c *message.CheckpointProgress) {
	if !w.json && c != nil && c.Announce {
		w.breakLine()
		fmt.Fprintln(w.errOut, "agent:", c.Text())
	}
}

// errorEvent reports an error: an error event, or a line on stderr.
func (w *eventWriter) errorEvent(msg string) {
	w.lastError = msg
	if w.json {
		w.emit(map[string]any{"type": "error", "message": msg})
		return
	}
	w.breakLine()
	fmt.Fprintln(w.errOut, "agent:", termsafe.Strip(msg))
}

func (w *eventWriter) partUpdated(p *message.Part) {
	if p == nil {
		return
	}
	switch p.Type {
	case message.PartTool:
		t := p.Tool
		if t == nil || t.Status == message.ToolPending && t.Input == "" {
			return
		}
		if !w.called[p.ID] {
			w.called[p.ID] = true
			if w.json {
				w.emit(map[string]any{"type": "tool_call", "id": t.CallID, "name": t.Name, "input": rawInput(t.Input)})
			}
		}
		if (t.Status == message.ToolCompleted || t.Status == message.ToolError) && !w.results[p.ID] {
			w.results[p.ID] = true
			if w.json {
				w.emit(map[string]any{"type": "tool_result", "id": t.CallID, "name": t.Name, "output": t.Output,
					"is_error": t.Status == message.ToolError, "title": t.Title, "truncated": t.Truncated})
				if l, ok := todo.FromPart(p); ok {
					w.emit(todoEvent(t.CallID, l)) // todoevents.go
				}
			} else {
				w.breakLine()
				mark := "✓"
				if t.Status == message.ToolError {
					mark = "✗"
				}
				title := t.Title
				if title == "" {
					title = t.Name
				}
				fmt.Fprintf(w.errOut, "%s %s\n", mark, oneLine(termsafe.Strip(title), 100))
			}
		}
	case message.PartPatch:
		ps := p.Patch
		if ps == nil || len(ps.Files)+len(ps.Lost) == 0 {
			return
		}
		added, deleted := ps.Lines()
		step := w.steps.of(p.MessageID)
		if w.json {
			ev := map[string]any{"type": "patch", "message_id": p.MessageID, "files": ps.Files, "skipped": ps.Skipped,
				"lines_added": added, "lines_deleted": deleted, "before": ps.Before, "after": ps.After,
				"lost": ps.Lost, "outside": ps.Outside}
			if step > 0 {
				ev["step"] = step
			}
			w.emit(ev)
			return
		}
		w.breakLine()
		if len(ps.Files) > 0 {
			fmt.Fprintln(w.errOut, changeLine(step, ps)) // runsteps.go
		}
		if lost := loop.NotRestorableLines(ps.Lost); lost != "" {
			fmt.Fprintln(w.errOut, "· "+strings.ReplaceAll(lost, "\n", "\n· "))
		}
	case message.PartPlan:
		if w.json {
			w.emit(map[string]any{"type": "plan", "message_id": p.MessageID, "text": p.Text})
			return
		}
		w.breakLine()
		fmt.Fprintln(w.errOut, "· plan stored: `agent run -c --execute` approves and runs it")
	case message.PartFile:
		// A mention that could not be attached: the model is told in the
		// message, the user here.
		f := p.File
		if f == nil || f.Error == "" {
			return
		}
		if w.json {
			w.emit(map[string]any{"type": "attachment_error", "message_id": p.MessageID, "kind": f.Kind, "path": f.Path, "error": f.Error})
			return
		}
		w.breakLine()
		fmt.Fprintf(w.errOut, "agent: warning: @%s: not attached: %s\n", oneLine(termsafe.Strip(f.Path), 200), oneLine(termsafe.Strip(f.Error), 300))
	case message.PartStepStart:
		w.steps.start(p.MessageID)
	case message.PartStepFinish:
		w.lastError = ""
		w.final = ""
		if b := w.texts[p.MessageID]; b != nil {
			w.final = b.String()
		}
		clear(w.texts) // the failed attempts of this step
		if w.json && p.Step != nil {
			w.emit(map[string]any{"type": "step_finish", "usage": p.Step.Usage, "finish_reason": p.Step.FinishReason, "cost_usd": p.Step.CostUSD,
				"text": w.final})
		}
	}
}

// notice says something about the run on stderr, in both formats.
func (w *eventWriter) notice(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.breakLine()
	fmt.Fprintln(w.errOut, "agent:", msg)
}

func (w *eventWriter) breakLine() {
	if w.endLine {
		fmt.Fprintln(w.out)
		w.endLine = false
	}
}

// done ends the output of a turn: in text mode not on a terminal, the
// final answer; in JSON, an error event when the run failed and the loop
// did not report an error after the last step, then the done event with
// the session's id, title and totals, the finish reason, the context total
// and the final answer.
func (w *eventWriter) done(s message.Session, res loop.TurnResult, contextTokens int64, runErr error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return
	}
	w.finished = true
	if !w.json {
		w.breakLine()
		if !w.tty && w.final != "" {
			text := termsafe.Strip(w.final)
			if !strings.HasSuffix(text, "\n") {
				text += "\n"
			}
			fmt.Fprint(w.out, text)
		}
		return
	}
	ev := map[string]any{"type": "done", "session_id": s.ID, "title": s.Title, "finish_reason": res.FinishReason,
		"steps": res.Steps, "usage": s.Usage, "cost_usd": s.CostUSD, "context_tokens": contextTokens, "text": w.final}
	if runErr != nil {
		msg := w.lastError
		if msg == "" {
			msg = runErr.Error()
			w.emit(map[string]any{"type": "error", "message": msg})
		}
		ev["error"] = msg
	}
	w.emit(ev)
}

// printed reports whether the failure of the turn was already written to
// stderr (text mode): an error was reported after the last step finished.
func (w *eventWriter) printed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.json && w.lastError != ""
}

// fail ends the JSON stream of a run that failed outside a turn (bad
// configuration, unknown session, database error): an error event and a
// done event carrying the error. In text mode the caller prints the error.
func (w *eventWriter) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished || !w.json {
		return
	}
	w.finished = true
	msg := err.Error()
	if msg != w.lastError {
		w.emit(map[string]any{"type": "error", "message": msg})
	}
	w.emit(map[string]any{"type": "done", "session_id": w.sessionID, "finish_reason": loop.FinishError, "error": msg})
}

// hookEvent reports a hook that ran: a "hook" JSON event, or in text mode
// a line on stderr when it has something to say.
func (w *eventWriter) hookEvent(h *message.HookRun) {
	if h == nil {
		return
	}
	if w.json {
		w.emit(map[string]any{"type": "hook", "event": h.Event, "command": h.Command, "source": h.Source, "tool": h.Tool,
			"output": h.Output, "blocked": h.Blocked, "exit_code": h.ExitCode, "timed_out": h.TimedOut, "error": h.Error,
			"duration_ms": h.DurationMS})
		return
	}
	if line := hookNote(h); line != "" {
		w.breakLine()
		fmt.Fprintln(w.errOut, "·", line)
	}
}

// hookNote is the line a hook run is shown as, "" when it said nothing.
func hookNote(h *message.HookRun) string {
	text := termsafe.Strip(strings.TrimSpace(h.Output))
	if !h.Blocked && h.Error == "" && text == "" {
		return ""
	}
	what := h.Event + " hook " + oneLine(h.Command, 40)
	switch {
	case h.Blocked:
		what += " blocked"
	case h.Error != "":
		what += ": " + h.Error
	}
	if text != "" {
		what += ": " + oneLine(text, 200)
	}
	return what
}

// guardLine is a guard's line on stderr in text mode.
func guardLine(g *message.Guard) string {
	if g.Kind == "verify" {
		return "files changed and no build or test ran: asking the model to verify"
	}
	return g.Kind + ": " + termsafe.Strip(g.Text)
}
