package main

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
	_ "modernc.org/sqlite"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// crashScript plays a session of tool calls and answers with small delays,
// so that a kill lands anywhere: mid-stream, mid-tool, between steps.
func crashScript(req pt.Request) pt.Step {
	msgs := req.Chat.Messages
	results := 0
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role != "user"; i-- {
		if msgs[i].Role == "tool" {
			results++
		}
	}
	if results < 3 {
		id := fmt.Sprintf("call_%d_%d", len(msgs), results)
		chunks := []pt.Chunk{pt.TextChunk("Running step. "), pt.Delay(10 * time.Millisecond)}
		chunks = append(chunks, pt.ToolCallChunks(0, id, "bash", fmt.Sprintf(`{"command":"sleep 0.05; echo out-%s"}`, id), 4)...)
		return pt.Reply(append(chunks, pt.FinishChunk("tool_calls"), pt.AutoUsageChunk())...)
	}
	var chunks []pt.Chunk
	for i := 0; i < 20; i++ {
		chunks = append(chunks, pt.TextChunk(fmt.Sprintf("word%d ", i)), pt.Delay(5*time.Millisecond))
	}
	return pt.Reply(append(chunks, pt.FinishChunk("stop"), pt.AutoUsageChunk())...)
}

// TestCrashRecovery kills the real binary with SIGKILL at seeded random
// moments of a scripted session, then checks the database is intact, that
// everything reported as done before the kill is stored, and that resuming
// sends a valid request. `make crash` runs 100 trials (AGENT_CRASH_TRIALS).
func TestCrashRecovery(t *testing.T) {
	trials := 10
	if v, err := strconv.Atoi(os.Getenv("AGENT_CRASH_TRIALS")); err == nil && v > 0 {
		trials = v
	}
	rnd := rand.New(rand.NewPCG(2026, 11))
	for i := 0; i < trials; i++ {
		killAfter := time.Duration(20+rnd.IntN(500)) * time.Millisecond
		t.Run(fmt.Sprintf("trial%d_%v", i, killAfter), func(t *testing.T) {
			crashTrial(t, killAfter)
		})
	}
}

func crashTrial(t *testing.T, killAfter time.Duration) {
	e := newEnv(t)
	e.srv.Handle(crashScript)
	cmd := exec.Command(agentBin, "run", "--yes", "--format", "json", "do the task")
	cmd.Dir, cmd.Env = e.work, e.vars
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var events []map[string]any
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				mu.Lock()
				events = append(events, ev)
				mu.Unlock()
			}
		}
	}()
	timer := time.NewTimer(killAfter)
	exited := make(chan error, 1)
	go func() { <-read; exited <- cmd.Wait() }()
	select {
	case <-timer.C:
		cmd.Process.Kill()
		<-exited
	case <-exited:
		timer.Stop()
	}

	// The database is intact (if the kill came before it was created,
	// there is nothing to check).
	dbPath := filepath.Join(e.data, "agent.db")
	if _, err := os.Stat(dbPath); err != nil {
		if len(events) > 0 {
			t.Fatalf("events were reported but there is no database: %v", err)
		}
		resumeAndCheck(t, e)
		return
	}
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	var check string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	// Every tool result reported before the kill is stored as such.
	stored := map[string]string{}
	rows, err := db.Query(`SELECT state FROM parts WHERE type = 'tool'`)
	if err != nil {
		// Killed before the schema was created: nothing can have been
		// reported yet.
		rows = nil
		if len(events) > 0 {
			t.Fatal(err)
		}
	}
	for rows != nil && rows.Next() {
		var state string
		rows.Scan(&state)
		var p struct {
			Tool struct {
				CallID string `json:"call_id"`
				Status string `json:"status"`
				Output string `json:"output"`
			} `json:"tool"`
		}
		if json.Unmarshal([]byte(state), &p) == nil {
			if p.Tool.CallID == "" {
				// The state may hold the tool fields at the top level.
				var flat struct {
					CallID string `json:"call_id"`
					Status string `json:"status"`
				}
				json.Unmarshal([]byte(state), &flat)
				p.Tool.CallID, p.Tool.Status = flat.CallID, flat.Status
			}
			stored[p.Tool.CallID] = p.Tool.Status
		}
	}
	if rows != nil {
		rows.Close()
	}
	db.Close()
	mu.Lock()
	seen := 0
	for _, ev := range events {
		if ev["type"] == "tool_result" {
			seen++
			id, _ := ev["id"].(string)
			if st := stored[id]; st != "completed" && st != "error" {
				t.Errorf("tool %s was reported done but is stored as %q", id, st)
			}
		}
	}
	mu.Unlock()

	resumeAndCheck(t, e)
	t.Logf("killed after %v: %d events, %d tool results seen, %d tool parts stored", killAfter, len(events), seen, len(stored))
}

// resumeAndCheck continues the latest session (or starts one if the kill
// came before any was stored) and checks the request it sends.
func resumeAndCheck(t *testing.T, e *env) {
	t.Helper()
	before := len(e.srv.Requests())
	args := []string{"run", "--yes", "-c", "continue"}
	if ls := e.run("", "sessions", "--json"); ls.code != 0 || ls.stdout == "[]\n" {
		args = []string{"run", "--yes", "continue"}
	}
	res := e.run("", args...)
	if res.code != 0 {
		t.Fatalf("resume: exit %d: %s", res.code, res.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) <= before {
		t.Fatal("resume sent no request")
	}
	assertValidRequest(t, reqs[before].Chat.Messages)
}

// assertValidRequest checks what providers require of a request's history:
// every tool call answered right after its assistant message, no result
// without a call.
func assertValidRequest(t *testing.T, msgs []openai.ChatCompletionMessage) {
	t.Helper()
	pending := map[string]bool{}
	for i, m := range msgs {
		switch {
		case m.Role == "tool":
			if !pending[m.ToolCallID] {
				t.Errorf("message %d: result for unknown call %s", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
		case len(pending) > 0:
			t.Errorf("message %d (%s) before calls %v were answered", i, m.Role, pending)
			pending = map[string]bool{}
		}
		for _, tc := range m.ToolCalls {
			pending[tc.ID] = true
			if !json.Valid([]byte(tc.Function.Arguments)) {
				t.Errorf("call %s has invalid arguments %q", tc.ID, tc.Function.Arguments)
			}
		}
	}
	if len(pending) > 0 {
		t.Errorf("calls never answered: %v", pending)
	}
}
