package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// searchTree is a small project with the things searches must skip.
func searchTree(t *testing.T) *Env {
	t.Helper()
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{
		".gitignore":              "*.log\nbuild/\n/secret.txt\n!keep.log\n",
		"main.go":                 "package main\n\nfunc main() {\n\tneedle()\n}\n",
		"util/needle.go":          "package util\n\n// needle is here\nfunc Needle() {}\n",
		"util/.gitignore":         "generated.go\n",
		"util/generated.go":       "needle in generated\n",
		"docs/guide.md":           "A needle in the docs.\n",
		"docs with space/note.md": "needle with space\n",
		"app.log":                 "needle in a log\n",
		"keep.log":                "needle kept\n",
		"build/out.go":            "needle built\n",
		"secret.txt":              "needle secret\n",
		"sub/secret.txt":          "needle not so secret\n",
		".git/config":             "needle in git\n",
		"node_modules/x/index.js": "needle in deps\n",
		"crlf.txt":                "needle crlf\r\n",
	})
	if err := os.WriteFile(filepath.Join(env.Dir, "bin.dat"), []byte("needle\x00binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	return env
}

func TestGrep(t *testing.T) {
	env := searchTree(t)
	res := call(t, env, "grep", map[string]any{"pattern": "needle"})
	if res.IsError {
		t.Fatal(res.Output)
	}
	for _, line := range []string{
		"Found 7 matching lines in 7 files:\n",
		"crlf.txt:1: needle crlf\n",
		"docs with space/note.md:1: needle with space\n",
		"docs/guide.md:1: A needle in the docs.\n",
		"keep.log:1: needle kept\n",
		"main.go:4: \tneedle()\n",
		"sub/secret.txt:1: needle not so secret\n",
		"util/needle.go:3: // needle is here\n",
	} {
		mustContain(t, res.Output, line)
	}
	mustNotContain(t, res.Output, "generated", "app.log", "built", "needle secret", "in git", "deps", "binary", "\r")
	if res.Metadata["matches"] != 7 || res.Metadata["files"] != 7 {
		t.Errorf("metadata %v", res.Metadata)
	}
}

func TestGrepOptions(t *testing.T) {
	env := searchTree(t)
	tests := []struct {
		name    string
		input   map[string]any
		isError bool
		wants   []string
		unwants []string
	}{
		{"regexp", map[string]any{"pattern": `func \w+\(`}, false, []string{"main.go:3: func main() {", "util/needle.go:4: func Needle() {}"}, nil},
		{"case-insensitive", map[string]any{"pattern": `(?i)^func needle`}, false, []string{"util/needle.go:4:"}, []string{"main.go"}},
		{"anchors are per line", map[string]any{"pattern": `^\tneedle\(\)$`}, false, []string{"main.go:4:"}, nil},
		{"include by name", map[string]any{"pattern": "needle", "include": "*.md"}, false, []string{"docs/guide.md:1:", "docs with space/note.md:1:"}, []string{".go:"}},
		{"include alternatives", map[string]any{"pattern": "needle", "include": "*.{go,txt}"}, false, []string{"main.go:4:", "crlf.txt:1:"}, []string{".md:"}},
		{"include with a path", map[string]any{"pattern": "needle", "include": "util/**/*.go"}, false, []string{"util/needle.go"}, []string{"main.go"}},
		{"path with spaces", map[string]any{"pattern": "needle", "path": "docs with space"}, false, []string{"docs with space/note.md:1:"}, []string{"guide"}},
		{"single file", map[string]any{"pattern": "Needle", "path": "util/needle.go"}, false, []string{"util/needle.go:4: func Needle() {}"}, nil},
		{"explicit ignored file", map[string]any{"pattern": "needle", "path": "app.log"}, false, []string{"app.log:1:"}, nil},
		{"no matches", map[string]any{"pattern": "haystack"}, false, []string{`No matches for "haystack" in .`}, nil},
		{"empty pattern", map[string]any{"pattern": ""}, true, []string{"pattern is empty"}, nil},
		{"invalid regexp", map[string]any{"pattern": "func("}, true, []string{"invalid regular expression", "missing closing )", "func("}, []string{"(?m)"}},
		{"lookahead", map[string]any{"pattern": "a(?=b)"}, true, []string{"no lookaround"}, nil},
		{"missing path", map[string]any{"pattern": "x", "path": "utill"}, true, []string{"utill does not exist", "util/"}, nil},
		{"invalid include", map[string]any{"pattern": "x", "include": "[a"}, true, []string{"invalid include"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, env, "grep", tt.input)
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Output)
			}
			mustContain(t, res.Output, tt.wants...)
			mustNotContain(t, res.Output, tt.unwants...)
		})
	}
}

