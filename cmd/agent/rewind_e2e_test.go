package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

func needGitE2E(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// TestE2ERewindAndDiff drives the binary: a turn changes files through a
// shell command; agent diff -c shows it (plain when not a terminal);
// sessions show lists the step's patch; inspect counts the snapshots; an
// edit made outside makes agent rewind -c refuse, naming the file, until
// --force; the rewound messages stay in the export; fork copies.
func TestE2ERewindAndDiff(t *testing.T) {
	needGitE2E(t)
	e := newEnv(t,
		pt.ToolCalls(pt.Call{ID: "b", Name: "bash", Args: `{"command":"echo two > a.txt; echo new > b.txt"}`}),
		pt.Text("done"))
	a, b := filepath.Join(e.work, "a.txt"), filepath.Join(e.work, "b.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	if res := e.run("", "run", "--yes", "change the files"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}
	if readFile(t, a) != "two\n" {
		t.Fatalf("the turn did not run: a.txt = %q", readFile(t, a))
	}

	diff := e.run("", "diff", "-c")
	if diff.code != 0 || !strings.Contains(diff.stdout, "-one") || !strings.Contains(diff.stdout, "+two") || !strings.Contains(diff.stdout, "b/b.txt") {
		t.Errorf("diff -c: exit %d\n%s\n%s", diff.code, diff.stdout, diff.stderr)
	}
	if strings.Contains(diff.stdout, "\x1b[") {
		t.Errorf("diff to a pipe is coloured: %q", diff.stdout)
	}

	var rows []sessionRow
	json.Unmarshal([]byte(e.run("", "sessions", "--json").stdout), &rows)
	if len(rows) != 1 {
		t.Fatalf("sessions: %+v", rows)
	}
	id := rows[0].ID
	show := e.run("", "sessions", "show", id)
	if !strings.Contains(show.stdout, "Files changed") || !strings.Contains(show.stdout, "`a.txt` modified (+1 −1)") || !strings.Contains(show.stdout, "`b.txt` added (+1 −0)") {
		t.Errorf("sessions show lacks the patch:\n%s", show.stdout)
	}
	ins := e.run("", "inspect", "-c", "--json")
	var got struct {
		Snapshots *snapshotStats `json:"snapshots"`
	}
	if err := json.Unmarshal([]byte(ins.stdout), &got); err != nil || got.Snapshots == nil || got.Snapshots.Count < 2 || got.Snapshots.SizeBytes <= 0 || got.Snapshots.Patches != 1 {
		t.Errorf("inspect snapshots = %+v (%v)\n%s", got.Snapshots, err, ins.stdout)
	}

	os.WriteFile(a, []byte("mine\n"), 0o644)
	refused := e.run("", "rewind", "-c")
	if refused.code != 1 || !strings.Contains(refused.stderr, "a.txt (modified)") || !strings.Contains(refused.stderr, "--force") {
		t.Errorf("rewind over an outside edit: exit %d\n%s", refused.code, refused.stderr)
	}
	if readFile(t, a) != "mine\n" || readFile(t, b) != "new\n" {
		t.Fatalf("a refused rewind touched files: a=%q b=%q", readFile(t, a), readFile(t, b))
	}
	forced := e.run("", "rewind", "-c", "--force")
	if forced.code != 0 || !strings.Contains(forced.stdout, "restored 2 file(s)") || !strings.Contains(forced.stdout, "change the files") {
		t.Errorf("rewind --force: exit %d\n%s\n%s", forced.code, forced.stdout, forced.stderr)
	}
	if readFile(t, a) != "one\n" || !strings.HasPrefix(readFile(t, b), "<") {
		t.Errorf("after rewind: a=%q b=%q", readFile(t, a), readFile(t, b))
	}

	var export sessionExport
	json.Unmarshal([]byte(e.run("", "sessions", "export", id, "--json").stdout), &export)
	rewound := 0
	for _, m := range export.Messages {
		if m.Message.Rewound() {
			rewound++
		}
	}
	if len(export.Messages) != 3 || rewound != 3 {
		t.Errorf("export: %d messages, %d rewound; want 3 and 3", len(export.Messages), rewound)
	}
	if again := e.run("", "rewind", "-c"); again.code == 0 {
		t.Errorf("a second rewind of a session with no turn left succeeded: %s", again.stdout)
	}

	fork := e.run("", "sessions", "fork", id)
	if fork.code != 0 || !strings.Contains(fork.stdout, "forked session "+id+" into ") {
		t.Errorf("fork: exit %d %s %s", fork.code, fork.stdout, fork.stderr)
	}
	rm := e.run("", "sessions", "rm", "--yes", id)
	if rm.code != 0 {
		t.Errorf("rm: exit %d %s", rm.code, rm.stderr)
	}
}

// TestE2EKilledRestoreIsFinishedAtTheNextStart: agent rewind killed with
// SIGKILL in the middle of restoring 2,000 files; the next start finishes
// the restore, says so, and the tree is whole.
func TestE2EKilledRestoreIsFinishedAtTheNextStart(t *testing.T) {
	needGitE2E(t)
	e := newEnv(t,
		pt.ToolCalls(pt.Call{ID: "b", Name: "bash", Args: `{"command":"sed -i s/one/two/ f*.txt"}`}),
		pt.Text("done"),
		pt.Text("hello again"))
	const n = 2000
	for i := range n {
		os.WriteFile(filepath.Join(e.work, fmt.Sprintf("f%04d.txt", i)), []byte(fmt.Sprintf("one %d\n", i)), 0o644)
	}
	if res := e.run("", "run", "--yes", "change them all"); res.code != 0 {
		t.Fatalf("run: exit %d: %s", res.code, res.stderr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "rewind", "-c")
	cmd.Dir, cmd.Env = e.work, e.vars
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	killed := false
	for !killed {
		select {
		case err := <-exited:
			t.Fatalf("the rewind ended (%v) before its journal was seen", err)
		default:
		}
		if j, _ := filepath.Glob(filepath.Join(e.data, "snapshots", "*", "agent-restore.journal")); len(j) > 0 {
			cmd.Process.Signal(syscall.SIGKILL)
			killed = true
		}
	}
	<-exited
	changed := 0
	for i := range n {
		if strings.HasPrefix(readFile(t, filepath.Join(e.work, fmt.Sprintf("f%04d.txt", i))), "two") {
			changed++
		}
	}
	t.Logf("killed with %d of %d files still to restore", changed, n)

	res := e.run("", "run", "-c", "hi")
	if res.code != 0 || !strings.Contains(res.stderr, "finished a restore that was interrupted") {
		t.Errorf("next start: exit %d, stderr %q", res.code, res.stderr)
	}
	for i := range n {
		if got := readFile(t, filepath.Join(e.work, fmt.Sprintf("f%04d.txt", i))); got != fmt.Sprintf("one %d\n", i) {
			t.Fatalf("f%04d.txt = %q after recovery", i, got)
		}
	}
}
