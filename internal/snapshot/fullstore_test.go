//go:build linux

package snapshot

import (
	"bytes"
	"hash/crc32"
	"os"
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
	for _, c := range cases {
		abs := filepath.Join(dir, "f")
		os.Remove(abs)
		if err := os.WriteFile(abs, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(abs, &st); err != nil {
			t.Fatal(err)
		}
		if err := e.read(abs, &st, 2<<20, []string{"", secret}); err != nil {
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
	// Over the limit, or grown over it: not read.
	abs := filepath.Join(dir, "big")
	os.WriteFile(abs, body(5000), 0o644)
	var st syscall.Stat_t
	syscall.Lstat(abs, &st)
	if err := e.read(abs, &st, 4999, nil); err == nil {
		t.Error("a file over the limit was read")
	}
	// Another file in its place (another inode): not read.
	os.WriteFile(abs+".new", body(10), 0o644)
	os.Rename(abs+".new", abs)
	if err := e.read(abs, &st, 1<<20, nil); err == nil {
		t.Error("a file not the one its stat data name was read")
	}
}
