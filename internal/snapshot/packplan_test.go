package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFirstPackIsNotReadBack: a first snapshot outside git writes its pack
// with the count planned before it stores anything and its SHA-1 computed
// as written: the pack is not read back, though files alike (one blob for
// several) and a file over the limit (no blob) leave fewer objects than
// planned; git verifies the pack and the store, and the snapshot holds
// every file.
func TestFirstPackIsNotReadBack(t *testing.T) {
	needGoUpdate(t)
	ctx := context.Background()
	work := t.TempDir()
	for i := range 2 * packMin {
		p := filepath.Join(work, fmt.Sprintf("d%d/e%d", i%4, i%3), fmt.Sprintf("f%03d", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		body := fmt.Sprint("file ", i)
		if i%10 == 0 {
			body = "alike"
		}
		os.WriteFile(p, []byte(body), 0o644)
	}
	os.WriteFile(filepath.Join(work, "big"), make([]byte, 5000), 0o644)
	s, err := Open(ctx, t.TempDir(), work, Options{MaxFileBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	reads := packReadBacks.Load()
	snap, err := s.Take(ctx, "t", "first")
	if err != nil {
		t.Fatal(err)
	}
	if n := packReadBacks.Load() - reads; n != 0 {
		t.Errorf("the first snapshot's pack was read back %d times for its SHA-1; want 0", n)
	}
	packs, _ := filepath.Glob(filepath.Join(s.fast.gitDir, "objects", "pack", "*.idx"))
	if len(packs) != 1 {
		t.Fatalf("%d packs; want 1", len(packs))
	}
	if out, err := s.git.Output(ctx, nil, "verify-pack", packs[0]); err != nil {
		t.Fatalf("verify-pack: %v\n%s", err, out)
	}
	fsck(t, s)
	out, err := s.git.Output(ctx, nil, "ls-tree", "-r", "--name-only", snap.Tree)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Fields(string(out))); n != 2*packMin {
		t.Errorf("the snapshot holds %d files; want %d", n, 2*packMin)
	}
	if out, _ := s.git.Output(ctx, nil, "show", snap.Tree+":d2/e1/f010"); string(out) != "alike" {
		t.Errorf("d2/e1/f010 reads %q", out)
	}
}

// TestPackOverItsPlanIsReadBack: a pack given more objects than planned
// is finished as before (its count written, read back), and git reads it.
func TestPackOverItsPlanIsReadBack(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	s := openStore(t, t.TempDir())
	p, err := newPackWriter(s.git.GitDir, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := p.put("blob", []byte(fmt.Sprint("object ", i))); err != nil {
			t.Fatal(err)
		}
	}
	reads := packReadBacks.Load()
	if err := p.finish(); err != nil {
		t.Fatal(err)
	}
	if packReadBacks.Load() == reads {
		t.Error("a pack over its plan was not read back")
	}
	packs, _ := filepath.Glob(filepath.Join(s.git.GitDir, "objects", "pack", "*.idx"))
	if len(packs) != 1 {
		t.Fatalf("%d packs; want 1", len(packs))
	}
	if out, err := s.git.Output(ctx, nil, "verify-pack", "-v", packs[0]); err != nil || strings.Count(string(out), " blob ") != 3 {
		t.Fatalf("verify-pack: %v\n%s", err, out)
	}
}
