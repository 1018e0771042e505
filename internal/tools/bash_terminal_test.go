package tools

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ctxloop/agent/internal/sandbox"
)

// fakeTerminals is an editor whose terminal answers with a set outcome.
type fakeTerminals struct {
	fakeEditor
	out  TerminalOutcome
	mu   sync.Mutex
	runs []TerminalCommand
}

func (f *fakeTerminals) RunCommand(_ context.Context, cmd TerminalCommand) (TerminalOutcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs = append(f.runs, cmd)
	return f.out, nil
}

// TestBashInEditorTerminal: a foreground bash runs in the editor's
// terminal, and the model reads its output as bash's own: redacted,
// sanitised, head and tail within the limits, the whole saved; the
// command's environment empties the secret variables.
func TestBashInEditorTerminal(t *testing.T) {
	env := newEnv(t)
	env.Secrets = []string{"sk-terminal-secret-123456"}
	env.Limits.BashMaxOutputChars = 2000
	var long strings.Builder
	long.WriteString("first line sk-terminal-secret-123456 \x1b]52;c;aGk=\x07\n")
	for i := 0; i < 5000; i++ {
		long.WriteString("filler line of the command's output\n")
	}
	long.WriteString("last line\n")
	term := &fakeTerminals{fakeEditor: fakeEditor{buffers: map[string]string{}, told: map[string]string{}}, out: TerminalOutcome{Output: long.String(), ExitCode: 2}}
	env.Editor = term
	r := call(t, env, "bash", map[string]any{"command": "make noise"})
	if len(term.runs) != 1 || term.runs[0].Command != "make noise" || term.runs[0].Dir != env.Dir {
		t.Fatalf("runs %+v", term.runs)
	}
	if v, ok := term.runs[0].Env["OPENAI_API_KEY"]; !ok || v != "" || term.runs[0].Env["PAGER"] != "cat" {
		t.Errorf("env %v", term.runs[0].Env)
	}
	if !r.IsError || !strings.Contains(r.Output, "[exit code 2]") || !strings.Contains(r.Output, "first line") || !strings.Contains(r.Output, "last line") {
		t.Errorf("output: %.300q", r.Output)
	}
	if strings.Contains(r.Output, "sk-terminal-secret") || strings.Contains(r.Output, "\x1b") || len(r.Output) > 4000 || !r.Truncated {
		t.Errorf("output not redacted, sanitised and truncated (%d bytes): %.300q", len(r.Output), r.Output)
	}
	if saved, err := os.ReadFile(r.FullOutputPath); err != nil || !strings.Contains(string(saved), "last line") || strings.Contains(string(saved), "sk-terminal-secret") {
		t.Errorf("saved output %s: %v", r.FullOutputPath, err)
	}
	if r.Metadata["terminal"] != true {
		t.Errorf("metadata %v", r.Metadata)
	}

	// Background bash stays the agent's own.
	term.runs = nil
	call(t, env, "bash", map[string]any{"command": "true", "background": true})
	if len(term.runs) != 0 {
		t.Errorf("background bash ran in the editor's terminal: %+v", term.runs)
	}
}

// TestBashSandboxKeepsItsOwnProcess: with the sandbox on, bash runs
// confined in the agent, not in the editor's terminal.
func TestBashSandboxKeepsItsOwnProcess(t *testing.T) {
	env := sandboxEnv(t, sandbox.ModeWorkspaceWrite)
	term := &fakeTerminals{fakeEditor: fakeEditor{buffers: map[string]string{}, told: map[string]string{}}}
	env.Editor = term
	r := call(t, env, "bash", map[string]any{"command": "echo confined"})
	if len(term.runs) != 0 || !strings.Contains(r.Output, "confined") {
		t.Errorf("runs %+v, output %q", term.runs, r.Output)
	}
}
