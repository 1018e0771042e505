package skills

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProjectSkillsStopAtTheRepositoryRoot: a project's skills are looked
// for from the session's directory up to its repository's root, as
// AGENTS.md is — a skills folder above the repository (a parent folder of
// many checkouts, a shared /tmp) is not the project's; outside a
// repository and outside the home, the directory alone counts.
func TestProjectSkillsStopAtTheRepositoryRoot(t *testing.T) {
	l := newLayout(t)
	write(t, filepath.Join(l.home, "src", ".claude", "skills", "above", "SKILL.md"), skillText("above", "from above the repository"))
	must(t, os.MkdirAll(filepath.Join(l.project, ".git"), 0o755))
	if _, ok := l.catalog().Load().Find("above"); ok {
		t.Error("a skill above the repository's root is listed as the project's")
	}
	write(t, filepath.Join(l.project, ".agents", "skills", "inside", "SKILL.md"), skillText("inside", "the repository's own"))
	if _, ok := l.catalog().Load().Find("inside"); !ok {
		t.Error("the repository's own skill (below the session's directory's parents) is not listed")
	}

	shared := filepath.Join(t.TempDir(), "shared") // like /tmp, outside the home
	write(t, filepath.Join(shared, ".claude", "skills", "planted", "SKILL.md"), skillText("planted", "left by someone else"))
	work := filepath.Join(shared, "work")
	must(t, os.MkdirAll(work, 0o755))
	cat := NewCatalog(Roots{Dir: work, Home: l.home, UserDir: l.userDir}, l.store)
	if _, ok := cat.Load().Find("planted"); ok {
		t.Error("a skill in a parent of a directory outside the home and any repository is listed")
	}
	write(t, filepath.Join(work, ".claude", "skills", "own", "SKILL.md"), skillText("own", "the directory's own"))
	if _, ok := cat.Load().Find("own"); !ok {
		t.Error("the directory's own skill is not listed")
	}
}
