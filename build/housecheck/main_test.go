package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	excs := []exception{
		{"internal/loop.Runner", methods, 184, "being split"},
		{"internal/tui/model.go", lines, 551, "being split"},
		{"internal/gone.T", fields, 20, "old"},
	}
	tests := []struct {
		name  string
		c     count
		fails bool
		note  string // a substring of the note, if one is expected
	}{
		{"new receiver over the methods limit", count{"internal/storage.Other", methods, 61}, true, ""},
		{"new receiver at the methods limit", count{"internal/storage.Other", methods, 60}, false, ""},
		{"new receiver over the fields limit", count{"internal/loop.stepper", fields, 16}, true, ""},
		{"new receiver at the fields limit", count{"internal/loop.stepper", fields, 15}, false, ""},
		{"excepted receiver grows", count{"internal/loop.Runner", methods, 185}, true, ""},
		{"excepted receiver as it was", count{"internal/loop.Runner", methods, 184}, false, ""},
		{"excepted receiver shrinks", count{"internal/loop.Runner", methods, 120}, false, "lower its exception from 184"},
		{"excepted receiver under the limit", count{"internal/loop.Runner", methods, 58}, false, "remove its exception"},
		{"excepted measure is per measure", count{"internal/loop.Runner", fields, 16}, true, ""},
		{"new tui file over 500 lines", count{"internal/tui/drawers/queue.go", lines, 501}, true, ""},
		{"tui file at 500 lines", count{"internal/tui/drawers/queue.go", lines, 500}, false, ""},
		{"excepted tui file grows", count{"internal/tui/model.go", lines, 552}, true, ""},
		{"runner.go at 400 lines", count{runnerFile, lines, 400}, true, ""},
		{"runner.go at 399 lines", count{runnerFile, lines, 399}, false, ""},
		{"a long file outside the tui has no limit", count{"internal/storage/queue.go", lines, 2000}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fails, notes []string
			for _, f := range judge([]count{tt.c}, excs) {
				if f.fail {
					fails = append(fails, f.text)
				} else if !strings.Contains(f.text, "no longer exists") { // the other exceptions, not given a count here
					notes = append(notes, f.text)
				}
			}
			if tt.fails != (len(fails) > 0) {
				t.Errorf("failures %q, want failing=%v", fails, tt.fails)
			}
			if tt.note == "" && len(notes) > 0 {
				t.Errorf("unexpected notes %q", notes)
			}
			if tt.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], tt.note)) {
				t.Errorf("notes %q, want one with %q", notes, tt.note)
			}
		})
	}
}

func TestJudgeNotesAnExceptionForNothing(t *testing.T) {
	fs := judge(nil, []exception{{"internal/gone.T", fields, 20, "old"}})
	if len(fs) != 1 || fs[0].fail || !strings.Contains(fs[0].text, "no longer exists") {
		t.Fatalf("findings %+v, want one note that the exception is stale", fs)
	}
}

func TestMeasureTree(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("internal/a/a.go", `package a

type T struct {
	x, y int
	embedded
	z string
}

type embedded struct{}

type G[K comparable, V any] struct{ m map[K]V }

func (T) One()           {}
func (t *T) Two()        {}
func (g *G[K, V]) Get()  {}
func (g G[K, V]) Len() int { return 0 }
func (e embedded) E()    {}
func free()              {}`) // no newline at the end: the last line counts
	write("internal/a/b.go", "package a\n\nfunc (t *T) Three() {}\n")
	write("internal/a/a_test.go", "package a\n\nfunc (t *T) TestOnly() {}\n")
	write("internal/a/testdata/x.go", "package x\n\ntype T struct{}\n\nfunc (T) Skipped() {}\n")
	write("internal/a/.hidden/h.go", "package h\n\ntype T struct{}\n\nfunc (T) Skipped() {}\n")

	counts, err := measureTree(root)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, c := range counts {
		got[c.what+" "+string(c.of)] = c.n
	}
	want := map[string]int{
		"internal/a.T methods":        3,
		"internal/a.T fields":         4,
		"internal/a.G methods":        2,
		"internal/a.G fields":         1,
		"internal/a.embedded methods": 1,
		"internal/a.embedded fields":  0,
		"internal/a/a.go lines":       18,
		"internal/a/b.go lines":       3,
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s = %d, want %d", k, got[k], n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("measured %v, want only %v (test files, testdata and hidden directories skipped)", got, want)
	}
}

// TestRepositoryHolds runs the check on this repository, as make lint
// does: a change that breaks the house fails the tests too.
func TestRepositoryHolds(t *testing.T) {
	counts, err := measureTree("../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) < 100 {
		t.Fatalf("measured only %d receivers and files: is ../.. the module root?", len(counts))
	}
	for _, f := range judge(counts, exceptions) {
		if f.fail {
			t.Error(f.text)
		}
	}
}
