package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const testSecret = "sk-unit-0123456789abcdef"

// TestRedactorAcrossReads splits a secret at every position between two
// reads: it never passes through whole.
func TestRedactorAcrossReads(t *testing.T) {
	text := "before " + testSecret + " middle " + testSecret + "\nafter"
	want := "before [redacted] middle [redacted]\nafter"
	for cut := 0; cut <= len(text); cut++ {
		c := newOutputCapture(1<<20, 1<<20, nil)
		r := newRedactor(c, []string{testSecret, "ab"})
		r.write([]byte(text[:cut]))
		r.write([]byte(text[cut:]))
		r.flush()
		if got := string(c.all); got != want {
			t.Fatalf("cut at %d: %q, want %q", cut, got, want)
		}
	}
}

// TestRedactorPassesALineThatCannotBeginASecret: only bytes that may begin
// a secret wait for the next read; a background server's last log line
// must not wait for a line that never comes.
func TestRedactorPassesALineThatCannotBeginASecret(t *testing.T) {
	c := newOutputCapture(1<<20, 1<<20, nil)
	r := newRedactor(c, []string{testSecret})
	r.write([]byte("GET /hello.txt 200\n"))
	if got := string(c.all); got != "GET /hello.txt 200\n" {
		t.Fatalf("passed on %q before flush", got)
	}
	r.write([]byte("key sk-unit-01"))
	if got := string(c.all); got != "GET /hello.txt 200\nkey " {
		t.Fatalf("passed on %q: a possible secret's beginning went through, or more waited", got)
	}
}

func TestBashEnvironmentHasNoSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testSecret)
	t.Setenv("AGENT_TEST_ALIAS", testSecret)
	env := newEnv(t)
	env.Secrets = []string{testSecret}
	res := call(t, env, "bash", map[string]any{"command": `env; echo "v=$OPENAI_API_KEY a=$AGENT_TEST_ALIAS"; echo ` + testSecret})
	if strings.Contains(res.Output, "OPENAI_API_KEY=") || strings.Contains(res.Output, "AGENT_TEST_ALIAS=") {
		t.Errorf("the command saw the secret's variables:\n%s", res.Output)
	}
	if strings.Contains(res.Output, testSecret) || strings.Contains(res.RawOutput, testSecret) {
		t.Errorf("the secret is in the result:\n%s", res.Output)
	}
	if !strings.Contains(res.Output, "v= a=\n[redacted]\n") {
		t.Errorf("Output = %q", res.Output)
	}
}

func TestBashSavedOutputIsRedacted(t *testing.T) {
	env := newEnv(t)
	env.Secrets = []string{testSecret}
	writeFiles(t, env.Dir, map[string]string{"k": testSecret + "\n"})
	res := call(t, env, "bash", map[string]any{"command": `k=$(cat k); for i in $(seq 1 20000); do echo "line $i $k"; done`})
	if res.FullOutputPath == "" {
		t.Fatalf("no saved output: %s", res.Output)
	}
	data, err := os.ReadFile(res.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), testSecret) || strings.Count(string(data), "[redacted]") != 20000 {
		t.Errorf("saved output holds the secret or lost lines (%d redactions)", strings.Count(string(data), "[redacted]"))
	}
}

func TestRegistryRedactsOtherTools(t *testing.T) {
	env := newEnv(t)
	env.Secrets = []string{testSecret}
	writeFiles(t, env.Dir, map[string]string{"k": "key=" + testSecret + "\n"})
	res := call(t, env, "read", map[string]any{"path": "k"})
	if strings.Contains(res.Output, testSecret) || !strings.Contains(res.Output, "key=[redacted]") {
		t.Errorf("read Output = %q", res.Output)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "k")); err != nil {
		t.Fatal(err)
	}
}
