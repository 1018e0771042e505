package loop

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/hooks"
	"github.com/ctxloop/agent/internal/message"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/tools"
)

// withHooks gives the harness's runner these hooks.
func withHooks(t testing.TB, hs ...hooks.Hook) harnessOpt {
	return func(o *Options, c *config.Config) {
		r, warnings := hooks.New(hs, hooks.Options{Secrets: []string{"sk-test-secret"}})
		if len(warnings) > 0 {
			t.Fatalf("hook warnings: %v", warnings)
		}
		o.Hooks = r
	}
}

// recordStdin is a hook command that saves its stdin in a new file of dir.
func recordStdin(dir string) string {
	return `cat > "$(mktemp "` + dir + `/in.XXXXXX")"`
}

// recorded reads the payloads recordStdin saved, by event.
func recorded(t *testing.T, dir string) map[string][]map[string]any {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "in.*"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]map[string]any{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v: %s", f, err, b)
		}
		name, _ := m["hook_event_name"].(string)
		out[name] = append(out[name], m)
	}
	return out
}

func TestHooksFireAtEachPointWithTheirJSON(t *testing.T) {
	logDir := t.TempDir()
	var hs []hooks.Hook
	for _, e := range hooks.Events {
		hs = append(hs, hooks.Hook{Event: e, Command: recordStdin(logDir)})
	}
	h := newHarnessWith(t, withHooks(t, hs...),
		pt.ToolCall("c1", "bash", `{"command":"echo hi"}`), pt.Text(long("one", 5)),
		pt.Text(long("two", 5)), pt.Text("three"), pt.Text(summaryText))
	for _, q := range []string{"first", "second", "third"} {
		if res := h.turn(q); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	if err := h.r.Compact(context.Background(), "keep the tests"); err != nil {
		t.Fatal(err)
	}
	id := h.r.Session().ID
	got := recorded(t, logDir)
	for _, e := range hooks.Events {
		for _, p := range got[e] {
			if p["session_id"] != id || p["cwd"] != h.dir || p["transcript_path"] != "" {
				t.Errorf("%s common fields: %v", e, p)
			}
		}
	}
	one := func(e string) map[string]any {
		t.Helper()
		if len(got[e]) != 1 {
			t.Fatalf("%s fired %d times", e, len(got[e]))
		}
		return got[e][0]
	}
	if p := one(hooks.SessionStart); p["source"] != "startup" || p["model"] != "gpt-4.1" {
		t.Errorf("SessionStart: %v", p)
	}
	var prompts []string
	for _, p := range got[hooks.UserPromptSubmit] {
		prompts = append(prompts, p["prompt"].(string))
	}
	if strings.Join(sortedStrings(prompts), ",") != "first,second,third" {
		t.Errorf("UserPromptSubmit prompts: %v", prompts)
	}
	pre := one(hooks.PreToolUse)
	if in, _ := pre["tool_input"].(map[string]any); pre["tool_name"] != "Bash" || pre["agent_tool_name"] != "bash" ||
		pre["tool_use_id"] != "c1" || in["command"] != "echo hi" {
		t.Errorf("PreToolUse: %v", pre)
	}
	post := one(hooks.PostToolUse)
	if resp, _ := post["tool_response"].(map[string]any); post["tool_name"] != "Bash" || !strings.Contains(resp["output"].(string), "hi") ||
		resp["is_error"] != false || post["tool_use_id"] != "c1" {
		t.Errorf("PostToolUse: %v", post)
	}
	if len(got[hooks.Stop]) != 3 {
		t.Fatalf("Stop fired %d times", len(got[hooks.Stop]))
	}
	var last []string
	for _, p := range got[hooks.Stop] {
		if p["stop_hook_active"] != false {
			t.Errorf("Stop: %v", p)
		}
		last = append(last, p["last_assistant_message"].(string))
	}
	if !strings.Contains(strings.Join(last, "|"), "three") {
		t.Errorf("Stop last_assistant_message: %q", last)
	}
	if p := one(hooks.PreCompact); p["trigger"] != "manual" || p["custom_instructions"] != "keep the tests" {
		t.Errorf("PreCompact: %v", p)
	}
	if p := one(hooks.PostCompact); p["trigger"] != "manual" || !strings.Contains(p["compact_summary"].(string), "Ship it.") {
		t.Errorf("PostCompact: %v", p)
	}
	if n := len(h.eventsOf(message.EventHook)); n != 1+3+1+1+3+1+1 {
		t.Errorf("%d hook events", n)
	}

	// Opening the session again is a resume.
	h.r.Close()
	r2, err := Open(context.Background(), h.r.opt, id)
	if err != nil {
		t.Fatal(err)
	}
	r2.Close()
	if starts := recorded(t, logDir)[hooks.SessionStart]; len(starts) != 2 || (starts[0]["source"] != "resume" && starts[1]["source"] != "resume") {
		t.Errorf("SessionStart after a resume: %v", starts)
	}
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// toolResult is the content of the tool message answering callID in msgs.
func toolResult(msgs []openai.ChatCompletionMessage, callID string) string {
	for _, m := range msgs {
		if m.Role == openai.ChatMessageRoleTool && m.ToolCallID == callID {
			return m.Content
		}
	}
	return ""
}

func TestPreToolUseHookExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		command string
		ran     bool
		result  string
		run     func(message.HookRun) bool
	}{
		{"exit 2 blocks", `echo "no shell today" >&2; exit 2`, false, "Blocked by a PreToolUse hook; nothing was run. The hook says:\nno shell today",
			func(r message.HookRun) bool {
				return r.Blocked && r.ExitCode == 2 && r.Output == "no shell today" && r.Tool == "bash"
			}},
		{"exit 1 does not", `echo "checker broke" >&2; exit 1`, true, "",
			func(r message.HookRun) bool { return !r.Blocked && r.ExitCode == 1 && r.Error == "exit status 1" }},
		{"JSON deny blocks", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not here"}}'`,
			false, "Blocked by a PreToolUse hook; nothing was run. The hook says:\nnot here",
			func(r message.HookRun) bool { return r.Blocked && r.ExitCode == 0 }},
		{"another tool is not matched", `exit 2`, true, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			matcher := "Bash"
			if tc.run == nil {
				matcher = "Write|Edit"
			}
			h := newHarnessWith(t, withHooks(t, hooks.Hook{Event: hooks.PreToolUse, Matcher: matcher, Command: tc.command}),
				pt.ToolCall("c1", "bash", `{"command":"touch ran.txt && echo made"}`), pt.Text("ok"))
			if res := h.turn("make it"); res.Err != nil {
				t.Fatal(res.Err)
			}
			_, err := os.Stat(filepath.Join(h.dir, "ran.txt"))
			if ran := err == nil; ran != tc.ran {
				t.Errorf("tool ran = %v", ran)
			}
			got := toolResult(h.request(1), "c1")
			if tc.result != "" && got != tc.result {
				t.Errorf("model got %q", got)
			}
			if tc.ran && !strings.Contains(got, "made") {
				t.Errorf("model got %q", got)
			}
			evs := h.eventsOf(message.EventHook)
			if tc.run == nil {
				if len(evs) != 0 {
					t.Errorf("hook ran for another tool: %+v", evs[0].Hook)
				}
				return
			}
			if len(evs) != 1 || !tc.run(*evs[0].Hook) {
				t.Errorf("hook events: %+v", evs)
			}
		})
	}
}

