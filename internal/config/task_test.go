package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTaskConfig: subagents default to the read-only tools, the user file
// may widen them and pick a model and a step limit, a project file cannot
// set any of it, and a subagent can never be given task itself.
func TestTaskConfig(t *testing.T) {
	d, err := Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Task.Tools, []string{"read", "grep", "glob", "ls"}) || d.Task.Model != "" || d.Task.MaxSteps != DefaultTaskMaxSteps ||
		d.Task.MaxParallel != 4 {
		t.Errorf("default task = %+v", d.Task)
	}

	home := t.TempDir()
	writeJSON(t, filepath.Join(home, ".config", "agent", "config.json"),
		`{"task": {"tools": ["read", "grep", "bash", "web_fetch"], "model": "gpt-4.1-mini", "max_steps": 12, "max_parallel": 2}}`)
	u, err := Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(u.Task.Tools, []string{"read", "grep", "bash", "web_fetch"}) || u.Task.Model != "gpt-4.1-mini" || u.Task.MaxSteps != 12 || u.Task.MaxParallel != 2 {
		t.Errorf("user task = %+v", u.Task)
	}

	repo := filepath.Join(t.TempDir(), "repo")
	writeJSON(t, filepath.Join(repo, ".agent", "config.json"), `{"task": {"tools": ["bash", "write"]}}`)
	p, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Task.Tools, DefaultTaskTools) {
		t.Errorf("a project file widened the subagent's tools: %v", p.Task.Tools)
	}
	if w := strings.Join(p.Warnings, "\n"); !strings.Contains(w, "task is ignored in a project file") {
		t.Errorf("no warning about the project's task: %q", p.Warnings)
	}

	for body, want := range map[string]string{
		`{"task": {"tools": ["read", "task"]}}`: "cannot start subagents",
		`{"task": {"tools": ["rm"]}}`:           `unknown tool "rm"`,
		`{"task": {"max_steps": 0}}`:            "task.max_steps 0",
		`{"task": {"max_parallel": 0}}`:         "task.max_parallel 0",
	} {
		h := t.TempDir()
		writeJSON(t, filepath.Join(h, ".config", "agent", "config.json"), body)
		if _, err := Load(Flags{}, t.TempDir(), envOf(map[string]string{"HOME": h})); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want one saying %q", body, err, want)
		}
	}
}
