package truncate

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n")
	}
	return b.String()
}

func TestApply(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		maxLines  int
		maxBytes  int
		want      string
		truncated bool
	}{
		{"fits", "a\nb\n", 2, 100, "a\nb\n", false},
		{"no limits", numbered(50), 0, 0, numbered(50), false},
		{"line cap", "a\nb\nc\n", 2, 100, "a\nb\n", true},
		{"line cap no trailing newline", "a\nb\nc", 2, 100, "a\nb\n", true},
		{"byte cap on line boundary", "aaaa\nbbbb\ncccc\n", 0, 11, "aaaa\nbbbb\n", true},
		{"first line longer than cap", strings.Repeat("z", 30) + "\nrest\n", 10, 8, strings.Repeat("z", 8), true},
		{"cut never splits a rune", "ééééé", 0, 5, "éé", true},
		{"empty", "", 1, 1, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, truncated := Apply(tt.in, tt.maxLines, tt.maxBytes)
			if got != tt.want || truncated != tt.truncated {
				t.Fatalf("Apply(%q, %d, %d) = %q, %v; want %q, %v", tt.in, tt.maxLines, tt.maxBytes, got, truncated, tt.want, tt.truncated)
			}
			if !utf8.ValidString(got) {
				t.Fatalf("invalid UTF-8 in %q", got)
			}
		})
	}
}

func TestHeadTail(t *testing.T) {
	in := numbered(100)
	got, truncated := HeadTail(in, 10, 0)
	if !truncated {
		t.Fatal("not truncated")
	}
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 11 {
		t.Fatalf("got %d lines, want 5 head + marker + 5 tail:\n%s", len(lines), got)
	}
	inLines := strings.Split(strings.TrimSuffix(in, "\n"), "\n")
	if lines[0] != inLines[0] || lines[4] != inLines[4] || lines[6] != inLines[95] || lines[10] != inLines[99] {
		t.Fatalf("head or tail wrong:\n%s", got)
	}
	if !strings.Contains(lines[5], "90 lines") {
		t.Fatalf("marker %q does not say 90 lines were cut", lines[5])
	}

	// The byte budget is shared: head and tail each get half.
	got, _ = HeadTail(strings.Repeat("a", 100)+"\n"+strings.Repeat("b", 100), 0, 20)
	if !strings.HasPrefix(got, strings.Repeat("a", 10)+"\n") || !strings.HasSuffix(got, "\n"+strings.Repeat("b", 10)) {
		t.Fatalf("long lines not cut to half the budget each: %q", got)
	}

	if got, truncated := HeadTail("short\n", 10, 100); truncated || got != "short\n" {
		t.Fatalf("fitting output changed: %q %v", got, truncated)
	}
}

func TestSplitHeadTailAccountsForEveryByte(t *testing.T) {
	in := numbered(1000)
	for _, limits := range [][2]int{{10, 0}, {0, 500}, {7, 300}, {1, 1}, {3, 0}} {
		head, tail, cut := SplitHeadTail(in, limits[0], limits[1])
		if len(head)+cut.Bytes+len(tail) != len(in) {
			t.Fatalf("limits %v: %d+%d+%d != %d", limits, len(head), cut.Bytes, len(tail), len(in))
		}
		if head+in[len(head):len(in)-len(tail)]+tail != in {
			t.Fatalf("limits %v: pieces do not rebuild the input", limits)
		}
		if limits[1] > 0 && len(head)+len(tail) > limits[1] {
			t.Fatalf("limits %v: kept %d bytes", limits, len(head)+len(tail))
		}
		if limits[0] > 0 && CountLines(head)+CountLines(tail) > limits[0]+1 {
			t.Fatalf("limits %v: kept %d lines", limits, CountLines(head)+CountLines(tail))
		}
	}
}

func TestNotice(t *testing.T) {
	n := Notice(2000, 5000, 123456, "/data/outputs/x.out")
	for _, want := range []string{"2000 of 5000 lines", "/data/outputs/x.out", "offset=2001", "grep"} {
		if !strings.Contains(n, want) {
			t.Errorf("notice %q lacks %q", n, want)
		}
	}
	if n := Notice(1, 2, 3, ""); !strings.Contains(n, "could not be saved") {
		t.Errorf("notice without path: %q", n)
	}
}

