package main

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/loop"
	"github.com/ctxloop/agent/internal/message"
)

// turnEvents is one step of a turn as the loop reports it: a streamed
// answer split in two deltas, a tool that ran, and the step's end.
func turnEvents() []message.Event {
	text := &message.Part{ID: "p1", MessageID: "m1", Type: message.PartText}
	call := func(status message.ToolStatus, output string) *message.Part {
		return &message.Part{ID: "p2", MessageID: "m1", Type: message.PartTool, Tool: &message.ToolState{
			CallID: "call_1", Name: "read", Input: `{"path":"a.go"}`, Status: status, Output: output, Title: "a.go"}}
	}
	return []message.Event{
		{Type: message.EventPartDelta, Part: text, Delta: "Hello, "},
		{Type: message.EventPartDelta, Part: text, Delta: "world"},
		{Type: message.EventPartUpdated, Part: call(message.ToolRunning, "")},
		{Type: message.EventPartUpdated, Part: call(message.ToolCompleted, "package a")},
		// A repeated update of a finished tool is not reported again.
		{Type: message.EventPartUpdated, Part: call(message.ToolCompleted, "package a")},
		{Type: message.EventPartUpdated, Part: &message.Part{ID: "p3", MessageID: "m1", Type: message.PartStepFinish,
			Step: &message.StepState{FinishReason: "stop"}}},
	}
}

func feed(w *eventWriter, evs []message.Event) {
	for _, ev := range evs {
		w.observe(ev)
	}
}

func TestEventWriterJSONTurn(t *testing.T) {
	var out, errOut bytes.Buffer
	w := newEventWriter(&out, &errOut, "json")
	feed(w, turnEvents())
	w.done(message.Session{ID: "s1", Title: "greeting"}, loop.TurnResult{FinishReason: "stop", Steps: 1}, 42, nil)

	evs := jsonEvents(t, out.String())
	var types []string
	for _, ev := range evs {
		types = append(types, ev["type"].(string))
	}
	want := []string{"text_delta", "text_delta", "tool_call", "tool_result", "step_finish", "done"}
	if !reflect.DeepEqual(types, want) {
		t.Fatalf("event types = %v, want %v", types, want)
	}
	if in, ok := evs[2]["input"].(map[string]any); !ok || in["path"] != "a.go" {
		t.Errorf("tool_call input = %#v, want the JSON object itself", evs[2]["input"])
	}
	if evs[3]["output"] != "package a" || evs[3]["is_error"] != false {
		t.Errorf("tool_result = %v", evs[3])
	}
	if evs[4]["text"] != "Hello, world" {
		t.Errorf("step_finish text = %v", evs[4]["text"])
	}
	done := evs[5]
	if done["session_id"] != "s1" || done["title"] != "greeting" || done["text"] != "Hello, world" ||
		done["context_tokens"] != float64(42) || done["finish_reason"] != "stop" || done["error"] != nil {
		t.Errorf("done = %v", done)
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr = %q, want nothing in JSON mode", errOut.String())
	}
}

// TestEventWriterTextToAPipe: not on a terminal, only the final answer is
// printed, once, at the end; the tool's line goes to stderr.
func TestEventWriterTextToAPipe(t *testing.T) {
	var out, errOut bytes.Buffer
	w := newEventWriter(&out, &errOut, "text")
	feed(w, turnEvents())
	if out.Len() != 0 {
		t.Fatalf("stdout before done = %q, want nothing", out.String())
	}
	w.done(message.Session{}, loop.TurnResult{FinishReason: "stop"}, 0, nil)
	if out.String() != "Hello, world\n" {
		t.Errorf("stdout = %q", out.String())
	}
	if errOut.String() != "✓ a.go\n" {
		t.Errorf("stderr = %q", errOut.String())
	}
	// Nothing follows done.
	feed(w, turnEvents())
	w.done(message.Session{}, loop.TurnResult{FinishReason: "stop"}, 0, nil)
	if out.String() != "Hello, world\n" {
		t.Errorf("stdout after a second done = %q", out.String())
	}
}

// TestEventWriterStripsEscapes: the model's text, a tool's title and a
// note reach neither stream with a terminal escape sequence.
func TestEventWriterStripsEscapes(t *testing.T) {
	var out, errOut bytes.Buffer
	w := newEventWriter(&out, &errOut, "text")
	w.tty = true
	text := &message.Part{ID: "p1", MessageID: "m1", Type: message.PartText}
	w.observe(message.Event{Type: message.EventPartDelta, Part: text, Delta: "red \x1b[31mtext\x1b]0;title\x07"})
	w.observe(message.Event{Type: message.EventPartUpdated, Part: &message.Part{ID: "p2", MessageID: "m1", Type: message.PartTool,
		Tool: &message.ToolState{CallID: "c", Name: "bash", Input: "{}", Status: message.ToolError, Title: "\x1b[2Jwipe"}}})
	w.observe(message.Event{Type: message.EventNote, Note: "note \x1b[1mbold"})
	w.done(message.Session{}, loop.TurnResult{FinishReason: "stop"}, 0, nil)
	for name, s := range map[string]string{"stdout": out.String(), "stderr": errOut.String()} {
		if strings.ContainsAny(s, "\x1b\x07") {
			t.Errorf("%s = %q, holds an escape", name, s)
		}
	}
	if !strings.Contains(errOut.String(), "✗ ") || !strings.Contains(errOut.String(), "wipe") || !strings.Contains(errOut.String(), "agent: note ") {
		t.Errorf("stderr = %q", errOut.String())
	}
	// The streamed line is ended before the tool's line is printed.
	if !strings.HasPrefix(out.String(), "red ") || !strings.HasSuffix(out.String(), "\n") {
		t.Errorf("stdout = %q", out.String())
	}
}

