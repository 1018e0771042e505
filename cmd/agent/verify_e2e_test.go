package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// guardEvents are the "guard" events of a --format json run.
func guardEvents(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(stdout, "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) == nil && ev["type"] == "guard" {
			out = append(out, ev)
		}
	}
	return out
}

// TestE2EVerifyStep: a turn that wrote a file and ran no build or test
// gets one extra step asking the model to verify (a "guard" event of kind
// verify, the request's last message the check), once per turn; a turn
// that ran a command the user named in verify.commands after the write
// does not; nor does any turn with verify: false.
func TestE2EVerifyStep(t *testing.T) {
	write := pt.ToolCall("c_w", "write", `{"path":"a.txt","content":"hi\n"}`)
	cases := []struct {
		name     string
		verify   any
		steps    []pt.Step
		guards   int
		requests int
		answer   string
	}{
		{"fires once after a write", map[string]any{"commands": []string{"true"}},
			[]pt.Step{write, pt.Text("Done."), pt.ToolCall("c_t", "bash", `{"command":"true"}`), pt.Text("Verified.")}, 1, 4, "Verified."},
		{"once: a check step that does not verify is not asked again", nil,
			[]pt.Step{write, pt.Text("Done."), pt.Text("I cannot verify: there are no tests.")}, 1, 3, "I cannot verify: there are no tests."},
		{"not after a test ran", map[string]any{"commands": []string{"true"}},
			[]pt.Step{write, pt.ToolCall("c_t", "bash", `{"command":"true"}`), pt.Text("Done.")}, 0, 3, "Done."},
		{"off by config", false, []pt.Step{write, pt.Text("Done.")}, 0, 2, "Done."},
	}
	// Without a project marker (go.mod here) nor verify.commands, a
	// scratch directory has nothing to verify.
	t.Run("not in a directory with nothing to verify", func(t *testing.T) {
		e := newEnv(t, write, pt.Text("Done."))
		if res := e.run("", "run", "--yes", "--format", "json", "write a.txt"); res.code != 0 || len(guardEvents(t, res.stdout)) != 0 {
			t.Fatalf("exit %d, guards %v", res.code, guardEvents(t, res.stdout))
		}
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.steps...)
			cfg := map[string]any{}
			if c.verify != nil {
				cfg["verify"] = c.verify
			}
			writeJSON(t, filepath.Join(e.home, ".config", "agent", "config.json"), cfg)
			if err := os.WriteFile(filepath.Join(e.work, "go.mod"), []byte("module m\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := e.run("", "run", "--yes", "--format", "json", "write a.txt")
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			guards := guardEvents(t, res.stdout)
			if len(guards) != c.guards {
				t.Fatalf("%d guard events, want %d:\n%s", len(guards), c.guards, res.stdout)
			}
			reqs := e.srv.Requests()
			if len(reqs) != c.requests {
				t.Fatalf("%d requests, want %d", len(reqs), c.requests)
			}
			if c.guards > 0 {
				if guards[0]["kind"] != "verify" {
					t.Errorf("guard = %v", guards[0])
				}
				msgs := reqs[2].Chat.Messages
				if last := msgs[len(msgs)-1]; last.Role != "user" || !strings.HasPrefix(last.Content, "[verify]") {
					t.Errorf("the check step's request ends with %s %q", last.Role, last.Content)
				}
			}
			var done map[string]any
			for _, line := range strings.Split(res.stdout, "\n") {
				var ev map[string]any
				if json.Unmarshal([]byte(line), &ev) == nil && ev["type"] == "done" {
					done = ev
				}
			}
			if done["text"] != c.answer {
				t.Errorf("done.text = %v, want %q", done["text"], c.answer)
			}
		})
	}
}