func TestGrepSkipsSymlinks(t *testing.T) {
	env := newEnv(t)
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"private.txt": "needle outside\n"})
	if err := os.Symlink(filepath.Join(outside, "private.txt"), filepath.Join(env.Dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	res := call(t, env, "grep", map[string]any{"pattern": "needle"})
	mustNotContain(t, res.Output, "outside")
}

// TestGrepLimitIsDeterministic checks that the parallel search shows exactly
// the first matches in path order, however the workers interleave.
func TestGrepLimitIsDeterministic(t *testing.T) {
	env := newEnv(t)
	files := map[string]string{}
	for i := range 60 {
		var b strings.Builder
		for j := range i % 5 {
			fmt.Fprintf(&b, "hit %d.%d\n", i, j)
		}
		b.WriteString("miss\n")
		files[fmt.Sprintf("d%d/f%02d.txt", i%3, i)] = b.String()
	}
	files["long.txt"] = "hit " + strings.Repeat("é", 600) + "\n"
	writeFiles(t, env.Dir, files)
	var first string
	for range 10 {
		res := call(t, env, "grep", map[string]any{"pattern": "hit"})
		if first == "" {
			first = res.Output
			continue
		}
		if res.Output != first {
			t.Fatalf("output differs between runs:\n%s\n---\n%s", first, res.Output)
		}
	}
	lines := strings.Split(strings.TrimSuffix(first, "\n"), "\n")
	if len(lines) != 101 || !strings.HasPrefix(lines[0], "Found more than 100 matching lines; showing the first 100") {
		t.Fatalf("%d lines, header %q", len(lines), lines[0])
	}
	// Path order: d0/… before d1/…, the long line among d2's.
	if !strings.HasPrefix(lines[1], "d0/f03.txt:1: hit 3.0") {
		t.Fatalf("first match %q", lines[1])
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "long.txt") && !strings.HasSuffix(l, "…[line cut]") {
			t.Fatalf("long line not cut: %d bytes", len(l))
		}
	}
}

func TestGrepLargeFileInChunks(t *testing.T) {
	env := newEnv(t)
	var b strings.Builder
	for i := 1; i <= 200000; i++ {
		if i%50000 == 0 {
			fmt.Fprintf(&b, "target at %d\n", i)
		} else {
			fmt.Fprintf(&b, "filler line %d\n", i)
		}
	}
	b.WriteString(strings.Repeat("z", 300<<10) + " target in a long line\n") // longer than the first buffer
	b.WriteString("target last")
	writeFiles(t, env.Dir, map[string]string{"big.txt": b.String()})
	res := call(t, env, "grep", map[string]any{"pattern": "target"})
	for _, want := range []string{"big.txt:50000: target at 50000", "big.txt:200000: target at 200000", "big.txt:200001: zzz", "big.txt:200002: target last"} {
		mustContain(t, res.Output, want)
	}
}

