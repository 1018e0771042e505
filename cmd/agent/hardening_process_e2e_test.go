package main

// End-to-end tests of the tools' processes (issue 11): the API key never
// reaches a tool command or anything stored, and a killed agent leaves no
// tool running behind it.

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxloop/agent/internal/message"

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
	for i := range 80 { // enough files that the first checkpoint is one pack (snapshot/packwrite.go)
		os.WriteFile(filepath.Join(e.work, fmt.Sprintf("f%02d.txt", i)), []byte(fmt.Sprintf("file %d\n", i)), 0o644)
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

// TestE2EKilledAgentLeavesNoTool kills the agent with SIGKILL while a bash
// tool runs a background job that would leave a mark later, then resumes
// the session: the tool's process group is gone (nothing of it runs, no
// mark appears) and its part says interrupted, which is then true.
func TestE2EKilledAgentLeavesNoTool(t *testing.T) {
	e := newEnv(t,
		pt.ToolCall("c1", "bash", `{"command":"(sleep 1; touch marker) & echo $$ > pid; wait; touch marker2"}`),
		pt.Text("resumed"),
	)
	cmd := exec.Command(agentBin, "run", "--yes", "--format", "json", "run it")
	cmd.Dir, cmd.Env = e.work, e.vars
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	start := time.Now()
	// Wait for the tool call, then for the command's pid file.
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var ev map[string]any
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev["type"] == "tool_call" {
			break
		}
	}
	pgid := 0
	for deadline := time.Now().Add(5 * time.Second); pgid == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the command never wrote its pid")
		}
		b, _ := os.ReadFile(filepath.Join(e.work, "pid"))
		if s := strings.TrimSpace(string(b)); strings.HasSuffix(string(b), "\n") {
			pgid, _ = strconv.Atoi(s)
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Cleanup(func() { killGroup(pgid) })

	res := e.run("", "run", "-c", "--yes", "go on")
	if res.code != 0 {
		t.Fatalf("resume: exit %d: %s", res.code, res.stderr)
	}
	if live := liveGroupMembers(pgid); len(live) > 0 {
		t.Errorf("the tool's process group %d still runs after recovery: %v", pgid, live)
	}
	// The background job would have touched the marker a second after it
	// started: wait past that and check nothing of it ran.
	time.Sleep(time.Until(start.Add(1500 * time.Millisecond)))
	for _, name := range []string{"marker", "marker2"} {
		if _, err := os.Stat(filepath.Join(e.work, name)); err == nil {
			t.Errorf("%s appeared: the tool ran on after the agent was killed", name)
		}
	}

	db, err := sql.Open("sqlite", filepath.Join(e.data, "agent.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var state string
	if err := db.QueryRow(`SELECT state FROM parts WHERE type = 'tool'`).Scan(&state); err != nil {
		t.Fatal(err)
	}
	var p message.Part
	if err := json.Unmarshal([]byte(state), &p); err != nil || p.Tool == nil {
		t.Fatalf("tool part %s: %v", state, err)
	}
	if p.Tool.Status != message.ToolError || p.Tool.Output != message.InterruptedOutput {
		t.Errorf("tool part after recovery: status %s, output %q", p.Tool.Status, p.Tool.Output)
	}
}

// liveGroupMembers lists the processes of group pgid that are not zombies
// (a zombie has run its course; here nobody may reap it).
func liveGroupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, en := range entries {
		pid, err := strconv.Atoi(en.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", en.Name(), "stat"))
		if err != nil {
			continue
		}
		// The fields after the command name: state ppid pgrp ...
		rest := string(b[bytes.LastIndexByte(b, ')')+2:])
		f := strings.Fields(rest)
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func killGroup(pgid int) {
	if pgid > 1 {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
}
