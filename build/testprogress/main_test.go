package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgressFromRealGoTest runs go test -json on a throwaway module with
// a passing, a failing and a broken package and a package without tests:
// each finished package gets its line, the failing test's output is shown
// in full, and the exit code is 1; with the passing package alone, 0.
func TestProgressFromRealGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":             "module example.com/m\n\ngo 1.22\n",
		"good/good_test.go":  "package good\nimport \"testing\"\nfunc TestGood(t *testing.T) {}\n",
		"bad/bad_test.go":    "package bad\nimport \"testing\"\nfunc TestBad(t *testing.T) { t.Log(\"the reason it failed\"); t.Fail() }\nfunc TestFine(t *testing.T) {}\n",
		"broken/broken.go":   "package broken\nfunc f() int { return \"x\" }\n",
		"broken/b_test.go":   "package broken\n",
		"notests/notests.go": "package notests\n",
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goTest := func(pkgs ...string) (string, int) {
		cmd := exec.Command("go", append([]string{"test", "-json", "-count=1"}, pkgs...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		js, _ := cmd.Output() // go test fails here; its JSON is what counts
		var out strings.Builder
		code := run(strings.NewReader(string(js)), &out, "example.com/m")
		return out.String(), code
	}
	out, code := goTest("./...")
	t.Logf("\n%s", out)
	for _, want := range []string{"ok   good", "--- FAIL bad TestBad", "the reason it failed", "FAIL bad", "BUILD FAILED broken", "cannot use", "failed: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "TestFine") || strings.Contains(out, "TestGood") {
		t.Error("a passing test's name was printed: the log is for packages and failures")
	}
	if code != 1 {
		t.Errorf("exit %d with failures, want 1", code)
	}
	if out, code := goTest("./good", "./notests"); code != 0 || !strings.Contains(out, "1 packages passed, 0 failed, 1 without tests") {
		t.Errorf("passing run: exit %d:\n%s", code, out)
	}
}

// TestProgressWithoutEvents: input with no finished package (go test
// refused its flags) is a failure, and its text is passed through.
func TestProgressWithoutEvents(t *testing.T) {
	var out strings.Builder
	if code := run(strings.NewReader("flag provided but not defined: -bogus\n"), &out, ""); code != 1 || !strings.Contains(out.String(), "-bogus") {
		t.Errorf("exit %d:\n%s", code, out.String())
	}
}
