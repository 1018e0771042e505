package mention

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if treeDir != "" {
		os.RemoveAll(treeDir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func TestParse(t *testing.T) {
	exists := func(p string) bool { return p == "Makefile" }
	tests := []struct {
		text string
		want []string
	}{
		{"look at @main.go please", []string{"main.go"}},
		{"@internal/loop/ and @a.go, then @a.go.", []string{"internal/loop/", "a.go"}},
		{"mail me@host.com or ping @john", nil},
		{"see @Makefile!", []string{"Makefile"}},
		{"(@x/y.go) [@z.md]", []string{"x/y.go", "z.md"}},
		{"@ alone and @/", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, m := range Parse(tt.text, exists) {
			got = append(got, m.Path)
			if tt.text[m.Start] != '@' || tt.text[m.Start+1:m.End] != m.Path {
				t.Errorf("%q: offsets %d..%d do not hold @%s", tt.text, m.Start, m.End, m.Path)
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestPartial(t *testing.T) {
	for text, want := range map[string]string{"fix @int": "int", "@": "", "a\n@x/": "x/", "no mention": "-", "mail@x": "-"} {
		got, ok := Partial(text)
		if !ok {
			got = "-"
		}
		if got != want {
			t.Errorf("Partial(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestRank(t *testing.T) {
	paths := []string{"README.md", "cmd/agent/main.go", "internal/loop/runner.go", "internal/loop/", "internal/", "internal/tui/model.go", "docs/running.md"}
	if got := Rank(paths, "runner", 3); len(got) == 0 || got[0] != "internal/loop/runner.go" {
		t.Errorf("runner: %q", got)
	}
	if got := Rank(paths, "ilr", 5); len(got) == 0 || got[0] != "internal/loop/runner.go" && got[0] != "internal/loop/" {
		t.Errorf("ilr: %q", got)
	}
	if got := Rank(paths, "zzz", 5); len(got) != 0 {
		t.Errorf("zzz: %q", got)
	}
	if got := Rank(paths, "", 2); len(got) != 2 || strings.Contains(got[0]+got[1], "/m") {
		t.Errorf("empty query: %q", got)
	}
}

// TestIndexIsGitignoreAware: the index lists files and their directories,
// leaves out what .gitignore ignores and .git, and picks up a new file on
// refresh.
func TestIndexIsGitignoreAware(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.go", "sub/b.go", "build/out.bin", ".git/config", ".gitignore"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte("build/\n"), 0o644)
	}
	x := NewIndex(dir)
	if _, ready := x.Paths(); ready {
		t.Fatal("ready before any walk")
	}
	<-x.Refresh()
	paths, ready := x.Paths()
	if !ready || strings.Join(paths, ",") != ".gitignore,a.go,sub/,sub/b.go" {
		t.Errorf("paths %q (ready %v)", paths, ready)
	}
	os.WriteFile(filepath.Join(dir, "sub", "c.go"), nil, 0o644)
	<-x.Refresh()
	if got, _ := x.Match("c.go", 5); len(got) == 0 || got[0] != "sub/c.go" {
		t.Errorf("after refresh: %q", got)
	}
}

var (
	treeOnce sync.Once
	treeDir  string
)

// bigTree makes a tree of 100,000 files in 1,000 directories, once.
func bigTree(tb testing.TB) string {
	treeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mention-bench-")
		if err != nil {
			tb.Fatal(err)
		}
		for d := 0; d < 1000; d++ {
			sub := filepath.Join(dir, fmt.Sprintf("pkg%03d", d/40), fmt.Sprintf("mod%04d", d))
			os.MkdirAll(sub, 0o755)
			for f := 0; f < 100; f++ {
				os.WriteFile(filepath.Join(sub, fmt.Sprintf("file_%02d_handler.go", f)), nil, 0o644)
			}
		}
		treeDir = dir
	})
	return treeDir
}

// BenchmarkMatch100K measures the first suggestions for an "@" query over
// a 100,000-file tree once the index is warm (the bound: 50 ms).
func BenchmarkMatch100K(b *testing.B) {
	dir := bigTree(b)
	x := NewIndex(dir)
	start := time.Now()
	<-x.Refresh()
	walkMS := float64(time.Since(start).Milliseconds())
	paths, _ := x.Paths()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got, _ := x.Match("mod0420hand", 10); len(got) == 0 {
			b.Fatalf("no match among %d paths, e.g. %q", len(paths), paths[:min(3, len(paths))])
		}
	}
	b.ReportMetric(walkMS, "walk-ms")
	b.ReportMetric(float64(len(paths)), "paths")
}