func TestGlob(t *testing.T) {
	env := searchTree(t)
	// Newest first.
	base := time.Now().Add(-time.Hour)
	for i, rel := range []string{"util/needle.go", "main.go"} {
		at := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(env.Dir, rel), at, at); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		input   map[string]any
		isError bool
		exact   string
		wants   []string
	}{
		{"recursive newest first", map[string]any{"pattern": "**/*.go"}, false, "main.go\nutil/needle.go\n", nil},
		{"name at any depth", map[string]any{"pattern": "*.go"}, false, "main.go\nutil/needle.go\n", nil},
		{"path pattern", map[string]any{"pattern": "docs*/*.md"}, false, "", []string{"docs/guide.md", "docs with space/note.md"}},
		{"in a path", map[string]any{"pattern": "*.md", "path": "docs with space"}, false, "docs with space/note.md\n", nil},
		{"one level", map[string]any{"pattern": "util/*"}, false, "util/.gitignore\nutil/needle.go\n", nil},
		{"top level only with ./", map[string]any{"pattern": "./*.go"}, false, "main.go\n", nil},
		{"a directory lists its files", map[string]any{"pattern": "util/"}, false, "util/.gitignore\nutil/needle.go\n", nil},
		{"alternatives", map[string]any{"pattern": "*.{log,txt}"}, false, "", []string{"keep.log", "crlf.txt", "sub/secret.txt"}},
		{"ignored and skipped", map[string]any{"pattern": "**/*"}, false, "", []string{".gitignore", "bin.dat"}},
		{"no match", map[string]any{"pattern": "*.rs"}, false, `No files match "*.rs" in ..`, nil},
		{"empty pattern", map[string]any{"pattern": ""}, true, "", []string{"pattern is empty"}},
		{"invalid pattern", map[string]any{"pattern": "[a"}, true, "", []string{"invalid glob"}},
		{"path is a file", map[string]any{"pattern": "*", "path": "main.go"}, true, "", []string{"is a file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, env, "glob", tt.input)
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Output)
			}
			if tt.exact != "" && res.Output != tt.exact {
				t.Fatalf("Output = %q, want %q", res.Output, tt.exact)
			}
			mustContain(t, res.Output, tt.wants...)
			mustNotContain(t, res.Output, "app.log", "build/", "generated.go", "node_modules", ".git/", "\nsecret.txt")
		})
	}
}

