package main

// End-to-end tests of the agent's own process and its children (issue
// "Hardening 2", items 2 and 8): a child cannot read the API key out of
// the agent's /proc entries, and nothing the agent started (hooks, MCP
// stdio servers) outlives a kill -9 of it.

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

func reversed(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// TestE2EKeyNotReadableFromTheAgentsProc has the model run the commands of
// the issue, which read the agent's initial environment through
// /proc/$PPID/environ (reversed, so redaction cannot recognise it): the key
// is neither in what goes back to the model nor anywhere under the data
// directory.
func TestE2EKeyNotReadableFromTheAgentsProc(t *testing.T) {
	buf := make([]byte, 12)
	rand.Read(buf)
	key := "sk-proc-" + hex.EncodeToString(buf)
	e := newEnv(t,
		pt.ToolCall("c1", "bash", `{"command":"tr '\\0' '\\n' < /proc/$PPID/environ | rev; echo exit=$?"}`),
		pt.ToolCall("c2", "bash", `{"command":"cat /proc/$PPID/environ; echo; echo exit=$?"}`),
		pt.ToolCall("c3", "bash", `{"command":"cat /proc/$PPID/cmdline /proc/$PPID/task/*/environ 2>&1 | tr '\\0' '\\n' | rev"}`),
		// The heap: every writable mapping of /proc/$PPID/mem.
		pt.ToolCall("c4", "bash", `{"command":"while read -r range perms rest; do case $perms in rw*) s=$((16#${range%-*})); e=$((16#${range#*-})); dd if=/proc/$PPID/mem bs=1M iflag=skip_bytes,count_bytes skip=$s count=$((e-s)) 2>/dev/null;; esac; done < /proc/$PPID/maps | grep -a -o 'sk-proc-[0-9a-f]*' | sort -u | rev; echo exit=$?"}`),
		pt.Text("done"),
	)
	e.without("OPENAI_API_KEY")
	e.vars = append(e.vars, "OPENAI_API_KEY="+key)

	res := e.run("", "run", "--yes", "--format", "json", "read the key")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	results := 0
	for _, ev := range jsonEvents(t, res.stdout) {
		if ev["type"] != "tool_result" {
			continue
		}
		results++
		if out, _ := ev["output"].(string); !strings.Contains(out, "exit=") && ev["id"] != "c3" {
			t.Errorf("%s did not run to its end:\n%s", ev["id"], out)
		}
	}
	if results != 4 {
		t.Fatalf("%d tool results, want 4:\n%s", results, res.stdout)
	}
	for _, s := range []string{key, reversed(key)} {
		for i, req := range e.srv.Requests() {
			if bytes.Contains(req.Body, []byte(s)) {
				t.Errorf("request %d sent the key (or its reverse %v) to the model", i+1, s != key)
			}
		}
		filepath.WalkDir(e.home, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if data, _ := os.ReadFile(path); bytes.Contains(data, []byte(s)) {
				t.Errorf("the key (or its reverse %v) is in %s", s != key, path)
			}
			return nil
		})
	}
}
