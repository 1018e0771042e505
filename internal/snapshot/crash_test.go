package snapshot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

// crashEnv, when set, makes the test binary a restoring agent that kills
// itself with SIGKILL after applying N files (see runCrashHelper).
const crashEnv = "SNAPSHOT_CRASH_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(crashEnv) != "" {
		os.Exit(runCrashHelper())
	}
	if os.Getenv(stepCrashEnv) != "" {
		os.Exit(runStepCrashHelper())
	}
	if os.Getenv(unreadableEnv) != "" {
		os.Exit(runUnreadableHelper())
	}
	goleak.VerifyTestMain(m)
}

// runCrashHelper restores SNAP_TO in SNAP_WORK and dies by kill -9 in the
// middle, after SNAP_AFTER files.
func runCrashHelper() int {
	n, _ := strconv.Atoi(os.Getenv("SNAP_AFTER"))
	afterApplyHook = func(done int) {
		if done == n {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	s, err := Open(context.Background(), os.Getenv("SNAP_DATA"), os.Getenv("SNAP_WORK"), Options{})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	if _, err := s.Restore(context.Background(), "ses1", ID(os.Getenv("SNAP_TO")), RestoreOptions{}); err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Println("restore finished: the crash did not happen")
	return 1
}

func TestKilledRestoreIsFinishedAtTheNextOpen(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work, data := t.TempDir(), t.TempDir()
	for i := range 30 {
		os.WriteFile(filepath.Join(work, fmt.Sprintf("f%02d.txt", i)), []byte("version one\n"), 0o644)
	}
	os.MkdirAll(filepath.Join(work, "gone", "deep"), 0o755)
	os.WriteFile(filepath.Join(work, "gone", "deep", "a"), []byte("a\n"), 0o755)
	start := state(t, work)

	s, err := Open(ctx, data, work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := s.Take(ctx, "ses1", "before")
	sh(t, work, "sed -i 's/one/two/' f*.txt && rm -rf gone && echo new > new1 && echo new > new2")
	turned := state(t, work)
	if _, err := s.Take(ctx, "ses1", "after"); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashEnv+"=1", "SNAP_DATA="+data, "SNAP_WORK="+work,
		"SNAP_TO="+string(before.ID), "SNAP_AFTER=12")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the helper was not killed: %v\n%s", err, out)
	}
	// The crash left a half-restored tree and the journal.
	half := state(t, work)
	if fmt.Sprint(half) == fmt.Sprint(start) || fmt.Sprint(half) == fmt.Sprint(turned) {
		t.Fatalf("the crash did not land in the middle of the restore")
	}
	if _, err := os.Stat(s.journal); err != nil {
		t.Fatalf("no journal after the crash: %v", err)
	}

	s2, err := Open(ctx, data, work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := s2.Recovered()
	if rec == nil || !rec.Recovered || rec.To != before.ID || rec.Session != "ses1" || len(rec.NotRestored) > 0 {
		t.Fatalf("recovered = %+v", rec)
	}
	sameState(t, "after recovery", state(t, work), start)
	if _, err := os.Stat(s.journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the journal is still there: %v", err)
	}
}
