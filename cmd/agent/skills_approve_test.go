package main

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/skills"
)

// `agent skills approve` with no name approves the project's skills that
// wait, and says nothing of those approved already.
func TestApproveSkillsWithoutNamesTakesOnlyTheWaiting(t *testing.T) {
	set := skills.Set{Skills: []skills.Skill{
		{Name: "done", Source: skills.SourceProject, Dir: "/p/.claude/skills/done", Path: "/p/.claude/skills/done/SKILL.md", Approved: true, Digest: "d1"},
		{Name: "new", Source: skills.SourceProject, Dir: "/p/.claude/skills/new", Path: "/p/.claude/skills/new/SKILL.md", Digest: "d2"},
	}}
	var out strings.Builder
	if err := approveSkills(&out, set, approval.Open(t.TempDir()), nil); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Contains(got, "done") || !strings.Contains(got, "approved the skill new") {
		t.Errorf("output = %q, want only the waiting skill approved", got)
	}
	out.Reset()
	set.Skills[1].Approved = true
	if err := approveSkills(&out, set, approval.Open(t.TempDir()), nil); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "no project skills to approve\n" {
		t.Errorf("all approved: output = %q", got)
	}
}
