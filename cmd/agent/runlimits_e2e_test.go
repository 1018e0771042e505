package main

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// limitedModel calls a tool (from call) at every step that offers tools;
// offered none, it answers "Final answer." unless stubborn, when it calls
// a tool anyway.
func limitedModel(srv *pt.Server, stubborn bool, call func(i int64) (name, input string)) {
	var n atomic.Int64
	srv.Handle(func(req pt.Request) pt.Step {
		i := n.Add(1)
		if len(req.Chat.Tools) == 0 && !stubborn {
			return pt.Text("Final answer.")
		}
		name, input := call(i)
		return pt.ToolCall(fmt.Sprintf("call_%d", i), name, input)
	})
}

func lastUserText(req pt.Request) string {
	msgs := req.Chat.Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i].Content
		}
	}
	return ""
}

// TestE2EMaxStepsBudget: with --max-steps 8 the model is told at step 7
// that a quarter is left, step 8 is offered no tools and answers, and the
// run ends cleanly (exit 0, finish_reason max_steps, done.text the
// answer). A model that calls a tool in that step anyway has it refused,
// not run.
func TestE2EMaxStepsBudget(t *testing.T) {
	for _, stubborn := range []bool{false, true} {
		t.Run(fmt.Sprintf("stubborn=%v", stubborn), func(t *testing.T) {
			e := newEnv(t)
			limitedModel(e.srv, stubborn, func(i int64) (string, string) {
				return "glob", fmt.Sprintf(`{"pattern":"*.x%d"}`, i)
			})
			res := e.run("", "run", "--format", "json", "--max-steps", "8", "work")
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			reqs := e.srv.Requests()
			if len(reqs) != 8 {
				t.Fatalf("%d requests, want 8", len(reqs))
			}
			for i, r := range reqs[:6] {
				if strings.Contains(lastUserText(r), "[budget]") {
					t.Errorf("request %d already carries a budget note", i+1)
				}
			}
			if got := lastUserText(reqs[6]); !strings.Contains(got, "[budget] A quarter of this run's budget is left: 2 of 8 steps") {
				t.Errorf("request 7's note = %q", got)
			}
			if len(reqs[7].Chat.Tools) != 0 || !strings.Contains(lastUserText(reqs[7]), "last step of this run") {
				t.Errorf("request 8: %d tools, note %q; want none and the last-step note", len(reqs[7].Chat.Tools), lastUserText(reqs[7]))
			}
			evs := jsonEvents(t, res.stdout)
			var kinds []string
			for _, ev := range evs {
				if ev["type"] == "guard" {
					kinds = append(kinds, ev["kind"].(string))
				}
				if ev["type"] == "tool_result" && ev["id"] == "call_8" {
					if out, _ := ev["output"].(string); ev["is_error"] != true || !strings.Contains(out, "Not run") {
						t.Errorf("the last step's tool was not refused: %v", ev)
					}
				}
			}
			if strings.Join(kinds, ",") != "budget,final" {
				t.Errorf("guard kinds = %v, want budget,final", kinds)
			}
			done := evs[len(evs)-1]
			if done["type"] != "done" || done["finish_reason"] != "max_steps" {
				t.Errorf("done = %v", done)
			}
			if !stubborn && done["text"] != "Final answer." {
				t.Errorf("done.text = %v", done["text"])
			}
		})
	}
}

// TestE2ETimeoutBudget: with --timeout the model is told when a quarter
// of the time is left, and the first step to start after the time is up
// is offered no tools and answers: exit 0, finish_reason timeout. Each
// step's tool takes 0.4 s, so the quarter (1 s) cannot be stepped over.
func TestE2ETimeoutBudget(t *testing.T) {
	e := newEnv(t)
	limitedModel(e.srv, false, func(i int64) (string, string) {
		return "bash", fmt.Sprintf(`{"command":"sleep 0.4; echo %d"}`, i)
	})
	res := e.run("", "run", "--yes", "--format", "json", "--timeout", "4s", "work")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	reqs := e.srv.Requests()
	last := reqs[len(reqs)-1]
	if len(last.Chat.Tools) != 0 || !strings.Contains(lastUserText(last), "time is up (--timeout 4s)") {
		t.Errorf("the last request: %d tools, note %q", len(last.Chat.Tools), lastUserText(last))
	}
	notes := 0
	for i, r := range reqs {
		if strings.Contains(lastUserText(r), "A quarter of this run's budget is left: about") &&
			(i == 0 || lastUserText(reqs[i-1]) != lastUserText(r)) {
			notes++
		}
	}
	evs := jsonEvents(t, res.stdout)
	done := evs[len(evs)-1]
	if notes != 1 || done["finish_reason"] != "timeout" || done["text"] != "Final answer." {
		t.Errorf("%d quarter notes over %d requests, done %v; want 1 note and a timeout with the answer", notes, len(reqs), done)
	}
	for _, ev := range evs {
		if ev["type"] == "tool_result" && ev["is_error"] == true {
			t.Errorf("a tool was cut: %v", ev)
		}
	}
}
