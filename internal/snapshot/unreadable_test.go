package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// unreadableEnv, when set, makes the test binary an agent that snapshots
// SNAP_WORK, where early.txt is unreadable from the start and late.txt
// turns unreadable after the checks, just before git reads it; it prints
// the snapshot's skips and the files of its tree as JSON.
const unreadableEnv = "SNAPSHOT_UNREADABLE_HELPER"

func runUnreadableHelper() int {
	work := os.Getenv("SNAP_WORK")
	beforeIndexHook = func([]string) { os.Chmod(filepath.Join(work, "late.txt"), 0) }
	ctx := context.Background()
	s, err := Open(ctx, os.Getenv("SNAP_DATA"), work, Options{})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	snap, err := s.Take(ctx, "ses1", "unreadable")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	files, err := s.git.Output(ctx, nil, "ls-tree", "-r", "--name-only", "-z", snap.Tree)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	json.NewEncoder(os.Stdout).Encode(map[string]any{
		"skipped": snap.Skipped, "files": strings.Split(strings.TrimRight(string(files), "\x00"), "\x00"),
	})
	return 0
}

// TestUnreadableFilesAreSkippedAndReported runs the snapshot in a child
// process, as user nobody when the tests run as root (root reads
// anything).
func TestUnreadableFilesAreSkippedAndReported(t *testing.T) {
	needGit(t)
	base, err := os.MkdirTemp("", "snapshot-unreadable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	work, data := filepath.Join(base, "work"), filepath.Join(base, "data")
	os.MkdirAll(work, 0o755)
	os.MkdirAll(data, 0o755)
	for name, perm := range map[string]os.FileMode{"ok.txt": 0o644, "early.txt": 0, "late.txt": 0o644} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(name+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(work, name), perm)
	}
	// The test binary, where the child's user can run it.
	bin := filepath.Join(base, "snapshot.test")
	copyFile(t, os.Args[0], bin)
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), unreadableEnv+"=1", "SNAP_WORK="+work, "SNAP_DATA="+data, "HOME="+base)
	if os.Getuid() == 0 {
		const nobody = 65534
		os.Chmod(base, 0o755)
		filepath.Walk(base, func(path string, _ os.FileInfo, _ error) error { return os.Lchown(path, nobody, nobody) })
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	var got struct {
		Skipped []Skip
		Files   []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("helper output %q: %v", out, err)
	}
	reasons := map[string]string{}
	for _, sk := range got.Skipped {
		reasons[sk.Path] = sk.Reason
	}
	if reasons["early.txt"] != ReasonUnreadable || reasons["late.txt"] != ReasonUnreadable {
		t.Errorf("skipped = %+v, want early.txt and late.txt unreadable", got.Skipped)
	}
	if strings.Join(got.Files, ",") != "ok.txt" {
		t.Errorf("snapshot holds %v, want ok.txt only", got.Files)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