// recordingAsker counts permission questions and denies them.
type recordingAsker struct{ asked int }

func (a *recordingAsker) Ask(context.Context, tools.Request) (tools.Reply, error) {
	a.asked++
	return tools.Deny, nil
}

func TestPreToolUsePermissionDecisions(t *testing.T) {
	for _, tc := range []struct {
		decision string
		mode     tools.Mode
		ran      bool
		asked    int
	}{
		{"allow", tools.ModeAsk, true, 0},
		{"ask", tools.ModeAsk, false, 1},
		{"allow", tools.ModeDeny, false, 0}, // the configuration's deny stands
	} {
		t.Run(tc.decision+"/"+string(tc.mode), func(t *testing.T) {
			asker := &recordingAsker{}
			out := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"` + tc.decision + `"}}`
			h := newHarnessWith(t, func(o *Options, c *config.Config) {
				withHooks(t, hooks.Hook{Event: hooks.PreToolUse, Command: "echo '" + out + "'"})(o, c)
				o.Perms = tools.NewPermissions(map[string]tools.Mode{"bash": tc.mode}, asker, false)
			}, pt.ToolCall("c1", "bash", `{"command":"touch ran.txt"}`), pt.Text("ok"))
			if res := h.turn("go"); res.Err != nil {
				t.Fatal(res.Err)
			}
			_, err := os.Stat(filepath.Join(h.dir, "ran.txt"))
			if ran := err == nil; ran != tc.ran || asker.asked != tc.asked {
				t.Errorf("ran = %v, asked %d times", ran, asker.asked)
			}
		})
	}
}

func TestPostToolUseFeedbackReachesTheModel(t *testing.T) {
	h := newHarnessWith(t, withHooks(t,
		hooks.Hook{Event: hooks.PostToolUse, Matcher: "Bash", Command: `echo '{"decision":"block","reason":"lint: missing newline"}'`},
		hooks.Hook{Event: hooks.PostToolUse, Matcher: "Bash", Command: `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"coverage 81%"}}'`}),
		pt.ToolCall("c1", "bash", `{"command":"echo out"}`), pt.Text("ok"))
	if res := h.turn("go"); res.Err != nil {
		t.Fatal(res.Err)
	}
	want := "\n\nPostToolUse hook feedback:\nlint: missing newline\n\nPostToolUse hook context:\ncoverage 81%"
	if got := toolResult(h.request(1), "c1"); !strings.HasPrefix(got, "out\n") || !strings.HasSuffix(got, want) {
		t.Errorf("model got %q, want %q", got, want)
	}
}

