//go:build linux

package snapshot

import (
	"bytes"
	"context"
	"hash/crc32"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestFileEntryIsPackEntryBytes: a file read into its pack entry in place
// (fileEntry.read) is byte for byte the entry packEntryBytes encodes from
// its content, with its object id and CRC-32, at every size around the
// stored blocks' bounds; a secret, within a block or across two, is
// deflated as packEntryBytes deflates it, and a file over the limit is
// not read.
func TestFileEntryIsPackEntryBytes(t *testing.T) {
	dir := t.TempDir()
	secret := "sk-test-0123456789abcdef"
	body := func(n int) []byte { return bytes.Repeat([]byte("the quick brown fox\n"), n/20+1)[:n] }
	type tc struct {
		name string
		data []byte
	}
	var cases []tc
	for _, n := range []int{0, 1, 15, 16, 2047, 2048, 65534, 65535, 65536, 2*65535 - 1, 2 * 65535, 2*65535 + 1, 3*65535 + 7, 1 << 20} {
		cases = append(cases, tc{"size " + strconv.Itoa(n), body(n)})
	}
	inBlock := body(100_000)
	copy(inBlock[500:], secret)
	across := body(100_000)
	copy(across[65535-10:], secret) // its first 10 bytes in the first block
	cases = append(cases, tc{"secret in a block", inBlock}, tc{"secret across blocks", across}, tc{"secret alone", []byte(secret)})
	e := new(fileEntry)
	read := func(abs string, max int64, secrets []string) error {
		fd, err := syscall.Open(abs, syscall.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Close(fd)
		var st syscall.Stat_t
		syscall.Fstat(fd, &st)
		return e.readFD(fd, st.Size, max, secrets)
	}
	for _, c := range cases {
		abs := filepath.Join(dir, "f")
		if err := os.WriteFile(abs, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := read(abs, 2<<20, []string{"", secret}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var want bytes.Buffer
		packEntryBytes(&want, "blob", c.data, holdsSecret(c.data, []string{secret}))
		if !bytes.Equal(e.entry(), want.Bytes()) {
			t.Errorf("%s: entry of %d bytes differs from packEntryBytes' %d", c.name, len(e.entry()), want.Len())
		}
		if e.oid != objectID("blob", c.data) {
			t.Errorf("%s: oid %x, want %x", c.name, e.oid, objectID("blob", c.data))
		}
		if e.crc != crc32.ChecksumIEEE(want.Bytes()) {
			t.Errorf("%s: crc differs", c.name)
		}
		if strings.HasPrefix(c.name, "secret") && bytes.Contains(e.entry(), []byte(secret)) {
			t.Errorf("%s: the entry holds the secret readable", c.name)
		}
	}
	// Over the limit (grown over it since its stat): not read.
	abs := filepath.Join(dir, "big")
	os.WriteFile(abs, body(5000), 0o644)
	if err := read(abs, 4999, nil); err == nil {
		t.Error("a file over the limit was read")
	}
}

// TestFirstPackOfOddFilesIsGitAdds: a first snapshot outside git of many
// files, among them an empty one, an executable, files across the 64 KiB
// block bound, links (to a file, dangling), a FIFO and a file over the
// size limit, holds the tree git's add writes for the files it keeps (a
// FIFO is not one, as for git), names the large file skipped, verifies as a pack
// (verify-pack, fsck), and a restore brings every byte back.
func TestFirstPackOfOddFilesIsGitAdds(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work := t.TempDir()
	files := map[string][]byte{"empty": nil}
	for i := range 100 { // over packMin
		files[filepath.Join("d"+strconv.Itoa(i%5), "f"+strconv.Itoa(i))] = bytes.Repeat([]byte{byte(i)}, i*1400) // to 138,600 bytes
	}
	for p, b := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(work, p)), 0o755)
		os.WriteFile(filepath.Join(work, p), b, 0o644)
	}
	os.Chmod(filepath.Join(work, "d1", "f1"), 0o755)
	os.Symlink("d0/f0", filepath.Join(work, "link"))
	os.Symlink("nowhere", filepath.Join(work, "dangling"))
	if err := syscall.Mkfifo(filepath.Join(work, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(work, "big"), make([]byte, 200_001), 0o644)
	s, err := Open(ctx, t.TempDir(), work, Options{MaxFileBytes: 200_000})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Take(ctx, "ses1", "first")
	if err != nil {
		t.Fatal(err)
	}
	skipped := map[string]string{}
	for _, sk := range snap.Skipped {
		skipped[sk.Path] = sk.Reason
	}
	if skipped["big"] != ReasonTooLarge {
		t.Errorf("skipped %v, want the large file", skipped)
	}
	packs, _ := filepath.Glob(filepath.Join(s.git.GitDir, "objects", "pack", "*.idx"))
	if len(packs) != 1 {
		t.Fatalf("packs %v, want one", packs)
	}
	if out, err := s.git.Output(ctx, nil, "verify-pack", packs[0]); err != nil {
		t.Fatalf("verify-pack: %v\n%s", err, out)
	}
	if out, err := s.git.Output(ctx, nil, "fsck", "--strict", "--no-dangling"); err != nil {
		t.Fatalf("fsck: %v\n%s", err, out)
	}
	cp := filepath.Join(t.TempDir(), "copy")
	sh(t, "/", "cp -a '"+work+"' '"+cp+"' && rm '"+cp+"/fifo' '"+cp+"/big'")
	userGit(t, cp, "init", "-q")
	userGit(t, cp, "add", "-A")
	out, err := exec.Command("git", "-C", cp, "write-tree").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(out)); snap.Tree != want {
		t.Errorf("tree %s, git's add writes %s", snap.Tree, want)
	}
	for p := range files {
		os.WriteFile(filepath.Join(work, p), []byte("changed"), 0o644)
	}
	if _, err := s.Restore(ctx, "ses1", snap.ID, RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	for p, b := range files {
		if got, err := os.ReadFile(filepath.Join(work, p)); err != nil || !bytes.Equal(got, b) {
			t.Fatalf("%s after restore: %d bytes, want %d (%v)", p, len(got), len(b), err)
		}
	}
}

// TestFirstSnapshotClassifiedLateAsBefore: a first snapshot outside git
// classifies its files as it reads them, not before (take's classify:
// an lstat, an open and a close a file); what it leaves out is said as
// classify says it (a file over the limit: its size, mtime and the
// limit), its mode is not kept, the odd modes of the files it keeps are
// (noted as they are opened, not lstat'ed again), and the same holds when goPath declines
// and git's path stores the files (classifyLate): both give the same
// tree, skips and modes.
func TestFirstSnapshotClassifiedLateAsBefore(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	work := t.TempDir()
	for i := range 80 { // over packMin
		os.WriteFile(filepath.Join(work, "f"+strconv.Itoa(i)), []byte(strconv.Itoa(i)), 0o644)
	}
	os.Chmod(filepath.Join(work, "f3"), 0o600)
	os.Chmod(filepath.Join(work, "f4"), 0o750)
	os.Chmod(filepath.Join(work, "f5"), 0o755) // canonical: not listed
	os.Chmod(filepath.Join(work, "f6"), 0o755|os.ModeSetuid)
	wantModes := map[string]uint32{"f3": 0o600, "f4": 0o750, "f6": 0o4755}
	os.WriteFile(filepath.Join(work, "big"), make([]byte, 5000), 0o600)
	type result struct {
		snap  Snapshot
		modes map[string]uint32
	}
	take := func(decline bool) result {
		s, err := Open(ctx, t.TempDir(), work, Options{MaxFileBytes: 4096})
		if err != nil {
			t.Fatal(err)
		}
		if decline { // an index appears before the update: goPath declines
			beforeIndexHook = func([]string) {
				if out, err := s.git.Output(ctx, nil, "read-tree", "--empty"); err != nil {
					t.Fatalf("read-tree: %v %s", err, out)
				}
			}
			defer func() { beforeIndexHook = nil }()
		}
		updates := goUpdates.Load()
		snap, err := s.Take(ctx, "ses1", "first")
		if err != nil {
			t.Fatal(err)
		}
		if went := goUpdates.Load() > updates; went == decline {
			t.Fatalf("decline %v: goPath stored it %v", decline, went)
		}
		modes, err := s.modesOf(ctx, snap.ID)
		if err != nil {
			t.Fatal(err)
		}
		return result{snap, modes}
	}
	fi, _ := os.Stat(filepath.Join(work, "big"))
	want := Skip{Path: "big", Reason: ReasonTooLarge, Bytes: 5000, MTime: fi.ModTime(), Limit: 4096}
	var trees []string
	for _, decline := range []bool{false, true} {
		r := take(decline)
		if len(r.snap.Skipped) != 1 || r.snap.Skipped[0].Path != want.Path || r.snap.Skipped[0].Reason != want.Reason ||
			r.snap.Skipped[0].Bytes != want.Bytes || !r.snap.Skipped[0].MTime.Equal(want.MTime) || r.snap.Skipped[0].Limit != want.Limit {
			t.Errorf("decline %v: skipped %+v, want %+v", decline, r.snap.Skipped, want)
		}
		if !maps.Equal(r.modes, wantModes) {
			t.Errorf("decline %v: modes %v, want %v", decline, r.modes, wantModes)
		}
		trees = append(trees, r.snap.Tree)
	}
	if trees[0] != trees[1] {
		t.Errorf("trees %v differ", trees)
	}
}
