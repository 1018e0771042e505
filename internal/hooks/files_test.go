package hooks

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRepositoryFiles: the files inside the project a hook's command runs
// are found however they are named; programs elsewhere, words that are
// not files, and what a build tool reads are not.
func TestRepositoryFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"scripts/check.sh", "tools/lint", "fmt-all"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte("#!/bin/sh\n"), 0o755)
	}
	os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	t.Setenv("HOME", t.TempDir())
	tests := []struct {
		command string
		want    []string
	}{
		{"./scripts/check.sh", []string{"scripts/check.sh"}},
		{"bash .agent/hooks/x.sh", []string{".agent/hooks/x.sh"}},
		{"python tools/lint.py --fix", []string{"tools/lint.py"}},
		{"python3 lint.py", []string{"lint.py"}},
		{"$CLAUDE_PROJECT_DIR/scripts/lint-changed", []string{"scripts/lint-changed"}},
		{`"${AGENT_PROJECT_DIR}"/tools/lint && echo ok`, []string{"tools/lint"}},
		{"sh -c './fmt-all --check'", []string{"fmt-all"}},
		{"fmt-all", []string{"fmt-all"}},
		{"test -x scripts/check.sh && scripts/check.sh", []string{"scripts/check.sh"}},
		{"~/bin/guard-shell", nil},
		{"/usr/local/bin/notify done", nil},
		{"make -s test >&2 || exit 2", nil},
		{"jq -r .tool_name", nil},
		{"cat > /dev/null; ls docs", nil},
		{"../elsewhere/run.sh", nil},
		{"$(cat scripts/which) arg", []string{"scripts/which"}}, // its text is the command
		{"if then fi ((", nil},
	}
	for _, tc := range tests {
		var want []string
		for _, w := range tc.want {
			want = append(want, filepath.Join(dir, w))
		}
		if got := RepositoryFiles(tc.command, dir); !slices.Equal(got, want) {
			t.Errorf("RepositoryFiles(%q) = %q, want %q", tc.command, got, want)
		}
	}

	r, _ := New([]Hook{
		{Event: Stop, Command: "./scripts/check.sh"},
		{Event: PostToolUse, Command: "bash scripts/check.sh; python tools/lint.py"},
	}, Options{})
	want := []string{filepath.Join(dir, "scripts/check.sh"), filepath.Join(dir, "tools/lint.py")}
	if got := r.RepositoryFiles(dir); !slices.Equal(got, want) {
		t.Errorf("Runner.RepositoryFiles = %q, want %q", got, want)
	}
	if got := (*Runner)(nil).RepositoryFiles(dir); got != nil {
		t.Errorf("nil Runner: %q", got)
	}
}

// TestRunsBuild: a hook that runs the repository's build is named by its
// tool; other commands are not.
func TestRunsBuild(t *testing.T) {
	for cmd, want := range map[string]string{
		"make -s test >&2 || exit 2":       "make",
		"cd sub && npm test":               "npm",
		"go test ./... 2>&1 | tail -5":     "go",
		"./gradlew check":                  "gradlew",
		"~/bin/notify-done":                "",
		"$CLAUDE_PROJECT_DIR/scripts/lint": "",
		"jq -r .tool_name":                 "",
	} {
		if got := RunsBuild(cmd); got != want {
			t.Errorf("RunsBuild(%q) = %q, want %q", cmd, got, want)
		}
	}
}
