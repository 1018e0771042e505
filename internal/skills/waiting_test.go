package skills

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestWaitingNoticeNamesTheProjectSkillsToApprove: the start notice
// counts the project's skills that wait for approval (a broken one, a
// user's one and an approved one do not wait), names a few, and says
// where to review them; none waiting, no notice.
func TestWaitingNoticeNamesTheProjectSkillsToApprove(t *testing.T) {
	l := newLayout(t)
	write(t, filepath.Join(l.project, ".claude", "skills", "greet", "SKILL.md"), skillText("greet", "says hi"))
	write(t, filepath.Join(l.project, ".claude", "skills", "deploy", "SKILL.md"), skillText("deploy", "ships"))
	write(t, filepath.Join(l.project, ".claude", "skills", "broken", "SKILL.md"), "no front matter")
	write(t, filepath.Join(l.project, ".claude", "skills", "ok", "SKILL.md"), skillText("ok", "approved already"))
	write(t, filepath.Join(l.userDir, "mine", "SKILL.md"), skillText("mine", "the user's"))
	cat := l.catalog()
	ok, _ := cat.Load().Find("ok")
	must(t, l.store.Approve(ok.Dir, KindSkill, ok.Name, ok.Digest))

	got := WaitingNotice(cat.Load(), "/skills")
	want := "this project has 2 skills not yet approved (deploy, greet): they are not loaded, since their scripts would run; review them with /skills"
	if got != want {
		t.Fatalf("notice:\n got %q\nwant %q", got, want)
	}

	for _, n := range []string{"deploy", "greet"} {
		sk, _ := cat.Load().Find(n)
		must(t, l.store.Approve(sk.Dir, KindSkill, sk.Name, sk.Digest))
	}
	if got := WaitingNotice(cat.Load(), "/skills"); got != "" {
		t.Errorf("no skill waits, yet the notice is %q", got)
	}

	var many Set
	for i := range 9 {
		many.Skills = append(many.Skills, Skill{Name: fmt.Sprintf("s%d", i), Source: SourceProject})
	}
	if got := WaitingNotice(many, "x"); !strings.HasPrefix(got, "this project has 9 skills not yet approved (s0, s1, s2, s3, s4 and 4 more)") {
		t.Errorf("many: %q", got)
	}
	one := Set{Skills: []Skill{{Name: "greet", Source: SourceProject}}}
	if got := WaitingNotice(one, "x"); !strings.HasPrefix(got, "this project has 1 skill not yet approved (greet): it is not loaded, since its scripts would run") {
		t.Errorf("one: %q", got)
	}
}
