package snapshot

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode os.FileMode
		size int64
		want *Skip
	}{
		{"regular", 0o644, 10, nil},
		{"at the limit", 0o644, 100, nil},
		{"over the limit", 0o644, 101, &Skip{Path: "p", Reason: ReasonTooLarge, Bytes: 101}},
		{"symlink", os.ModeSymlink | 0o777, 5000, nil},
		{"directory", os.ModeDir | 0o755, 4096, &Skip{Path: "p"}},
		{"fifo", os.ModeNamedPipe | 0o644, 0, &Skip{Path: "p", Reason: ReasonNotFile}},
		{"socket", os.ModeSocket | 0o644, 0, &Skip{Path: "p", Reason: ReasonNotFile}},
	} {
		if got := decide("p", tc.mode, tc.size, 100); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: decide = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestParseRawNumstat(t *testing.T) {
	z := "0000000000000000000000000000000000000000"
	out := ":100644 100755 aaaa bbbb M\x00a.txt\x00" +
		":000000 100644 " + z + " cccc A\x00new.bin\x00" +
		":100644 000000 dddd " + z + " D\x00tab\there\x00" +
		":100644 120000 eeee ffff T\x00link\x00" +
		"1\t1\ta.txt\x00-\t-\tnew.bin\x000\t3\ttab\there\x001\t1\tlink\x00"
	got, err := parseRawNumstat(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []FileChange{
		{Path: "a.txt", Status: Modified, OldMode: "100644", NewMode: "100755", NewBlob: "bbbb", OldBlob: "aaaa", LinesAdded: 1, LinesDeleted: 1},
		{Path: "new.bin", Status: Added, OldMode: "000000", NewMode: "100644", NewBlob: "cccc", OldBlob: z, Binary: true},
		{Path: "tab\there", Status: Deleted, OldMode: "100644", NewMode: "000000", NewBlob: z, OldBlob: "dddd", LinesDeleted: 3},
		{Path: "link", Status: TypeChanged, OldMode: "100644", NewMode: "120000", NewBlob: "ffff", OldBlob: "eeee", LinesAdded: 1, LinesDeleted: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parse =\n%+v\nwant\n%+v", got, want)
	}
	if _, err := parseRawNumstat("1\t1\tunknown\x00"); err == nil {
		t.Error("a numstat record for no raw record parsed")
	}
}

func TestPlanOps(t *testing.T) {
	changes := []FileChange{
		{Path: "edit.go", Status: Modified, NewMode: "100644"},
		{Path: "big.dat", Status: Deleted, NewMode: zeroMode},      // the target could not hold it
		{Path: "grown.log", Status: Added, NewMode: "100644"},      // now too large to save first
		{Path: "gone-now.txt", Status: Added, NewMode: "100644"},   // skipped before, no longer there
		{Path: "vendor/x", Status: Added, NewMode: "160000"},       // a nested repository
		{Path: "sub/repo/f", Status: Deleted, NewMode: zeroMode},   // under a target skip
		{Path: "removed.txt", Status: Deleted, NewMode: zeroMode},  // a plain deletion
		{Path: "big.dat.orig", Status: Deleted, NewMode: zeroMode}, // a prefix, not under
	}
	beforeSkips := []Skip{{Path: "grown.log", Reason: ReasonTooLarge}, {Path: "gone-now.txt", Reason: ReasonUnreadable}}
	targetSkips := []Skip{{Path: "big.dat", Reason: ReasonTooLarge}, {Path: "sub/repo", Reason: ReasonNested}}
	exists := func(p string) bool { return p != "gone-now.txt" }
	ops, kept := planOps(changes, beforeSkips, targetSkips, exists)
	var opPaths, keptPaths []string
	for _, o := range ops {
		opPaths = append(opPaths, o.Path)
	}
	for _, k := range kept {
		keptPaths = append(keptPaths, k.Path+":"+k.Reason)
	}
	if got := strings.Join(opPaths, ","); got != "edit.go,gone-now.txt,removed.txt,big.dat.orig" {
		t.Errorf("ops = %s", got)
	}
	wantKept := "big.dat:" + ReasonNotInSnap + ",grown.log:" + ReasonNotSaved + ",vendor/x:" + ReasonNested + ",sub/repo/f:" + ReasonNotInSnap
	if got := strings.Join(keptPaths, ","); got != wantKept {
		t.Errorf("kept = %s\nwant   %s", got, wantKept)
	}
}

func TestCommitMessageRoundTrip(t *testing.T) {
	snap := Snapshot{Session: "ses1", Label: "before step\n3", Skipped: []Skip{
		{Path: "big \"quoted\".bin", Reason: ReasonTooLarge, Bytes: 3 << 20},
		{Path: "new\nline", Reason: ReasonUnreadable},
	}}
	body := "tree abc\nauthor agent <a> 1700000000 +0000\ncommitter agent <a> 1700000000 +0000\n\n" + commitMessage(snap)
	got := parseCommit("id", body)
	want := Snapshot{ID: "id", Tree: "abc", Session: "ses1", Label: "before step 3", Time: time.Unix(1700000000, 0), Skipped: snap.Skipped}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip =\n%+v\nwant\n%+v", got, want)
	}
}

func TestScope(t *testing.T) {
	s := &Store{workTree: "/w"}
	rel, outside := s.scope([]string{"a.txt", "/w/dir/b", "../x", "/etc/passwd", "./c/../d"})
	if strings.Join(rel, ",") != "a.txt,dir/b,d" || len(outside) != 2 {
		t.Errorf("scope = %v, outside %v", rel, outside)
	}
	if rel, _ := s.scope([]string{"a", "."}); rel != nil {
		t.Errorf("\".\" should mean the whole tree, got %v", rel)
	}
	if !inScope("dir/b/c", []string{"dir/b"}) || inScope("dir/bc", []string{"dir/b"}) || !inScope("x", nil) {
		t.Error("inScope")
	}
}

func TestSmallParsers(t *testing.T) {
	if got := parseCountObjects("count: 3\nsize: 12\nin-pack: 9\npacks: 1\nsize-pack: 100\nprune-packable: 0\ngarbage: 0\nsize-garbage: 0\n"); got != 112<<10 {
		t.Errorf("count-objects = %d", got)
	}
	if got := cutAtLine("one\ntwo\nthree", 9); got != "one\ntwo\n" {
		t.Errorf("cutAtLine = %q", got)
	}
	m := failedPathRe().FindStringSubmatch(`exit status 128: error: open("a b"): Permission denied … fatal: Unable to process path a b`)
	if m == nil || m[1] != "a b" {
		t.Errorf("failed path = %v", m)
	}
	for n, want := range map[int]int{1: 1, 3: 1, 4: 1, 8: 2, 100: 25} {
		if got := oldestBatch(n); got != want {
			t.Errorf("oldestBatch(%d) = %d, want %d", n, got, want)
		}
	}
}