// TestEventWriterFailure: a run that fails after an error event reports the
// loop's error once, in done, and text mode knows it was printed.
func TestEventWriterFailure(t *testing.T) {
	t.Run("json", func(t *testing.T) {
		var out bytes.Buffer
		w := newEventWriter(&out, &out, "json")
		w.observe(message.Event{Type: message.EventError, Err: "rate limited"})
		w.done(message.Session{ID: "s1"}, loop.TurnResult{FinishReason: loop.FinishError}, 0, errors.New("wrapped: rate limited"))
		evs := jsonEvents(t, out.String())
		if len(evs) != 2 || evs[0]["type"] != "error" || evs[1]["type"] != "done" || evs[1]["error"] != "rate limited" {
			t.Errorf("events = %v", evs)
		}
	})
	t.Run("json without an error event", func(t *testing.T) {
		var out bytes.Buffer
		w := newEventWriter(&out, &out, "json")
		w.done(message.Session{ID: "s1"}, loop.TurnResult{FinishReason: loop.FinishDoomLoop}, 0, errors.New("stopped: a doom loop"))
		evs := jsonEvents(t, out.String())
		if len(evs) != 2 || evs[0]["message"] != "stopped: a doom loop" || evs[1]["error"] != "stopped: a doom loop" {
			t.Errorf("events = %v", evs)
		}
	})
	t.Run("text", func(t *testing.T) {
		var out, errOut bytes.Buffer
		w := newEventWriter(&out, &errOut, "text")
		if w.printed() {
			t.Error("printed before any error")
		}
		w.observe(message.Event{Type: message.EventError, Err: "rate limited"})
		if !w.printed() || errOut.String() != "agent: rate limited\n" {
			t.Errorf("printed = %v, stderr = %q", w.printed(), errOut.String())
		}
		w.fail(errors.New("rate limited")) // text mode: the caller prints
		if out.Len() != 0 {
			t.Errorf("stdout = %q", out.String())
		}
	})
}

// TestEventWriterRetryVoidsText: the text of an attempt that is retried is
// not the final answer.
func TestEventWriterRetryVoidsText(t *testing.T) {
	var out, errOut bytes.Buffer
	w := newEventWriter(&out, &errOut, "text")
	w.observe(message.Event{Type: message.EventPartDelta, Part: &message.Part{ID: "p1", MessageID: "m1", Type: message.PartText}, Delta: "cut sh"})
	w.observe(message.Event{Type: message.EventRetrying, Retry: &message.RetryInfo{Attempt: 1, Reason: "stream cut"}})
	w.observe(message.Event{Type: message.EventPartDelta, Part: &message.Part{ID: "p2", MessageID: "m2", Type: message.PartText}, Delta: "whole"})
	w.observe(message.Event{Type: message.EventPartUpdated, Part: &message.Part{ID: "p3", MessageID: "m2", Type: message.PartStepFinish}})
	w.done(message.Session{}, loop.TurnResult{FinishReason: "stop"}, 0, nil)
	if out.String() != "whole\n" {
		t.Errorf("stdout = %q", out.String())
	}
	if errOut.String() != "· retrying in 0s (attempt 1): stream cut\n" {
		t.Errorf("stderr = %q", errOut.String())
	}
}

// TestEventWriterQueueAndHooks: queued messages are announced once, their
// delivery names them, and a hook that said something is shown.
func TestEventWriterQueueAndHooks(t *testing.T) {
	var out, errOut bytes.Buffer
	w := newEventWriter(&out, &errOut, "json")
	q := []message.QueuedMessage{{ID: "q1", Text: "also this"}, {ID: "q2", Text: "and that"}}
	w.observe(message.Event{Type: message.EventQueueChanged, Queue: q})
	w.observe(message.Event{Type: message.EventQueueChanged, Queue: q})
	w.observe(message.Event{Type: message.EventQueueDelivered, Delivery: &message.QueueDelivery{IDs: []string{"q1", "q2"}, MessageID: "m9", Steered: true}})
	w.observe(message.Event{Type: message.EventHook, Hook: &message.HookRun{Event: "PostToolUse", Command: "fmt", Output: "formatted"}})
	var got []string
	for _, ev := range jsonEvents(t, out.String()) {
		got = append(got, ev["type"].(string))
	}
	want := []string{"queued", "queued", "dequeued", "steered", "merged", "hook"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("event types = %v, want %v", got, want)
	}

	out.Reset()
	w = newEventWriter(&out, &errOut, "text")
	w.observe(message.Event{Type: message.EventHook, Hook: &message.HookRun{Event: "PostToolUse", Command: "fmt"}})
	w.observe(message.Event{Type: message.EventHook, Hook: &message.HookRun{Event: "PreToolUse", Command: "guard", Blocked: true, Output: "not here"}})
	if out.Len() != 0 || errOut.String() != "· PreToolUse hook guard blocked: not here\n" {
		t.Errorf("stdout = %q, stderr = %q", out.String(), errOut.String())
	}
}