func TestSaverAndClean(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outputs")
	s := Saver{Dir: dir}
	full := numbered(5000)
	path, err := s.SaveString("call/1:x", full)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != dir || strings.ContainsAny(filepath.Base(path), "/:") {
		t.Fatalf("unexpected path %s", path)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != full {
		t.Fatalf("saved file does not hold the whole output (err %v, %d of %d bytes)", err, len(got), len(full))
	}
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", p, info.Mode().Perm(), want)
		}
	}
	// Same call id twice: two files.
	path2, err := s.SaveString("call/1:x", "other")
	if err != nil || path2 == path {
		t.Fatalf("second save: %s %v", path2, err)
	}

	old := time.Now().Add(-8 * 24 * time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(dir, "keep.txt")
	if err := os.WriteFile(foreign, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(foreign, old, old); err != nil {
		t.Fatal(err)
	}
	removed, err := Clean(dir, MaxAge)
	if err != nil || removed != 1 {
		t.Fatalf("Clean = %d, %v; want 1", removed, err)
	}
	for p, exists := range map[string]bool{path: false, path2: true, foreign: true} {
		if _, err := os.Stat(p); (err == nil) != exists {
			t.Errorf("%s exists=%v, want %v", p, err == nil, exists)
		}
	}
	if n, err := Clean(filepath.Join(dir, "missing"), MaxAge); n != 0 || err != nil {
		t.Fatalf("Clean of a missing dir = %d, %v", n, err)
	}
	if _, err := (Saver{}).SaveString("x", "y"); err == nil {
		t.Fatal("Saver without Dir saved")
	}
}

func TestFitStep(t *testing.T) {
	for _, tc := range []struct {
		name          string
		sizes         []int64
		budget, floor int64
		want          []int64
	}{
		{"fits", []int64{10, 20, 30}, 60, 5, []int64{10, 20, 30}},
		{"oldest cut first", []int64{100, 100, 100}, 250, 10, []int64{50, 100, 100}},
		{"then the next", []int64{100, 100, 100}, 150, 10, []int64{10, 40, 100}},
		{"floors hold", []int64{100, 100, 100}, 20, 10, []int64{10, 10, 10}},
		{"small results stay whole", []int64{3, 100}, 50, 10, []int64{3, 47}},
		{"negative budget", []int64{30}, -5, 10, []int64{10}},
		{"empty", nil, 10, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FitStep(tc.sizes, tc.budget, tc.floor)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("FitStep(%v, %d, %d) = %v, want %v", tc.sizes, tc.budget, tc.floor, got, tc.want)
			}
		})
	}
}

func TestOldestBeyond(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	files := []savedFile{
		{name: "c", size: 100, modTime: t0.Add(2 * time.Hour)},
		{name: "a", size: 100, modTime: t0},
		{name: "d", size: 100, modTime: t0.Add(3 * time.Hour)},
		{name: "b", size: 100, modTime: t0.Add(time.Hour)},
	}
	for _, tc := range []struct {
		max  int64
		want []string
	}{
		{400, nil},
		{399, []string{"a"}},
		{250, []string{"a", "b"}},
		{0, []string{"a", "b", "c", "d"}},
	} {
		if got := oldestBeyond(files, tc.max); !slices.Equal(got, tc.want) {
			t.Errorf("oldestBeyond(%d) = %v, want %v", tc.max, got, tc.want)
		}
	}
}

// TestSaverBoundsTheTotal: creating an output first removes the oldest
// saved outputs so that those left and the new one fit the total.
func TestSaverBoundsTheTotal(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Now().Add(-time.Hour)
	var paths []string
	for i := 0; i < 5; i++ {
		p := filepath.Join(dir, fmt.Sprintf("old%d%s", i, fileSuffix))
		if err := os.WriteFile(p, make([]byte, 100), 0o600); err != nil {
			t.Fatal(err)
		}
		mt := t0.Add(time.Duration(i) * time.Minute)
		os.Chtimes(p, mt, mt)
		paths = append(paths, p)
	}
	foreign := filepath.Join(dir, "keep.txt")
	os.WriteFile(foreign, make([]byte, 1000), 0o600)

	if n, err := Bound(dir, 450); n != 1 || err != nil {
		t.Fatalf("Bound = %d, %v; want 1", n, err)
	}
	s := Saver{Dir: dir, MaxTotalBytes: 350, MaxFileBytes: 100}
	f, err := s.Create("new")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for i, p := range paths {
		_, err := os.Stat(p)
		if exists := err == nil; exists != (i >= 3) {
			t.Errorf("%s exists=%v", filepath.Base(p), exists)
		}
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("a file that is not a saved output was removed: %v", err)
	}
}
