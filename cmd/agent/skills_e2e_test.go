package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// claudeCodeSkill is a skill as written for Claude Code, unchanged: its
// body runs a script in its folder.
const claudeCodeSkill = `---
name: hello
description: Says hello from the project. Use when the user asks for a greeting.
allowed-tools: Bash(bash scripts/hello.sh)
---

# Hello

Run the greeting script of this skill, ` + "`bash scripts/hello.sh`" + `, and repeat what it prints.
`

// writeFile writes text to path, making its directory.
func writeFile(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

func systemText(req pt.Request) string {
	var b strings.Builder
	for _, m := range req.Chat.Messages {
		if m.Role == openai.ChatMessageRoleSystem {
			b.WriteString(m.Content + "\n")
		}
	}
	return b.String()
}

// TestE2EClaudeCodeSkillWorksUnchanged: a project's Claude Code skill is
// listed by `agent skills list` as waiting for approval and kept out of
// the prompt; approved, the first request's system part lists its name
// and description only, the skill tool returns its body and folder, and
// its script runs through bash with the usual permission: denied headless
// without --yes, run with it.
func TestE2EClaudeCodeSkillWorksUnchanged(t *testing.T) {
	load := pt.ToolCall("s1", "skill", `{"name":"hello"}`)
	script := pt.ToolCall("b1", "bash", `{"command":"bash .claude/skills/hello/scripts/hello.sh"}`)
	e := newEnv(t,
		pt.Text("no skills yet"),
		load, script, pt.Text("The script said hello."),
		load, script, pt.Text("Denied."),
	)
	skillDir := filepath.Join(e.work, ".claude", "skills", "hello")
	writeFile(t, filepath.Join(skillDir, "SKILL.md"), claudeCodeSkill, 0o644)
	writeFile(t, filepath.Join(skillDir, "scripts", "hello.sh"), "echo hello from the skill script\n", 0o755)

	res := e.run("", "skills", "list", "--json")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var listed struct{ Skills []map[string]any }
	if err := json.Unmarshal([]byte(res.stdout), &listed); err != nil || len(listed.Skills) != 1 {
		t.Fatalf("%v: %s", err, res.stdout)
	}
	if s := listed.Skills[0]; s["name"] != "hello" || s["source"] != "project" || s["approved"] != false || s["size_bytes"] != float64(len(claudeCodeSkill)) {
		t.Errorf("listed %v", s)
	}
	if res := e.run("", "run", "hi"); res.code != 0 || strings.Contains(systemText(e.srv.Requests()[0]), "hello") {
		t.Fatalf("an unapproved project skill reached the prompt (exit %d %s)", res.code, res.stderr)
	}

	if res := e.run("", "skills", "approve"); res.code != 0 || !strings.Contains(res.stdout, "approved the skill hello") {
		t.Fatalf("approve: exit %d %q %q", res.code, res.stdout, res.stderr)
	}
	if res := e.run("", "run", "--yes", "greet me"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	reqs := e.srv.Requests()
	sys := systemText(reqs[1])
	if !strings.Contains(sys, "- hello (.claude/skills/hello): Says hello from the project. Use when the user asks for a greeting.") ||
		strings.Contains(sys, "greeting script of this skill") {
		t.Fatalf("the first request's system part:\n%s", sys)
	}
	loaded := reqs[2].Chat.Messages[len(reqs[2].Chat.Messages)-1].Content
	if !strings.Contains(loaded, "Run the greeting script of this skill") || !strings.Contains(loaded, skillDir) || !strings.Contains(loaded, "scripts/hello.sh") {
		t.Errorf("the skill tool returned %q", loaded)
	}
	if ran := reqs[3].Chat.Messages[len(reqs[3].Chat.Messages)-1].Content; !strings.Contains(ran, "hello from the skill script") {
		t.Errorf("the script's result: %q", ran)
	}

	if res := e.run("", "run", "greet me"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	reqs = e.srv.Requests()
	if denied := reqs[6].Chat.Messages[len(reqs[6].Chat.Messages)-1].Content; !strings.Contains(denied, "permission denied") || strings.Contains(denied, "hello from the skill script") {
		t.Errorf("without --yes the skill's script ran: %q", denied)
	}

	res = e.run("", "context", "-c", "--json")
	var ctxOut struct {
		Breakdown struct {
			PromptLines struct{ Skills int64 } `json:"prompt_lines"`
		}
	}
	if err := json.Unmarshal([]byte(res.stdout), &ctxOut); err != nil || ctxOut.Breakdown.PromptLines.Skills <= 0 {
		t.Errorf("agent context has no skills row: %v %s", err, res.stdout)
	}
}

// TestE2ESkillsListShowsBrokenAndClashes: a malformed skill is listed as
// broken with the reason; a user's skill wins a name over the project's,
// which is listed as shadowed; /name runs a skill like a custom command.
func TestE2ESkillsListShowsBrokenAndClashes(t *testing.T) {
	e := newEnv(t, pt.Text("done"))
	user := filepath.Join(e.home, ".claude", "skills")
	writeFile(t, filepath.Join(user, "hello", "SKILL.md"), "---\nname: hello\ndescription: the user's hello\n---\nSay hello the user's way.\n", 0o644)
	writeFile(t, filepath.Join(e.work, ".claude", "skills", "hello", "SKILL.md"), claudeCodeSkill, 0o644)
	writeFile(t, filepath.Join(e.work, ".agent", "skills", "bad", "SKILL.md"), "---\nname: bad\ndescription: [oops\n---\n", 0o644)

	res := e.run("", "skills", "list")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	for _, want := range []string{"project (shadowed by user)", "broken: bad is not loaded: front matter is not valid YAML", "the user's hello"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("no %q in:\n%s", want, res.stdout)
		}
	}
	if res := e.run("", "run", "/hello", "Ada"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if got := lastUser(e.srv.Requests()[0]); !strings.Contains(got, "Say hello the user's way.") || !strings.Contains(got, "ARGUMENTS: Ada") {
		t.Errorf("/hello sent %q", got)
	}
}
