package hooks

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMatcher(t *testing.T) {
	for _, tc := range []struct {
		matcher string
		ev      Event
		want    bool
	}{
		{"", Event{Name: PreToolUse, Tool: "bash"}, true},
		{"*", Event{Name: PreToolUse, Tool: "bash"}, true},
		{"Bash", Event{Name: PreToolUse, Tool: "bash"}, true},       // Claude Code's name
		{"bash", Event{Name: PreToolUse, Tool: "bash"}, true},       // ours
		{"Bas", Event{Name: PreToolUse, Tool: "bash"}, false},       // exact, not a prefix
		{"Write|Edit", Event{Name: PreToolUse, Tool: "edit"}, true}, // a list
		{"Write|Edit", Event{Name: PreToolUse, Tool: "read"}, false},
		{"Edit|MultiEdit|Write", Event{Name: PostToolUse, Tool: "write"}, true},
		{"mcp__github__.*", Event{Name: PreToolUse, Tool: "github__create_issue"}, true},
		{"mcp__.*", Event{Name: PreToolUse, Tool: "bash"}, false},
		{".*__create_issue", Event{Name: PreToolUse, Tool: "github__create_issue"}, true},
		{"Notebook.*", Event{Name: PreToolUse, Tool: "edit"}, false},
		{"LS", Event{Name: PreToolUse, Tool: "ls"}, true},
		{"auto", Event{Name: PreCompact, Trigger: TriggerAuto}, true},
		{"auto", Event{Name: PreCompact, Trigger: TriggerManual}, false},
		{"startup", Event{Name: SessionStart, Source: SourceResume}, false},
		{"resume", Event{Name: SessionStart, Source: SourceResume}, true},
		{"Bash", Event{Name: Stop}, true}, // no matching for Stop
		{"Bash", Event{Name: UserPromptSubmit}, true},
	} {
		m, err := compileMatcher(tc.matcher)
		if err != nil {
			t.Fatalf("%q: %v", tc.matcher, err)
		}
		if got := m.match(matchNames(tc.ev)); got != tc.want {
			t.Errorf("matcher %q on %+v = %v, want %v", tc.matcher, tc.ev, got, tc.want)
		}
	}
	if _, err := compileMatcher("(?=x)"); err == nil {
		t.Error("a lookahead compiled")
	}
}

func TestInterpretExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		event   string
		res     execResult
		block   bool
		context string
		output  string
		err     string
	}{
		{"exit 0 stdout shown", PreToolUse, execResult{exitCode: 0, stdout: "checked\n"}, false, "", "checked", ""},
		{"exit 0 stdout is context for a prompt", UserPromptSubmit, execResult{exitCode: 0, stdout: "branch: main\n"}, false, "branch: main", "branch: main", ""},
		{"exit 0 stdout is context at start", SessionStart, execResult{exitCode: 0, stdout: "todo: x"}, false, "todo: x", "todo: x", ""},
		{"exit 2 blocks with stderr", PreToolUse, execResult{exitCode: 2, stderr: "no rm -rf\n", stdout: `{"decision":"approve"}`}, true, "", "no rm -rf", ""},
		{"exit 2 blocks a stop", Stop, execResult{exitCode: 2, stderr: "tests fail"}, true, "", "tests fail", ""},
		{"exit 2 cannot block a start", SessionStart, execResult{exitCode: 2, stderr: "nope"}, false, "", "nope", "exit status 2 (this event cannot be blocked)"},
		{"exit 2 without stderr", PreToolUse, execResult{exitCode: 2}, true, "", `blocked by the hook "cmd" (exit 2, nothing on stderr)`, ""},
		{"exit 1 is a non-blocking error", PreToolUse, execResult{exitCode: 1, stderr: "oops"}, false, "", "oops", "exit status 1"},
		{"exit 1 does not add context", UserPromptSubmit, execResult{exitCode: 1, stdout: "ctx", stderr: "bad"}, false, "", "bad", "exit status 1"},
		{"timeout", PreToolUse, execResult{exitCode: -1, timedOut: true, timeout: "1s", err: errString("timed out")}, false, "", "", "timed out after 1s; killed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := interpret(tc.event, "cmd", tc.res)
			if v.block != tc.block || v.context != tc.context || v.run.Output != tc.output || v.run.Error != tc.err {
				t.Errorf("verdict = block %v context %q output %q error %q", v.block, v.context, v.run.Output, v.run.Error)
			}
			if v.block && v.reason != tc.output {
				t.Errorf("reason = %q", v.reason)
			}
			if v.run.Blocked != v.block {
				t.Errorf("run.Blocked = %v", v.run.Blocked)
			}
		})
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func TestInterpretJSON(t *testing.T) {
	for _, tc := range []struct {
		name       string
		event      string
		stdout     string
		block      bool
		reason     string
		permission string
		context    string
		stop       bool
		output     string
	}{
		{"deny", PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not in prod"}}`,
			true, "not in prod", Deny, "", false, "not in prod"},
		{"allow", PreToolUse, `{"hookSpecificOutput":{"permissionDecision":"allow","permissionDecisionReason":"safe"}}`,
			false, "", Allow, "", false, ""},
		{"ask", PreToolUse, `{"hookSpecificOutput":{"permissionDecision":"ask"}}`, false, "", Ask, "", false, ""},
		{"legacy approve", PreToolUse, `{"decision":"approve","reason":"ok"}`, false, "", Allow, "", false, ""},
		{"legacy block", PreToolUse, `{"decision":"block","reason":"no"}`, true, "no", Deny, "", false, "no"},
		{"post block", PostToolUse, `{"decision":"block","reason":"lint failed"}`, true, "lint failed", "", "", false, "lint failed"},
		{"stop block", Stop, `{"decision":"block","reason":"run the tests"}`, true, "run the tests", "", "", false, "run the tests"},
		{"context", UserPromptSubmit, `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"time: noon"}}`,
			false, "", "", "time: noon", false, ""},
		{"continue false", PostToolUse, `{"continue":false,"stopReason":"build broke","systemMessage":"heads up"}`,
			false, "", "", "", true, "heads up\nbuild broke"},
		{"system message", PreCompact, `{"systemMessage":"saving notes","suppressOutput":true}`, false, "", "", "", false, "saving notes"},
		{"start cannot block", SessionStart, `{"decision":"block","reason":"x"}`, false, "", "", "", false, ""},
		{"not JSON is plain", PreToolUse, `{oops`, false, "", "", "", false, "{oops"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := interpret(tc.event, "cmd", execResult{exitCode: 0, stdout: tc.stdout})
			if v.block != tc.block || v.reason != tc.reason || v.permission != tc.permission ||
				v.context != tc.context || v.stop != tc.stop || v.run.Output != tc.output {
				t.Errorf("verdict = %+v", v)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	vs := []verdict{
		{permission: Allow, permissionReason: "fine", context: "a", run: Run{Command: "1"}},
		{block: true, reason: "first", permission: Deny, run: Run{Command: "2", Blocked: true}},
		{permission: Ask, context: "b", run: Run{Command: "3"}},
		{block: true, reason: "second", permission: Deny, stop: true, stopReason: "halt", run: Run{Command: "4"}},
	}
	o := merge(PreToolUse, vs)
	if !o.Blocked || o.Reason != "first\nsecond" || o.Permission != Deny || o.Context != "a\n\nb" || !o.Stop || o.StopReason != "halt" {
		t.Errorf("outcome = %+v", o)
	}
	if len(o.Runs) != 4 || o.Runs[1].Command != "2" {
		t.Errorf("runs = %+v", o.Runs)
	}
	o = merge(PreToolUse, []verdict{{permission: Allow, permissionReason: "ok"}, {permission: Ask}})
	if o.Blocked || o.Permission != Ask {
		t.Errorf("ask over allow: %+v", o)
	}
	if o := merge(PreToolUse, nil); o.Blocked || o.Permission != "" || o.Runs != nil {
		t.Errorf("no verdicts: %+v", o)
	}
}

func TestPayloadPerEvent(t *testing.T) {
	decode := func(ev Event) map[string]any {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(Payload(ev), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"session_id", "transcript_path", "cwd", "hook_event_name"} {
			if _, ok := m[k]; !ok {
				t.Errorf("%s payload lacks %s", ev.Name, k)
			}
		}
		return m
	}
	m := decode(Event{Name: PreToolUse, SessionID: "s1", Dir: "/w", Tool: "edit", ToolUseID: "c1",
		ToolInput: json.RawMessage(`{"path":"a/b.go","old_string":"x","new_string":"y"}`)})
	in := m["tool_input"].(map[string]any)
	if m["tool_name"] != "Edit" || m["agent_tool_name"] != "edit" || m["tool_use_id"] != "c1" ||
		in["file_path"] != "/w/a/b.go" || in["path"] != "a/b.go" || in["old_string"] != "x" || m["cwd"] != "/w" || m["session_id"] != "s1" {
		t.Errorf("PreToolUse payload = %v", m)
	}
	m = decode(Event{Name: PostToolUse, Dir: "/w", Tool: "bash", ToolInput: json.RawMessage(`{"command":"ls","timeout_s":5}`), ToolOutput: "a\nb", ToolIsError: true})
	resp := m["tool_response"].(map[string]any)
	in = m["tool_input"].(map[string]any)
	if m["tool_name"] != "Bash" || in["timeout"] != 5000.0 || resp["stdout"] != "a\nb" || resp["is_error"] != true || resp["success"] != false {
		t.Errorf("PostToolUse payload = %v", m)
	}
	m = decode(Event{Name: PreToolUse, Tool: "github__create_issue", ToolInput: json.RawMessage(`{"title":"t"}`)})
	if m["tool_name"] != "mcp__github__create_issue" {
		t.Errorf("MCP tool_name = %v", m["tool_name"])
	}
	m = decode(Event{Name: Stop})
	if v, ok := m["stop_hook_active"]; !ok || v != false {
		t.Errorf("Stop payload = %v", m)
	}
	m = decode(Event{Name: PreCompact, Trigger: TriggerManual, CustomInstructions: "keep the API"})
	if m["trigger"] != "manual" || m["custom_instructions"] != "keep the API" {
		t.Errorf("PreCompact payload = %v", m)
	}
	m = decode(Event{Name: SessionStart, Source: SourceResume, Model: "m"})
	if m["source"] != "resume" || m["model"] != "m" {
		t.Errorf("SessionStart payload = %v", m)
	}
	m = decode(Event{Name: UserPromptSubmit, Prompt: "hi"})
	if m["prompt"] != "hi" || m["hook_event_name"] != "UserPromptSubmit" {
		t.Errorf("UserPromptSubmit payload = %v", m)
	}
	if p := string(Payload(Event{Name: PreToolUse, Tool: "bash", ToolInput: json.RawMessage(`{broken`)})); !strings.Contains(p, `"tool_input":"{broken"`) {
		t.Errorf("broken input payload = %s", p)
	}
}

func TestBoundedBuffer(t *testing.T) {
	b := &boundedBuffer{max: 4}
	for _, s := range []string{"ab", "cdef", "gh"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatal(n, err)
		}
	}
	if got := b.String(); got != "abcd\n[hook output truncated: 4 more bytes]" {
		t.Errorf("String = %q", got)
	}
}
