package skills

import (
	"strings"
	"testing"
)

// TestPromptListsEverySkillThatFits: skills whose descriptions all fit
// the budget are all listed, whole (on main only the first of them was,
// the rest counted "not listed here for room").
func TestPromptListsEverySkillThatFits(t *testing.T) {
	set := Set{Skills: []Skill{
		{Name: "greet", Description: "Greets.", Source: SourceUser, Approved: true, Dir: "/h/greet"},
		{Name: "lint", Description: "Lints.", Source: SourceUser, Approved: true, Dir: "/h/lint"},
		{Name: "ship", Description: "Ships.", Source: SourceUser, Approved: true, Dir: "/h/ship"},
	}}
	got := Prompt(set, "/p", "/h", PromptBudgetChars)
	for _, line := range []string{"- greet (~/greet): Greets.", "- lint (~/lint): Lints.", "- ship (~/ship): Ships."} {
		if !strings.Contains(got, line+"\n") && !strings.HasSuffix(got, line) {
			t.Errorf("%q is not listed:\n%s", line, got)
		}
	}
	if strings.Contains(got, "not listed") {
		t.Errorf("skills that fit were left out:\n%s", got)
	}
}
