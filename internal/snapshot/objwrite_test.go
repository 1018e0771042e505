package snapshot

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWriteObjectIsGits: the objects and the ref written in Go are the
// ones git would write: the same ids as hash-object, readable by
// cat-file, and fsck finds nothing wrong with the store.
func TestWriteObjectIsGits(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work := t.TempDir()
	s, err := Open(ctx, t.TempDir(), work, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"", "0644\ta\n", strings.Repeat("x", 70000)} {
		oid, err := writeObject(s.git.GitDir, "blob", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.git.Output(ctx, []byte(body), "hash-object", "--stdin")
		if err != nil || strings.TrimSpace(string(want)) != oid {
			t.Fatalf("blob of %d bytes: %s, git says %s (%v)", len(body), oid, want, err)
		}
		got, err := s.git.Output(ctx, nil, "cat-file", "blob", oid)
		if err != nil || string(got) != body {
			t.Fatalf("cat-file blob %s: %v", oid, err)
		}
	}
	snap, err := s.Take(ctx, "sess", "label")
	if err != nil {
		t.Fatal(err)
	}
	back, err := s.Get(ctx, snap.ID)
	if err != nil || back.Session != "sess" || back.Label != "label" || time.Since(back.Time) > time.Minute {
		t.Fatalf("Get %s: %+v %v", snap.ID, back, err)
	}
	out, err := s.git.Output(ctx, nil, "for-each-ref", "--format=%(objectname)", "refs/agent/sess/")
	if err != nil || strings.TrimSpace(string(out)) != string(snap.ID) {
		t.Fatalf("ref: %q %v", out, err)
	}
	if out, err := s.git.Output(ctx, nil, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Fatalf("fsck: %v\n%s", err, out)
	}
}

// TestWriteObjectNeverKeepsShortContentVerbatim: a short file of letters
// (a key file the user keeps in the tree) is compressed, never stored as
// is: Go's zlib at BestSpeed emits such input as a stored block, which
// left an API key readable in the store's objects (git's own objects
// never have it in plain text).
func TestWriteObjectNeverKeepsShortContentVerbatim(t *testing.T) {
	dir := t.TempDir()
	secret := "sk-test-Zq8v2LmN4pX7rT1wY6uB3cE9dF5gH0jK2lMn"
	oid, err := writeObject(dir, "blob", []byte(secret+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "objects", oid[:2], oid[2:]))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(secret[8:24])) {
		t.Errorf("the object holds its content verbatim")
	}
}
