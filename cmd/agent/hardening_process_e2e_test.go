package main

// End-to-end tests of the tools' processes (issue 11): the API key never
// reaches a tool command or anything stored, and a killed agent leaves no
// tool running behind it.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2EKeyNeverReachesTools runs commands that try every way to print
// the API key (env, the variable, an alias holding the same value, a file
// holding it, read of that file, a long output that is saved in full) and
// checks the key is nowhere: not in stdout, not in the tool results, not
// in any byte under the data directory (agent.db, its WAL, saved outputs)
// and not in what the model was sent.
func TestE2EKeyNeverReachesTools(t *testing.T) {
	buf := make([]byte, 12)
	rand.Read(buf)
	key := "sk-test-" + hex.EncodeToString(buf)

	e := newEnv(t,
		pt.ToolCall("c1", "bash", `{"command":"env; echo \"var=$OPENAI_API_KEY\"; echo \"alias=$MY_ALIAS\"; cat keyfile"}`),
		pt.ToolCall("c2", "read", `{"path":"keyfile"}`),
		// Long enough to spill to a saved output; the key straddles the
		// pipe's chunk boundaries somewhere in 6000 copies.
		pt.ToolCall("c3", "bash", `{"command":"k=$(cat keyfile); for i in $(seq 1 6000); do echo \"line $i $k\"; done"}`),
		pt.Text("done"),
	)
	e.without("OPENAI_API_KEY")
	e.vars = append(e.vars, "OPENAI_API_KEY="+key, "MY_ALIAS="+key)
	if err := os.WriteFile(filepath.Join(e.work, "keyfile"), []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	res := e.run("", "run", "--yes", "--format", "json", "print the key")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if strings.Contains(res.stdout, key) || strings.Contains(res.stderr, key) {
		t.Errorf("the key is in the output of agent run")
	}
	results := 0
	for _, ev := range jsonEvents(t, res.stdout) {
		if ev["type"] != "tool_result" {
			continue
		}
		results++
		out, _ := ev["output"].(string)
		if ev["id"] == "c1" && (strings.Contains(out, "OPENAI_API_KEY=") || strings.Contains(out, "MY_ALIAS=")) {
			t.Errorf("the tool's environment holds the key's variables:\n%s", out)
		}
		if ev["id"] == "c1" && !strings.Contains(out, "[redacted]") {
			t.Errorf("cat keyfile was not redacted:\n%s", out)
		}
	}
	if results != 3 {
		t.Fatalf("%d tool results, want 3:\n%s", results, res.stdout)
	}
	saved := 0
	filepath.WalkDir(e.home, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if strings.HasSuffix(path, ".out") {
			saved++
		}
		data, _ := os.ReadFile(path)
		if bytes.Contains(data, []byte(key)) {
			t.Errorf("the key is in %s", path)
		}
		return nil
	})
	if saved == 0 {
		t.Errorf("no saved output under %s: the long output was not saved", e.home)
	}
	for i, req := range e.srv.Requests() {
		if bytes.Contains(req.Body, []byte(key)) {
			t.Errorf("request %d sent the key to the model", i+1)
		}
	}
}
