package hooks

import (
	"context"
	"encoding/json"
	"testing"
)

// BenchmarkFireNoHooks is the cost the loop pays at each point when no
// hook is configured: it must be next to nothing.
func BenchmarkFireNoHooks(b *testing.B) {
	var r *Runner
	ev := Event{Name: PreToolUse, Tool: "bash", ToolInput: json.RawMessage(`{"command":"ls"}`)}
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Fire(context.Background(), ev)
	}
}

// BenchmarkFireOtherEvent is a runner with hooks, none for this event.
func BenchmarkFireOtherEvent(b *testing.B) {
	r, _ := New([]Hook{{Event: Stop, Command: "true"}}, Options{})
	ev := Event{Name: PreToolUse, Tool: "bash", ToolInput: json.RawMessage(`{"command":"ls"}`)}
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Fire(context.Background(), ev)
	}
}

// BenchmarkFireTrivialHook runs one `true` hook: a shell's start-up.
func BenchmarkFireTrivialHook(b *testing.B) {
	r, _ := New([]Hook{{Event: PreToolUse, Matcher: "Bash", Command: "true"}}, Options{})
	ev := Event{Name: PreToolUse, Dir: b.TempDir(), Tool: "bash", ToolInput: json.RawMessage(`{"command":"ls"}`)}
	b.ReportAllocs()
	for b.Loop() {
		if o := r.Fire(context.Background(), ev); len(o.Runs) != 1 || o.Runs[0].ExitCode != 0 {
			b.Fatalf("%+v", o)
		}
	}
}
