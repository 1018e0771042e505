package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// newEnv returns an Env on a fresh directory (its real path, so that
// displayed paths are predictable) with a tracker and an output directory.
func newEnv(t testing.TB) *Env {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &Env{Dir: dir, OutputDir: filepath.Join(t.TempDir(), "outputs"), Files: NewFileTracker()}
}

// call runs one call through the registry (validation, sanitising, cap).
func call(t testing.TB, env *Env, name string, input any) Result {
	t.Helper()
	return callCtx(context.Background(), t, env, name, input)
}

func callCtx(ctx context.Context, t testing.TB, env *Env, name string, input any) Result {
	t.Helper()
	raw, ok := input.(string)
	if !ok {
		b, err := json.Marshal(input)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	return NewRegistry().Run(ctx, env, Call{ID: "call_test", Name: name, Input: json.RawMessage(raw)})
}

// writeFiles creates files (relative path → content) under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mustContain(t testing.TB, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
}

func mustNotContain(t testing.TB, got string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(got, w) {
			t.Errorf("output contains %q:\n%s", w, got)
		}
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