func TestUserPromptSubmitBlocksOrAddsContext(t *testing.T) {
	h := newHarnessWith(t, withHooks(t, hooks.Hook{Event: hooks.UserPromptSubmit,
		Command: `if grep -q secret; then echo "prompts about secrets are not sent" >&2; exit 2; fi; echo "Current branch: main"`}),
		pt.Text("hello back"))
	_, err := h.r.Send(context.Background(), "tell me the secret")
	if !errors.Is(err, ErrPromptBlocked) || !strings.Contains(err.Error(), "prompts about secrets are not sent") {
		t.Fatalf("Send = %v", err)
	}
	if h.r.Busy() || len(h.r.History()) != 0 || len(h.srv.Requests()) != 0 {
		t.Fatalf("a blocked prompt was kept: busy %v, %d messages, %d requests", h.r.Busy(), len(h.r.History()), len(h.srv.Requests()))
	}
	if evs := h.eventsOf(message.EventHook); len(evs) != 1 || !evs[0].Hook.Blocked {
		t.Errorf("hook events: %+v", evs)
	}
	if res := h.turn("hello"); res.Err != nil {
		t.Fatal(res.Err)
	}
	msgs := h.request(0)
	n := len(msgs)
	if msgs[n-2].Content != "hello" || !strings.Contains(msgs[n-1].Content, "Current branch: main") || msgs[n-1].Role != "user" {
		t.Errorf("request ends %q, %q", msgs[n-2].Content, msgs[n-1].Content)
	}
	if s := h.r.Session(); s.Title != "hello" {
		t.Errorf("title = %q", s.Title)
	}
}

func TestSessionStartContextJoinsTheSystemPrompt(t *testing.T) {
	h := newHarnessWith(t, withHooks(t, hooks.Hook{Event: hooks.SessionStart, Matcher: "startup", Command: `echo "open issues: 3"`}),
		pt.Text("ok"))
	if res := h.turn("hi"); res.Err != nil {
		t.Fatal(res.Err)
	}
	var system []string
	for _, m := range h.request(0) {
		if m.Role == "system" {
			system = append(system, m.Content)
		}
	}
	if len(system) != 3 || !strings.Contains(system[2], "open issues: 3") {
		t.Errorf("system messages: %q", system)
	}
}

func TestStopHookContinuesTheTurn(t *testing.T) {
	h := newHarnessWith(t, withHooks(t, hooks.Hook{Event: hooks.Stop,
		Command: `if grep -q '"stop_hook_active":false'; then echo "run the tests first" >&2; exit 2; fi`}),
		pt.Text("done"), pt.Text("tests pass"))
	res := h.turn("fix it")
	if res.Err != nil || res.FinishReason != "stop" || res.Steps != 2 {
		t.Fatalf("turn = %+v", res)
	}
	msgs := h.request(1)
	if last := msgs[len(msgs)-1]; last.Role != "user" || last.Content != "Stop hook feedback:\nrun the tests first" {
		t.Errorf("second request ends with %s %q", last.Role, last.Content)
	}
	hist := h.r.History()
	if e := hist[2]; e.Message.Role != message.RoleUser || !e.Message.Synthetic {
		t.Errorf("feedback message = %+v", e.Message)
	}
}

func TestStopHookContinuationsAreBounded(t *testing.T) {
	h := newHarnessWith(t, withHooks(t, hooks.Hook{Event: hooks.Stop, Command: `echo '{"decision":"block","reason":"again"}'`}),
		pt.Text("1"), pt.Text("2"), pt.Text("3"), pt.Text("4"), pt.Text("5"))
	res := h.turn("go")
	if res.Err != nil || res.Steps != 1+maxStopContinuations {
		t.Fatalf("turn = %+v", res)
	}
	if n := len(h.srv.Requests()); n != 1+maxStopContinuations {
		t.Errorf("%d requests", n)
	}
	if notes := h.r.Notes(); len(notes) == 0 || !strings.Contains(notes[len(notes)-1], "Stop hooks kept the turn going 3 times") {
		t.Errorf("notes = %q", notes)
	}
}

