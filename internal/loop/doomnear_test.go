package loop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// TestDoomNearRepeats: the doom guard catches near-repeats — the same
// failing command with small variations (numbers, spacing, quoted
// arguments), and an edit reverted and re-applied — and leaves alone
// varied commands that succeed and ordinary progress.
func TestDoomNearRepeats(t *testing.T) {
	bash := func(cmd string) string { return fmt.Sprintf(`{"command":%q}`, cmd) }
	edit := func(old, new string) string {
		return fmt.Sprintf(`{"path":"a.go","old_string":%q,"new_string":%q}`, old, new)
	}
	type call struct {
		name, input string
		failed      bool
	}
	cases := []struct {
		name  string
		calls []call
		doom  bool // the last call is refused
	}{
		{"failing command, numbers vary", []call{
			{"bash", bash("go test -run TestA -count=1 ./pkg/"), true},
			{"bash", bash("go test -run TestA -count=2 ./pkg/"), true},
			{"bash", bash("go test -run TestA -count=3  ./pkg/"), true}}, true},
		{"failing command, quoted argument varies", []call{
			{"bash", bash(`grep -rn "fooBar" src`), true},
			{"bash", bash(`grep -rn "foo_bar" src`), true},
			{"bash", bash(`grep -rn 'FooBar' src`), false}}, true},
		{"same commands succeeding", []call{
			{"bash", bash("sed -n 1,50p a.go"), false},
			{"bash", bash("sed -n 51,100p a.go"), false},
			{"bash", bash("sed -n 101,150p a.go"), false}}, false},
		{"different failing commands", []call{
			{"bash", bash("go test ./..."), true},
			{"bash", bash("npm install --save left-pad"), true},
			{"bash", bash("cargo build --release"), false}}, false},
		{"a fix between the failures", []call{
			{"bash", bash("go test ./pkg/ -count=1"), true},
			{"edit", edit("x := 1", "x := 2"), false},
			{"bash", bash("go test ./pkg/ -count=2"), true}}, false},
		{"writes to different files, denied", []call{
			{"write", `{"path":".envrc","content":"touch pwned\n"}`, true},
			{"write", `{"path":"scripts/lint","content":"#!/bin/sh\ntouch pwned\n"}`, true},
			{"write", `{"path":"main.go","content":"package main\n"}`, false}}, false},
		{"edit reverted and re-applied", []call{
			{"edit", edit("return a", "return b"), false},
			{"edit", edit("return b", "return a"), false},
			{"edit", edit("return a", "return b"), false}}, true},
		{"edits that move on", []call{
			{"edit", edit("return a", "return b"), false},
			{"edit", edit("return b", "return c"), false},
			{"edit", edit("return c", "return d"), false}}, false},
		{"write flip-flop", []call{
			{"write", `{"path":"a.go","content":"A"}`, false},
			{"write", `{"path":"a.go","content":"B"}`, false},
			{"write", `{"path":"a.go","content":"A"}`, false},
			{"write", `{"path":"a.go","content":"B"}`, false}}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var g doomGuard
			for i, cl := range c.calls {
				why := g.observe(cl.name, cl.input)
				last := i == len(c.calls)-1
				if !last && why != "" {
					t.Fatalf("call %d refused early: %s", i+1, why)
				}
				if last && (why != "") != c.doom {
					t.Fatalf("last call: why %q, want doom %v", why, c.doom)
				}
				g.result(cl.name, cl.input, cl.failed)
			}
		})
	}
}

// TestStepperDoomNearRepeatStops: headless (no one to ask), a near-repeat
// stops the turn as an exact repeat does, and the error says what repeats.
func TestStepperDoomNearRepeatStops(t *testing.T) {
	sp, _ := newStepperFake(t, nil, nil)
	var stop string
	var err error
	for i := 1; i <= 3; i++ {
		in := fmt.Sprintf(`{"command":"make test N=%d"}`, i)
		e := &message.Entry{Parts: []message.Part{{Type: message.PartTool, Tool: &message.ToolState{Name: "bash", Input: in}}}}
		stop, err = sp.checkDoom(context.Background(), e, 0)
		if i < 3 && stop != "" {
			t.Fatalf("call %d stopped", i)
		}
		sp.doom.result("bash", in, true)
	}
	if stop != FinishDoomLoop || err == nil || !strings.Contains(err.Error(), "small variations") {
		t.Fatalf("stop %q err %v; want a doom loop naming the variations", stop, err)
	}
}