func TestGlobLimitAndAbsolutePattern(t *testing.T) {
	env := newEnv(t)
	files := map[string]string{}
	for i := range 150 {
		files[fmt.Sprintf("f%03d.txt", i)] = ""
	}
	writeFiles(t, env.Dir, files)
	res := call(t, env, "glob", map[string]any{"pattern": "*.txt"})
	lines := strings.Split(strings.TrimSuffix(res.Output, "\n"), "\n")
	if len(lines) != 101 || !strings.Contains(lines[100], "Showing the 100 most recently modified of 150") {
		t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
	res = call(t, env, "glob", map[string]any{"pattern": filepath.Join(env.Dir, "f14*.txt")})
	if strings.Count(res.Output, "\n") != 10 || !strings.Contains(res.Output, "f149.txt") {
		t.Fatalf("absolute pattern: %q", res.Output)
	}
}

func TestLs(t *testing.T) {
	env := searchTree(t)
	res := call(t, env, "ls", map[string]any{})
	if res.IsError {
		t.Fatal(res.Output)
	}
	for _, want := range []string{
		env.Dir + "/\n",
		"  .git/ (version control data, not expanded)\n",
		"  build/ (ignored by .gitignore, not expanded)\n",
		"  docs with space/\n    note.md\n",
		"  node_modules/ (dependencies, not expanded)\n",
		"  util/\n    .gitignore\n    generated.go\n    needle.go\n",
		"  main.go\n",
		"  app.log\n", // ignored files are listed, ignored directories not expanded
	} {
		mustContain(t, res.Output, want)
	}
	mustNotContain(t, res.Output, "config", "index.js", "out.go")
	if res.Title != "ls ." {
		t.Errorf("Title %q", res.Title)
	}

	res = call(t, env, "ls", map[string]any{"path": "main.go"})
	if !res.IsError || !strings.Contains(res.Output, "is a file") {
		t.Fatalf("%+v", res)
	}
	res = call(t, env, "ls", map[string]any{"path": "nope"})
	if !res.IsError || !strings.Contains(res.Output, "does not exist") {
		t.Fatalf("%+v", res)
	}
}

func TestLsIsBounded(t *testing.T) {
	env := newEnv(t)
	files := map[string]string{}
	for i := range 30 {
		for j := range 40 {
			files[fmt.Sprintf("pkg%02d/file%02d.go", i, j)] = ""
		}
	}
	files["a/b/c/d/e/f/deep.txt"] = ""
	writeFiles(t, env.Dir, files)
	res := call(t, env, "ls", map[string]any{})
	// 31 directories fit; their 1201 children do not: counts instead.
	mustContain(t, res.Output, "  pkg00/ (40 entries)\n", "  a/ (1 entries)\n")
	mustNotContain(t, res.Output, "file00.go")

	res = call(t, env, "ls", map[string]any{"path": "a"})
	mustContain(t, res.Output, "  b/\n    c/\n      d/\n        e/ (1 entries)\n")

	many := map[string]string{}
	for i := range 1200 {
		many[fmt.Sprintf("flat/f%04d", i)] = ""
	}
	writeFiles(t, env.Dir, many)
	res = call(t, env, "ls", map[string]any{"path": "flat"})
	mustContain(t, res.Output, "(200 more entries not shown")
	if res.Metadata["entries"] != 1000 {
		t.Fatalf("entries %v", res.Metadata["entries"])
	}
}

// goroot returns $(go env GOROOT)/src, or skips.
func goroot(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skip("go env GOROOT:", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(src); err != nil {
		tb.Skip("no GOROOT/src")
	}
	return src
}

func BenchmarkGrepGoroot(b *testing.B) {
	src := goroot(b)
	env := &Env{Dir: src}
	r := NewRegistry()
	// The last pattern has no literal to prefilter with: the regexp engine
	// reads every line.
	for _, pattern := range []string{"func main", `func \(\w+ \*?Reader\) Read\w*`, `(?i)deprecated:`, `\d{4}-\d{2}-\d{2}T`} {
		b.Run(pattern, func(b *testing.B) {
			c := Call{Name: "grep", Input: []byte(fmt.Sprintf(`{"pattern": %q}`, pattern))}
			for b.Loop() {
				if res := r.Run(context.Background(), env, c); res.IsError {
					b.Fatal(res.Output)
				}
			}
		})
	}
	// A pattern with few matches scans the whole tree.
	b.Run("rare", func(b *testing.B) {
		c := Call{Name: "grep", Input: []byte(`{"pattern": "ThisStringIsNowhere[0-9]+"}`)}
		for b.Loop() {
			r.Run(context.Background(), env, c)
		}
	})
}

func BenchmarkGlobGoroot(b *testing.B) {
	src := goroot(b)
	env := &Env{Dir: src}
	r := NewRegistry()
	c := Call{Name: "glob", Input: []byte(`{"pattern": "**/*.go"}`)}
	for b.Loop() {
		if res := r.Run(context.Background(), env, c); res.IsError {
			b.Fatal(res.Output)
		}
	}
}

func TestRequiredLiteral(t *testing.T) {
	tests := []struct {
		pattern string
		lit     string
		fold    bool
	}{
		{"func main", "func main", false},
		{`func \w+Handler\(`, "Handler(", false},
		{`(foo)+barbaz`, "barbaz", false},
		{`a|b`, "", false},
		{`(?i)deprecated:`, "deprecated:", true},
		{`(?i)unsafe`, "afe", true}, // s folds to ſ too
		{`(?i)kelvin`, "elvin", true},
		{`x?abc`, "abc", false},
		{`(abc)?`, "", false},
		{`ab`, "", false},
	}
	for _, tt := range tests {
		lit, fold := requiredLiteral(tt.pattern)
		if lit != tt.lit || fold != tt.fold {
			t.Errorf("requiredLiteral(%q) = %q, %v; want %q, %v", tt.pattern, lit, fold, tt.lit, tt.fold)
		}
	}
}

func TestGrepCaseInsensitive(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{"a.txt": "Deprecated: old\nDEPRECATED: older\nfine\n\u212aelvin and Kelvin\n"})
	res := call(t, env, "grep", map[string]any{"pattern": "(?i)deprecated:"})
	mustContain(t, res.Output, "a.txt:1: Deprecated: old", "a.txt:2: DEPRECATED: older")
	res = call(t, env, "grep", map[string]any{"pattern": "(?i)kelvin and"})
	mustContain(t, res.Output, "a.txt:4:")
}