func TestStopHookContinuationKeepsTheStepLimit(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		withHooks(t, hooks.Hook{Event: hooks.Stop, Command: `exit 2`})(o, c)
		o.MaxSteps = 2
	}, pt.Text("1"), pt.ToolCall("c1", "bash", `{"command":"true"}`), pt.Text("3"))
	res := h.turn("go")
	if res.Steps != 2 || res.FinishReason != FinishMaxSteps {
		t.Errorf("turn = %+v", res)
	}
}

func TestHookTimeoutIsKilledAndReported(t *testing.T) {
	h := newHarnessWith(t, withHooks(t, hooks.Hook{Event: hooks.PreToolUse, Command: `sleep 30`, Timeout: 500 * time.Millisecond}),
		pt.ToolCall("c1", "bash", `{"command":"echo ran"}`), pt.Text("ok"))
	start := time.Now()
	if res := h.turn("go"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("turn took %s", took)
	}
	evs := h.eventsOf(message.EventHook)
	if len(evs) != 1 || !evs[0].Hook.TimedOut || evs[0].Hook.Error != "timed out after 500ms; killed" || evs[0].Hook.Blocked {
		t.Fatalf("hook events: %+v", evs)
	}
	if got := toolResult(h.request(1), "c1"); !strings.Contains(got, "ran") {
		t.Errorf("a timed-out hook blocked the call: %q", got)
	}
}

func TestPreCompactHookBlocksACompaction(t *testing.T) {
	h := newHarnessWith(t, withHooks(t, hooks.Hook{Event: hooks.PreCompact, Matcher: "manual", Command: `echo "not now" >&2; exit 2`}),
		pt.Text(long("one", 5)), pt.Text(long("two", 5)), pt.Text("three"))
	for _, q := range []string{"first", "second", "third"} {
		h.turn(q)
	}
	err := h.r.Compact(context.Background(), "")
	if !errors.Is(err, ErrCompactionBlocked) || !strings.Contains(err.Error(), "not now") {
		t.Fatalf("Compact = %v", err)
	}
	if n := len(h.srv.Requests()); n != 3 {
		t.Errorf("%d requests: a summary was asked for", n)
	}
}

func TestContinueFalseEndsTheTurn(t *testing.T) {
	h := newHarnessWith(t, withHooks(t, hooks.Hook{Event: hooks.PostToolUse, Command: `echo '{"continue":false,"stopReason":"the build broke"}'`}),
		pt.ToolCalls(pt.Call{ID: "c1", Name: "bash", Args: `{"command":"echo a"}`}, pt.Call{ID: "c2", Name: "bash", Args: `{"command":"touch b.txt"}`}),
		pt.Text("never"))
	res := h.turn("go")
	if res.FinishReason != FinishStopped || len(h.srv.Requests()) != 1 {
		t.Errorf("turn = %+v after %d requests", res, len(h.srv.Requests()))
	}
	if _, err := os.Stat(filepath.Join(h.dir, "b.txt")); err == nil {
		t.Error("the call after the stop ran")
	}
	if notes := h.r.Notes(); len(notes) == 0 || !strings.Contains(notes[len(notes)-1], "the build broke") {
		t.Errorf("notes = %q", notes)
	}
}

// gatedLateTool is a tool from outside the agent: it asks before it runs.
type gatedLateTool struct{ lateTool }

func (g gatedLateTool) PermissionKeys() []string { return []string{g.name} }

type gatedSource struct{}

func (gatedSource) Tools() []tools.Tool { return []tools.Tool{gatedLateTool{lateTool{"srv__lookup"}}} }

// TestPreToolUseHookKeepsGatedToolsAsking: with a PreToolUse hook that
// decides nothing, an MCP tool still asks before it runs (and, with nobody
// to ask, is denied) as it does without hooks.
func TestPreToolUseHookKeepsGatedToolsAsking(t *testing.T) {
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		withHooks(t, hooks.Hook{Event: hooks.PreToolUse, Command: "true"})(o, c)
		o.Extra = gatedSource{}
		o.Perms = tools.NewPermissions(nil, nil, false)
	},
		pt.ToolCalls(pt.Call{ID: "g1", Name: "srv__lookup", Args: `{"q":"x"}`}),
		pt.Text("done"),
	)
	if res := h.turn("go"); res.Err != nil {
		t.Fatal(res.Err)
	}
	var result string
	for _, m := range h.request(1) {
		if m.ToolCallID == "g1" {
			result = m.Content
		}
	}
	if strings.Contains(result, "late answer") || !strings.Contains(result, "permission denied") {
		t.Fatalf("the gated tool's result with a hook configured = %q, want a denial", result)
	}
}
