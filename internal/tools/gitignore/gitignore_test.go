package gitignore

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMatcher(t *testing.T) {
	content := `
# comment
*.log
!keep.log
build/
/root-only
docs/*.md
**/generated/**
a/**/z
\#hash
trailing\ 
vendor/**
!vendor/keep/
weird{brace}
`
	m := Parse([]byte(content))
	s := (*Stack)(nil).Push("/repo", m)
	tests := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"/repo/x.log", false, true},
		{"/repo/deep/down/x.log", false, true},
		{"/repo/keep.log", false, false},
		{"/repo/sub/keep.log", false, false},
		{"/repo/build", true, true},
		{"/repo/sub/build", true, true},
		{"/repo/build", false, false}, // dir-only pattern, a file named build
		{"/repo/root-only", false, true},
		{"/repo/sub/root-only", false, false},
		{"/repo/docs/a.md", false, true},
		{"/repo/docs/sub/a.md", false, false},
		{"/repo/x/generated/y.go", false, true},
		{"/repo/generated/y.go", false, true},
		{"/repo/a/z", false, true},
		{"/repo/a/b/c/z", false, true},
		{"/repo/#hash", false, true},
		{"/repo/trailing ", false, true},
		{"/repo/trailing", false, false},
		{"/repo/vendor", true, false}, // "vendor/**" is what is inside vendor
		{"/repo/vendor/lib", true, true},
		{"/repo/vendor/keep", true, false},
		{"/repo/weird{brace}", false, true},
		{"/repo/weirdb", false, false},
		{"/repo/main.go", false, false},
		{"/elsewhere/x.log", false, false},
	}
	for _, tt := range tests {
		if got := s.Ignored(tt.path, tt.isDir); got != tt.want {
			t.Errorf("Ignored(%q, dir=%v) = %v, want %v", tt.path, tt.isDir, got, tt.want)
		}
	}
}

func TestDeeperFileWins(t *testing.T) {
	s := (*Stack)(nil).Push("/r", Parse([]byte("*.txt\n")))
	s = s.Push("/r/sub", Parse([]byte("!important.txt\n")))
	if !s.Ignored("/r/sub/other.txt", false) {
		t.Error("parent pattern no longer applies in sub")
	}
	if s.Ignored("/r/sub/important.txt", false) {
		t.Error("nested negation did not re-include")
	}
	if !s.Ignored("/r/important.txt", false) {
		t.Error("nested file applied outside its directory")
	}
	var none *Stack
	if none.Ignored("/r/x", false) {
		t.Error("nil stack ignored something")
	}
}

func TestForRoot(t *testing.T) {
	top := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(top, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/info/exclude", "*.secret\n")
	write(".gitignore", "*.log\n!*.secret\n")
	write("a/.gitignore", "/tmp/\n")
	write("a/b/.gitignore", "*.bin\n") // root's own: not in ForRoot's stack

	s := ForRoot(filepath.Join(top, "a", "b"))
	tests := []struct {
		rel   string
		isDir bool
		want  bool
	}{
		{"a/b/x.log", false, true},     // top .gitignore
		{"a/b/tmp", true, false},       // a/.gitignore anchors tmp to a/
		{"a/tmp", true, true},          // (outside root, but the stack knows)
		{"a/b/x.bin", false, false},    // root's own file is the walker's job
		{"a/b/k.secret", false, false}, // .gitignore negation beats info/exclude
	}
	for _, tt := range tests {
		if got := s.Ignored(filepath.Join(top, tt.rel), tt.isDir); got != tt.want {
			t.Errorf("Ignored(%s) = %v, want %v", tt.rel, got, tt.want)
		}
	}
	if ForRoot(t.TempDir()) != nil {
		t.Error("a directory outside any repository got ignore rules")
	}
}
