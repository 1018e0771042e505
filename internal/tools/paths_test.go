package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// symlink makes link point at target (taken verbatim: relative targets stay
// relative).
func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestResolvePathFollowsEveryLink(t *testing.T) {
	dir := newEnv(t).Dir
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"real/f.txt": "x"})
	symlink(t, filepath.Join(outside, ".ssh", "authorized_keys"), filepath.Join(dir, "dangling-abs"))
	rel, _ := filepath.Rel(dir, filepath.Join(outside, "notes.md"))
	symlink(t, rel, filepath.Join(dir, "dangling-rel"))
	// dir and outside are siblings: "../.." from dir/sub leads to their parent.
	symlink(t, "../../"+filepath.Base(outside)+"/up.txt", filepath.Join(dir, "sub", "up"))
	symlink(t, "dangling-abs", filepath.Join(dir, "chain"))
	symlink(t, "real", filepath.Join(dir, "inner"))
	symlink(t, outside, filepath.Join(dir, "outdir"))
	symlink(t, "loop-b", filepath.Join(dir, "loop-a"))
	symlink(t, "loop-a", filepath.Join(dir, "loop-b"))

	tests := []struct {
		path string
		want string
	}{
		{"real/f.txt", filepath.Join(dir, "real/f.txt")},
		{"real/new/deeper.txt", filepath.Join(dir, "real/new/deeper.txt")},
		{"dangling-abs", filepath.Join(outside, ".ssh/authorized_keys")},
		{"dangling-rel", filepath.Join(outside, "notes.md")},
		{"chain", filepath.Join(outside, ".ssh/authorized_keys")},
		{"sub/up", filepath.Join(outside, "up.txt")},
		{"inner/f.txt", filepath.Join(dir, "real/f.txt")},
		{"inner/missing/x", filepath.Join(dir, "real/missing/x")},
		{"outdir/new.txt", filepath.Join(outside, "new.txt")},
	}
	for _, tt := range tests {
		got, err := resolveLinks(filepath.Join(dir, tt.path))
		if err != nil || got != tt.want {
			t.Errorf("resolveLinks(%s) = %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
	if got, err := resolveLinks(filepath.Join(dir, "loop-a")); err == nil {
		t.Errorf("a symlink loop resolved to %q", got)
	}
	if got := resolvePath(filepath.Join(dir, "loop-a", "x")); within(dir, got) {
		t.Errorf("a symlink loop counts as inside: %q", got)
	}
}

func TestPermissionsDanglingSymlinkIsOutside(t *testing.T) {
	env := newEnv(t)
	outside := t.TempDir()
	target := filepath.Join(outside, ".ssh", "authorized_keys")
	symlink(t, target, filepath.Join(env.Dir, "notes.md"))
	rel, _ := filepath.Rel(filepath.Join(env.Dir, "docs"), filepath.Join(outside, "rel.md"))
	symlink(t, rel, filepath.Join(env.Dir, "docs", "rel.md"))

	allowed := map[string]Mode{"write": ModeAllow, "edit": ModeAllow}
	for _, c := range []Call{
		mkCall("write", map[string]any{"path": "notes.md", "content": "ssh-ed25519 AAAA attacker\n"}),
		mkCall("edit", map[string]any{"path": "docs/rel.md", "old_string": "", "new_string": "x"}),
	} {
		ok, denial, err := NewPermissions(allowed, nil, false).Check(context.Background(), env, c)
		if err != nil || ok || !strings.Contains(denial, "outside the session directory") {
			t.Errorf("%s %s: ok=%v %q %v", c.Name, c.Input, ok, denial, err)
		}
		a := &fakeAsker{reply: Deny}
		NewPermissions(allowed, a, false).Check(context.Background(), env, c)
		if a.count() != 1 || !a.asked[0].Outside {
			t.Errorf("%s: the dialog was not asked about an outside path: %+v", c.Name, a.asked)
		}
	}
	if _, err := os.Lstat(target); err == nil {
		t.Fatal("the outside file was created")
	}
}

// TestWriteThroughSwappedLinkRefused: the path is resolved again when the
// tool runs and the file is opened without following a link, so a link put
// in place after the check does not carry the write elsewhere.
func TestWriteOpensTheResolvedPath(t *testing.T) {
	env := newEnv(t)
	outside := t.TempDir()
	target := filepath.Join(outside, "x.txt")
	symlink(t, target, filepath.Join(env.Dir, "notes.md"))
	// Approved (say the user allowed it): the file written is the link's
	// target, reported as such, and the link is left in place.
	res := call(t, env, "write", map[string]any{"path": "notes.md", "content": "hello\n"})
	if res.IsError {
		t.Fatal(res.Output)
	}
	if got := readFile(t, target); got != "hello\n" {
		t.Fatalf("target holds %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(env.Dir, "notes.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	if res.Metadata["path"] != target {
		t.Errorf("metadata path = %v, want %s", res.Metadata["path"], target)
	}
}

func TestWriteResolvedRefusesALinkSwappedIn(t *testing.T) {
	dir := newEnv(t).Dir
	outside := t.TempDir()
	writeFiles(t, dir, map[string]string{"sub/keep.txt": "k"})
	real, err := resolveLinks(filepath.Join(dir, "sub", "f.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The last component becomes a link after the check.
	symlink(t, filepath.Join(outside, "f.txt"), real)
	if err := writeResolved(real, "x"); !errors.Is(err, errPathChanged) {
		t.Fatalf("final link: err = %v", err)
	}
	if _, err := os.Lstat(filepath.Join(outside, "f.txt")); err == nil {
		t.Fatal("written through a final symlink")
	}
	// A directory on the way becomes a link after the check.
	os.Remove(real)
	os.RemoveAll(filepath.Join(dir, "sub"))
	symlink(t, outside, filepath.Join(dir, "sub"))
	if err := writeResolved(real, "secret"); !errors.Is(err, errPathChanged) {
		t.Fatalf("swapped directory: err = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "f.txt")); len(b) != 0 {
		t.Fatalf("content written through a swapped directory: %q", b)
	}
}

func TestWriteAndEditRefuseAFIFO(t *testing.T) {
	env := newEnv(t)
	fifo := filepath.Join(env.Dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	for _, c := range []struct {
		name  string
		input map[string]any
	}{
		{"write", map[string]any{"path": "pipe", "content": "x"}},
		{"edit", map[string]any{"path": "pipe", "old_string": "a", "new_string": "b"}},
	} {
		res := call(t, env, c.name, c.input)
		if !res.IsError || !strings.Contains(res.Output, "not a regular file") {
			t.Errorf("%s on a FIFO: %+v", c.name, res)
		}
	}
}
