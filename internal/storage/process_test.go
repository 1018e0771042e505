package storage

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/message"
)

// helperDirEnv, when set, makes the test binary act as another agent
// process driving a session in that data dir (see runHelperProcess).
const helperDirEnv = "STORAGE_TEST_HELPER_DIR"

// runHelperProcess opens the store, starts a step (a running tool, a
// streamed text flushed once, an unfinished assistant message), holds the
// session's lease, prints "ready SESSION PART" and waits to be killed.
func runHelperProcess(dir string) int {
	ctx := context.Background()
	fail := func(err error) int {
		fmt.Println("error", err)
		return 1
	}
	s, err := Open(ctx, dir)
	if err != nil {
		return fail(err)
	}
	sess := &message.Session{Title: "driven elsewhere"}
	if err := s.CreateSession(ctx, sess); err != nil {
		return fail(err)
	}
	lease, err := s.AcquireLease(ctx, sess.ID)
	if err != nil {
		return fail(err)
	}
	m := &message.Message{SessionID: sess.ID, Role: message.RoleAssistant}
	if err := s.CreateMessage(ctx, m); err != nil {
		return fail(err)
	}
	tool := &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartTool,
		Tool: &message.ToolState{CallID: "c", Name: "bash", Status: message.ToolRunning}}
	if err := s.UpsertPart(ctx, tool); err != nil {
		return fail(err)
	}
	stream, err := s.NewTextStream(ctx, &message.Part{SessionID: sess.ID, MessageID: m.ID, Type: message.PartText})
	if err != nil {
		return fail(err)
	}
	stream.Append("persisted")
	if err := stream.Flush(ctx); err != nil {
		return fail(err)
	}
	fmt.Println("ready", sess.ID, stream.Part().ID)
	io.Copy(io.Discard, os.Stdin) // until killed
	lease.Release()
	s.Close()
	return 0
}

// TestAnotherProcess drives a session from a child process, checks what
// this process may and may not do meanwhile, kills the child with SIGKILL
// and recovers the session.
func TestAnotherProcess(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperDirEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	fields := strings.Fields(line)
	if err != nil || len(fields) != 3 || fields[0] != "ready" {
		t.Fatalf("helper said %q (%v)", line, err)
	}
	sessionID, partID := fields[1], fields[2]
	childPID := cmd.Process.Pid

	// A read-only store works beside the writer and sees its flushed text.
	r, err := OpenReadOnly(ctx, dir)
	if err != nil {
		t.Fatalf("OpenReadOnly beside another process: %v", err)
	}
	defer r.Close()
	if got := storedText(t, r, sessionID, partID); got != "persisted" {
		t.Errorf("reader sees %q", got)
	}
	if pid, alive, err := r.LeaseHolder(ctx, sessionID); pid != childPID || !alive || err != nil {
		t.Errorf("LeaseHolder = %d, %v, %v; want the child %d, alive", pid, alive, err, childPID)
	}

	// A second writer may not take the session, nor repair the running tool.
	s := openAt(t, dir)
	_, err = s.AcquireLease(ctx, sessionID)
	if !errors.Is(err, ErrSessionBusy) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", childPID)) {
		t.Fatalf("acquire while the child drives: %v", err)
	}
	if _, err := s.RepairSession(ctx, sessionID); !errors.Is(err, ErrSessionBusy) {
		t.Fatalf("repair while the child drives: %v", err)
	}

	// kill -9: no flush, no release.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killed = true
	if _, alive, _ := r.LeaseHolder(ctx, sessionID); alive {
		t.Error("the dead child's lease still counts as live")
	}
	lease, err := s.AcquireLease(ctx, sessionID)
	if err != nil {
		t.Fatalf("take over from a dead process: %v", err)
	}
	defer lease.Release()
	rep, err := s.RepairSession(ctx, sessionID)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Repair{Tools: 1, Messages: 1, Streams: 1}); rep != want {
		t.Errorf("Repair = %+v, want %+v", rep, want)
	}
	if got := storedText(t, s, sessionID, partID); got != "persisted" {
		t.Errorf("recovered text %q", got)
	}
}
