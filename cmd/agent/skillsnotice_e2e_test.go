package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// TestE2ERunTellsOfUnapprovedSkills: `agent run` in text mode says on
// stderr, in one line, that the project's skills wait for approval and
// how to approve them; JSON mode's stderr stays quiet, and an approved
// skill is not told of.
func TestE2ERunTellsOfUnapprovedSkills(t *testing.T) {
	e := newEnv(t, pt.Text("hi"), pt.Text("hi"), pt.Text("hi"))
	writeFile(t, filepath.Join(e.work, ".claude", "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Greets.\n---\nSay hi.\n", 0o644)

	res := e.run("", "run", "hi")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	want := "agent: note: this project has 1 skill not yet approved (greet): it is not loaded, since its scripts would run; review it with agent skills list, approve with agent skills approve\n"
	if strings.Count(res.stderr, "not yet approved") != 1 || !strings.Contains(res.stderr, want) {
		t.Fatalf("stderr:\n%s\nwant the line %q", res.stderr, want)
	}
	if strings.Contains(res.stdout, "approved") {
		t.Errorf("the note reached stdout: %q", res.stdout)
	}
	if res := e.run("", "run", "--format", "json", "hi"); strings.Contains(res.stderr, "not yet approved") {
		t.Errorf("json mode's stderr: %s", res.stderr)
	}
	e.run("", "skills", "approve")
	if res := e.run("", "run", "hi"); res.code != 0 || strings.Contains(res.stderr, "not yet approved") {
		t.Errorf("after approval: exit %d %s", res.code, res.stderr)
	}
}

// TestE2EResumedSessionUsesSkillsAddedSince: a session continued with -c
// after a user's skill was added and a project's approved lists both and
// loads them with the skill tool; the list is a system message of its
// own after the others, whose bytes stay as they were.
func TestE2EResumedSessionUsesSkillsAddedSince(t *testing.T) {
	e := newEnv(t, pt.Text("no skills"),
		pt.ToolCall("s1", "skill", `{"name":"lint"}`), pt.ToolCall("s2", "skill", `{"name":"greet"}`), pt.Text("done"))
	writeFile(t, filepath.Join(e.work, ".claude", "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Greets the user.\n---\nSay hi warmly.\n", 0o644)
	if res := e.run("", "run", "hi"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	writeFile(t, filepath.Join(e.home, ".config", "agent", "skills", "lint", "SKILL.md"), "---\nname: lint\ndescription: Lints the code.\n---\nRun the linter twice.\n", 0o644)
	if res := e.run("", "skills", "approve", "greet"); res.code != 0 {
		t.Fatalf("approve: %s", res.stderr)
	}
	if res := e.run("", "run", "-c", "lint and greet"); res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	first, resumed := reqs[0].Chat.Messages, reqs[1].Chat.Messages
	if sys := systemText(reqs[0]); strings.Contains(sys, "Greets the user") {
		t.Fatalf("the unapproved skill was listed:\n%s", sys)
	}
	sys := systemText(reqs[1])
	if !strings.Contains(sys, "- lint") || !strings.Contains(sys, "Lints the code.") || !strings.Contains(sys, "- greet") {
		t.Fatalf("the resumed session does not list the skills added since:\n%s", sys)
	}
	// The stable system message is the same bytes; the list is a message
	// of its own after it.
	if first[0].Content != resumed[0].Content {
		t.Error("the first system message changed")
	}
	var systems []string
	for _, m := range resumed {
		if m.Role == openai.ChatMessageRoleSystem {
			systems = append(systems, m.Content)
		}
	}
	if last := systems[len(systems)-1]; !strings.Contains(last, "- lint") || strings.Contains(systems[0], "- lint") {
		t.Errorf("the skills list is not a system message of its own after the others: %q", systems)
	}
	tail := func(i int) string { m := reqs[i].Chat.Messages; return m[len(m)-1].Content }
	if !strings.Contains(tail(2), "Run the linter twice.") || !strings.Contains(tail(3), "Say hi warmly.") {
		t.Errorf("the skill tool did not load them: %q / %q", tail(2), tail(3))
	}
}
