package loop

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/plan"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/skills"
)

const greetSkill = `---
name: greet
description: Greets people in their language. Use when asked to greet.
allowed-tools: Write, Bash
---
SECRET-BODY: write greeting.txt with "hello", then run scripts/greet.sh.
`

// skillsHarness is a harness whose session has the user skills written
// into a skills dir of its own.
func skillsHarness(t *testing.T, extra harnessOpt, steps ...pt.Step) (*harness, string) {
	t.Helper()
	userDir := t.TempDir()
	dir := filepath.Join(userDir, "greet")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(greetSkill), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, func(o *Options, c *config.Config) {
		o.Skills = NewSkills(skills.NewCatalog(skills.Roots{UserDir: userDir}, nil))
		if extra != nil {
			extra(o, c)
		}
	}, steps...)
	return h, dir
}

func systemPart(msgs []openai.ChatCompletionMessage) []string {
	var out []string
	for _, m := range msgs[:systemMessages(msgs)] {
		out = append(out, m.Content)
	}
	return out
}

// TestSkillsListedInSystemPartAndLoadedByTool: the first request's system
// part lists the skill by name, description and folder, not its body; the
// skill tool returns the body with the folder; the system part is the same
// bytes at every step; /context has a skills row.
func TestSkillsListedInSystemPartAndLoadedByTool(t *testing.T) {
	h, dir := skillsHarness(t, nil,
		pt.ToolCall("s1", skills.ToolName, `{"name":"greet"}`),
		pt.Text("Greeted."),
		pt.Text("Again."),
	)
	if res := h.turn("greet me"); res.Err != nil {
		t.Fatal(res.Err)
	}
	first := systemPart(h.request(0))
	list := first[len(first)-1]
	if !strings.HasPrefix(list, skills.PromptHeader) || !strings.Contains(list, "- greet (") ||
		!strings.Contains(list, "Greets people in their language.") || strings.Contains(strings.Join(first, "\n"), "SECRET-BODY") {
		t.Fatalf("system part:\n%s", strings.Join(first, "\n---\n"))
	}
	if !slices.ContainsFunc(h.srv.Requests()[0].Chat.Tools, func(tl openai.Tool) bool { return tl.Function.Name == skills.ToolName }) {
		t.Error("the skill tool is not offered")
	}
	second := h.request(1)
	if !slices.Equal(systemPart(second), first) {
		t.Error("the system part changed between the steps of a turn")
	}
	result := second[len(second)-1]
	if result.Role != openai.ChatMessageRoleTool || !strings.Contains(result.Content, "SECRET-BODY") || !strings.Contains(result.Content, dir) {
		t.Errorf("the skill tool's result: %q", result.Content)
	}
	if res := h.turn("again"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if !slices.Equal(systemPart(h.request(2)), first) {
		t.Error("the system part changed at the next turn, the skills unchanged")
	}
	if row := h.r.Reading().Breakdown.PromptLines; row.Skills != SkillsTokens(list) || row.Skills == 0 {
		t.Errorf("skills row = %d, want %d", row.Skills, SkillsTokens(list))
	}
}

// TestSkillGrantsNothingPlanModeForbids: a skill whose front matter allows
// Write and Bash, loaded in plan mode, gets no write: the mode still
// refuses it, and the body says allowed-tools grants nothing.
func TestSkillGrantsNothingPlanModeForbids(t *testing.T) {
	h, _ := skillsHarness(t, func(o *Options, _ *config.Config) { o.Mode = plan.New(true, nil) },
		pt.ToolCall("s1", skills.ToolName, `{"name":"greet"}`),
		pt.ToolCall("w1", "write", `{"path":"greeting.txt","content":"hello"}`),
		pt.Text("1. Greet."),
	)
	if res := h.turn("greet me"); res.Err != nil {
		t.Fatal(res.Err)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "greeting.txt")); !os.IsNotExist(err) {
		t.Fatalf("the skill's write ran in plan mode: %v", err)
	}
	loaded := h.request(1)
	if got := loaded[len(loaded)-1].Content; !strings.Contains(got, "SECRET-BODY") || !strings.Contains(got, "grant nothing") {
		t.Errorf("the skill in plan mode: %q", got)
	}
}

// TestSkillsListSurvivesCompaction: the list is part of the system
// prompt, which a compaction leaves as it was; a body loaded before it is
// summarised away, and the model loads it again.
func TestSkillsListSurvivesCompaction(t *testing.T) {
	h, _ := skillsHarness(t, nil,
		pt.ToolCall("s1", skills.ToolName, `{"name":"greet"}`),
		pt.Text(long("greeted", 3)),
	)
	if res := h.turn("greet me"); res.Err != nil {
		t.Fatal(res.Err)
	}
	for _, q := range []string{"second", "third"} {
		h.srv.Add(pt.Text(long(q, 3)))
		if res := h.turn(q); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	before := systemPart(h.request(0))
	h.srv.Add(pt.Text(summaryText))
	if err := h.r.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	h.srv.Add(pt.ToolCall("s2", skills.ToolName, `{"name":"greet"}`), pt.Text("again"))
	if res := h.turn("greet me again"); res.Err != nil {
		t.Fatal(res.Err)
	}
	n := len(h.srv.Requests())
	after := h.request(n - 2)
	if !slices.Equal(systemPart(after), before) {
		t.Errorf("the system part changed with the compaction")
	}
	for _, m := range after[systemMessages(after):] {
		if strings.Contains(m.Content, "SECRET-BODY") {
			t.Fatalf("the body loaded before the compaction is still sent: %.80q", m.Content)
		}
	}
	reloaded := h.request(n - 1)
	if got := reloaded[len(reloaded)-1].Content; !strings.Contains(got, "SECRET-BODY") {
		t.Errorf("reloaded: %q", got)
	}
}
