package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestE2ETUITellsOfUnapprovedSkills: a chat started in a project whose
// skill waits for approval says so once, naming it and /skills; /skills
// then shows it waiting.
func TestE2ETUITellsOfUnapprovedSkills(t *testing.T) {
	e := newEnv(t)
	writeFile(t, filepath.Join(e.work, ".claude", "skills", "greet", "SKILL.md"), "---\nname: greet\ndescription: Greets.\n---\nSay hi.\n", 0o644)

	s := startTUI(t, e)
	screen := s.waitText("1 skill not yet approved (greet)")
	if n := strings.Count(screen, "not yet approved"); n != 1 {
		t.Fatalf("told %d times:\n%s", n, screen)
	}
	if !strings.Contains(strings.Join(strings.Fields(screen), " "), "review it with /skills") {
		t.Fatalf("the notice does not say where to review it:\n%s", screen)
	}
	s.send("/skills")
	s.waitText("not approved (a approves)")
}