// TestEventWriterCheckpointProgress: a checkpoint's progress is one line
// on stderr in text mode, the report the loop marks Announce (its first
// after a second); again for the next checkpoint; never in JSON mode or
// on stdout.
func TestEventWriterCheckpointProgress(t *testing.T) {
	progress := func(w *eventWriter, done int, elapsed time.Duration, finished bool) {
		announce := done == 3200 || done == 700 // the loop marks the first report after a second
		w.observe(message.Event{Type: message.EventCheckpointProgress, Checkpoint: &message.CheckpointProgress{Done: done, Total: 13018, Elapsed: elapsed, Finished: finished, Announce: announce, Skip: func() {}}})
	}
	var out, errOut bytes.Buffer
	w := newEventWriter(&out, &errOut, "text")
	progress(w, 500, 400*time.Millisecond, false)
	progress(w, 3200, 1100*time.Millisecond, false)
	progress(w, 6400, 1500*time.Millisecond, false)
	progress(w, 13018, 2*time.Second, true)
	progress(w, 700, 1200*time.Millisecond, false)
	want := "agent: taking a checkpoint… 3,200/13,018 files\nagent: taking a checkpoint… 700/13,018 files\n"
	if errOut.String() != want || out.Len() != 0 {
		t.Errorf("stderr %q, stdout %q; want stderr %q", errOut.String(), out.String(), want)
	}
	out.Reset()
	errOut.Reset()
	w = newEventWriter(&out, &errOut, "json")
	progress(w, 3200, 2*time.Second, false)
	if out.Len() != 0 || errOut.Len() != 0 {
		t.Errorf("JSON mode wrote %q / %q", out.String(), errOut.String())
	}
}

// patchSteps is a run of three steps, the first and third of which
// changed files, as the loop reports them (a name with an escape).
func patchSteps() []message.Event {
	var evs []message.Event
	step := func(id string, files ...message.PatchFile) {
		evs = append(evs, message.Event{Type: message.EventPartUpdated, Part: &message.Part{ID: id + "s", MessageID: id, Type: message.PartStepStart}})
		if len(files) > 0 {
			evs = append(evs, message.Event{Type: message.EventPartUpdated, Part: &message.Part{ID: id + "p", MessageID: id, Type: message.PartPatch,
				Patch: &message.PatchState{Files: files}}})
		}
		evs = append(evs, message.Event{Type: message.EventPartUpdated, Part: &message.Part{ID: id + "f", MessageID: id, Type: message.PartStepFinish,
			Step: &message.StepState{FinishReason: "tool_calls"}}})
	}
	step("m1", message.PatchFile{Path: "a.go", Status: "modified", LinesAdded: 2, LinesDeleted: 1})
	step("m2")
	step("m3", message.PatchFile{Path: "b.go", Status: "added", LinesAdded: 5},
		message.PatchFile{Path: "c\x1b[2Jd.go", Status: "modified", LinesAdded: 1, LinesDeleted: 1})
	return evs
}

// TestEventWriterTextNamesTheStepThatChangedFiles: agent run's text
// output says which step changed which files, with their line counts, in
// words; the JSON patch event gains the step's number and loses nothing.
func TestEventWriterTextNamesTheStepThatChangedFiles(t *testing.T) {
	var out, errOut bytes.Buffer
	w := newEventWriter(&out, &errOut, "text")
	feed(w, patchSteps())
	got := errOut.String()
	for _, want := range []string{
		"· step 1 changed 1 file (+2 −1 lines): a.go\n",
		"· step 3 changed 2 files (+6 −1 lines): b.go, c", // the name stripped of its escape
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the text output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\x1b") {
		t.Errorf("a file name's escape sequence reached the output: %q", got)
	}

	out.Reset()
	w = newEventWriter(&out, &errOut, "json")
	feed(w, patchSteps())
	var steps []any
	for _, ev := range jsonEvents(t, out.String()) {
		if ev["type"] == "patch" {
			steps = append(steps, ev["step"])
			if ev["lines_added"] == nil || ev["files"] == nil || ev["message_id"] == nil {
				t.Errorf("the patch event lost a field: %v", ev)
			}
		}
	}
	if !reflect.DeepEqual(steps, []any{1.0, 3.0}) {
		t.Errorf("the patch events' steps = %v, want [1 3]", steps)
	}
}
