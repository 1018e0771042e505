package snapshot

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFirstSnapshotOutsideGitIsOnePack: outside a repository the first
// snapshot of many files stores them in one pack, not one loose object
// each; git reads the pack as its own (verify-pack, fsck), the tree is the
// one git's own add records, and a restore brings the files back from it.
func TestFirstSnapshotOutsideGitIsOnePack(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work := t.TempDir()
	for i := range 192 { // over packMin
		dir := filepath.Join(work, fmt.Sprintf("d%02d", i%7))
		os.MkdirAll(dir, 0o755)
		body := strings.Repeat(fmt.Sprintf("line %d\n", i), i*37) // "" once; sizes past 16 and 2,048 bytes (the size header's bytes)
		if i%10 == 0 {
			body = "the same content\n" // one object for all
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", i)), []byte(body), 0o644)
	}
	os.Chmod(filepath.Join(work, "d01", "f001.txt"), 0o755)
	os.Symlink("d00/f000.txt", filepath.Join(work, "link"))

	s := openStore(t, work)
	snap, err := s.Take(ctx, "ses1", "first")
	if err != nil {
		t.Fatal(err)
	}
	if n := looseObjects(t, s); n > 2 { // the commit, perhaps a modes blob
		t.Errorf("the first snapshot wrote %d loose objects, want its files and trees in a pack", n)
	}
	packs, _ := filepath.Glob(filepath.Join(s.git.GitDir, "objects", "pack", "*.pack"))
	if len(packs) != 1 {
		t.Fatalf("packs = %v, want one", packs)
	}
	if out, err := s.git.Output(ctx, nil, "verify-pack", strings.TrimSuffix(packs[0], ".pack")+".idx"); err != nil {
		t.Fatalf("verify-pack: %v\n%s", err, out)
	}
	if out, err := s.git.Output(ctx, nil, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Fatalf("fsck: %v\n%s", err, out)
	}
	// The tree git's add writes for a copy of the files.
	cp := filepath.Join(t.TempDir(), "copy")
	sh(t, "/", "cp -a '"+work+"' '"+cp+"'")
	userGit(t, cp, "init", "-q")
	userGit(t, cp, "add", "-A")
	out, err := exec.Command("git", "-C", cp, "write-tree").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(out))
	if snap.Tree != want {
		t.Errorf("tree %s, git's add writes %s", snap.Tree, want)
	}
	// A step after it, and a restore from the pack.
	os.WriteFile(filepath.Join(work, "d03", "f003.txt"), []byte("changed\n"), 0o644)
	os.Remove(filepath.Join(work, "d04", "f004.txt"))
	if _, err := s.Take(ctx, "ses1", "step"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Restore(ctx, "ses1", snap.ID, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{3, 4} {
		got, err := os.ReadFile(filepath.Join(work, fmt.Sprintf("d%02d/f%03d.txt", i, i)))
		if want := strings.Repeat(fmt.Sprintf("line %d\n", i), i*37); err != nil || string(got) != want {
			t.Errorf("file %d after restore: %q %v", i, got, err)
		}
	}
}

// TestRacyFilesHashedAgainAreNotStoredAgain: files written just before the
// first snapshot are racily clean and hashed again at the next one; found
// as their entries have them, they are not stored a second time (as loose
// copies of what the first snapshot's pack holds).
func TestRacyFilesHashedAgainAreNotStoredAgain(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work := t.TempDir()
	for i := range 100 {
		os.WriteFile(filepath.Join(work, fmt.Sprintf("f%03d.txt", i)), []byte(fmt.Sprintf("file %d\n", i)), 0o644)
	}
	s := openStore(t, work)
	if _, err := s.Take(ctx, "ses1", "first"); err != nil {
		t.Fatal(err)
	}
	before := looseObjects(t, s)
	os.WriteFile(filepath.Join(work, "f007.txt"), []byte("changed\n"), 0o644)
	if _, err := s.Take(ctx, "ses1", "step"); err != nil {
		t.Fatal(err)
	}
	// The changed file's blob, the root tree, the commit (a modes blob).
	if added := looseObjects(t, s) - before; added > 4 {
		t.Errorf("the step stored %d loose objects for one changed file", added)
	}
}

// TestPackNeverKeepsAKeyFileVerbatim: a key file the user keeps in a tree
// checkpointed into one pack is compressed there, never stored as is (as
// in the store's loose objects, objwrite.go).
func TestPackNeverKeepsAKeyFileVerbatim(t *testing.T) {
	needGit(t)
	work := t.TempDir()
	secret := "sk-test-Zq8v2LmN4pX7rT1wY6uB3cE9dF5gH0jK2lMn"
	for i := range 80 { // over packMin
		os.WriteFile(filepath.Join(work, fmt.Sprintf("f%03d.txt", i)), []byte(fmt.Sprintf("file %d\n", i)), 0o644)
	}
	os.WriteFile(filepath.Join(work, ".env"), []byte("KEY="+secret+"\n"), 0o600)
	s, err := Open(context.Background(), t.TempDir(), work, Options{Secrets: []string{secret}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take(context.Background(), "ses1", "first"); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(s.git.GitDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if b, _ := os.ReadFile(p); strings.Contains(string(b), secret[8:24]) {
			t.Errorf("%s holds the key file's content verbatim", p)
		}
		return nil
	})
}

// TestPackEntryStoredBlocksReadBack: the stored blocks written by hand
// (packEntryBytes) are zlib git reads: every size across the 64 KiB block
// boundary comes back whole, with its checksum.
func TestPackEntryStoredBlocksReadBack(t *testing.T) {
	var buf bytes.Buffer
	for _, n := range []int{0, 1, 65534, 65535, 65536, 3*65535 + 7} {
		body := bytes.Repeat([]byte{'a', 'b', 'c'}, n/3+1)[:n]
		if err := packEntryBytes(&buf, "blob", body, false); err != nil {
			t.Fatal(err)
		}
		raw := buf.Bytes()
		i := 1
		for raw[i-1]&0x80 != 0 {
			i++
		}
		zr, err := zlib.NewReader(bytes.NewReader(raw[i:]))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("%d bytes: read back %d bytes, %v", n, len(got), err)
		}
	}
}

// A finished pack holds no list, set or buffer of its objects: a first
// snapshot's second pack finishes while the index is written, and its
// ≈ 2.5 MB at 100,000 files were held to the end. Its objects are read
// back from what it wrote.
func TestFinishedPackHoldsNoObjectList(t *testing.T) {
	needGit(t)
	for _, planned := range []int{0, 3} {
		gitDir := t.TempDir()
		if out, err := exec.Command("git", "init", "-q", "--bare", gitDir).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		p, err := newPackWriter(gitDir, nil, planned)
		if err != nil {
			t.Fatal(err)
		}
		var oids []string
		for i := range 3 {
			oid, err := p.put("blob", []byte(fmt.Sprintf("object %d\n", i)))
			if err != nil {
				t.Fatal(err)
			}
			oids = append(oids, oid)
		}
		if err := p.finish(); err != nil {
			t.Fatal(err)
		}
		if p.ents != nil || p.seen.slots != nil || p.bw != nil {
			t.Fatalf("planned %d: a finished pack holds %d entries, %d slots, a buffer %v", planned, len(p.ents), len(p.seen.slots), p.bw != nil)
		}
		for i, oid := range oids {
			out, err := exec.Command("git", "--git-dir", gitDir, "cat-file", "blob", oid).Output()
			if err != nil || string(out) != fmt.Sprintf("object %d\n", i) {
				t.Fatalf("planned %d: object %d read back %q, %v", planned, i, out, err)
			}
		}
	}
}
