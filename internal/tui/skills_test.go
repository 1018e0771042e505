package tui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/loop"
	pt "github.com/ctxloop/agent/internal/provider/providertest"
	"github.com/ctxloop/agent/internal/skills"
)

// TestSkillsDrawerListsAndApproves: /skills lists a project's skill as
// waiting for approval and a broken one with its reason; a approves the
// selected one, which the catalog then loads.
func TestSkillsDrawerListsAndApproves(t *testing.T) {
	project := t.TempDir()
	for name, text := range map[string]string{
		"deploy": "---\nname: deploy\ndescription: Deploys the app.\n---\nRun make deploy.\n",
		"zzbad":  "no front matter here\n",
	} {
		path := filepath.Join(project, ".claude", "skills", name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store := approval.Open(t.TempDir())
	cat := skills.NewCatalog(skills.Roots{Dir: project}, store)
	h := newHarness(t, []pt.Step{}, func(o *Options) {
		o.Loop.Skills = loop.NewSkills(cat)
		o.Approvals = store
	})
	h.typeText("/skills")
	h.key("enter")
	h.waitScreen("Skills (2)")
	h.waitScreen("deploy  project · not approved (a approves)")
	h.waitScreen("not loaded: no front matter")
	h.key("a")
	h.waitScreen("deploy  project · approved")
	if sk, _, _ := cat.Lookup("deploy"); !sk.Usable() {
		t.Fatalf("deploy after a: %+v", sk)
	}
}
