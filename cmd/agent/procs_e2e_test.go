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
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/mcp/mcptest"
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

// procStat reads state and ppid of pid; ok is false when pid is gone or a
// zombie.
func procStat(pid int) (ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, true
}

// childrenOf lists the live processes whose parent is pid.
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, en := range entries {
		p, err := strconv.Atoi(en.Name())
		if err != nil {
			continue
		}
		if ppid, ok := procStat(p); ok && ppid == pid {
			out = append(out, p)
		}
	}
	return out
}

// waitFor polls cond every few milliseconds until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(5 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

func readPid(path string) int {
	b, _ := os.ReadFile(path)
	if !bytes.HasSuffix(b, []byte("\n")) {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// TestE2EKilledAgentLeavesNoHookOrMCPServer kills the agent with SIGKILL
// while a PreToolUse hook sleeps (with a background job of its own) and a
// stdio MCP server runs: the hook's shell and the server die with the
// agent, and the next start of the agent stops the job the hook left.
func TestE2EKilledAgentLeavesNoHookOrMCPServer(t *testing.T) {
	e := newEnv(t, pt.ToolCall("c1", "bash", `{"command":"echo hi"}`), pt.Text("done"))
	marks := t.TempDir()
	writeJSON(t, filepath.Join(e.home, ".config", "agent", "config.json"), map[string]any{
		"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{
			"type": "command", "timeout": 120,
			"command": `sleep 300 & echo $! > "` + marks + `/job.tmp"; mv "` + marks + `/job.tmp" "` + marks + `/job"; echo $$ > "` + marks + `/hook.tmp"; mv "` + marks + `/hook.tmp" "` + marks + `/hook"; wait`,
		}}}}},
		"mcp": map[string]config.MCPServer{"t": mcptest.Stdio(t, nil)},
	})

	cmd := exec.Command(agentBin, "run", "--yes", "--format", "json", "go")
	cmd.Dir, cmd.Env = e.work, e.vars
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var hook, job int
	if !waitFor(10*time.Second, func() bool {
		hook, job = readPid(filepath.Join(marks, "hook")), readPid(filepath.Join(marks, "job"))
		return hook > 0 && job > 0
	}) {
		t.Fatal("the hook never started")
	}
	t.Cleanup(func() { killGroup(hook) })
	var server int
	for _, c := range childrenOf(cmd.Process.Pid) {
		if c != hook {
			server = c
		}
	}
	if server == 0 {
		t.Fatalf("no MCP server among the agent's children %v (hook %d)", childrenOf(cmd.Process.Pid), hook)
	}
	t.Cleanup(func() { killGroup(server) })

	cmd.Process.Kill()
	cmd.Wait()
	for name, pid := range map[string]int{"the hook's shell": hook, "the MCP server": server} {
		if !waitFor(5*time.Second, func() bool { _, ok := procStat(pid); return !ok }) {
			t.Errorf("%s (pid %d) runs on after the agent was killed", name, pid)
		}
	}
	if _, ok := procStat(job); !ok {
		t.Fatalf("the hook's background job %d died with the agent: nothing is left for the next start to reap", job)
	}
	if res := e.run("", "sessions"); res.code != 0 {
		t.Fatalf("the next start: exit %d: %s", res.code, res.stderr)
	}
	if !waitFor(5*time.Second, func() bool { _, ok := procStat(job); return !ok }) {
		t.Errorf("the hook's background job %d runs on after the next start", job)
	}
}
