package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/commands"
	"github.com/ctxloop/agent/internal/tools"
)

// claudeSkill is a skill as written for Claude Code.
const claudeSkill = `---
name: hello
description: Greets the user by running the greeting script. Use when asked to say hello.
allowed-tools: Bash(bash scripts/hello.sh:*), Read
---

# Hello

Run ` + "`bash scripts/hello.sh`" + ` from this skill's folder and show its output.
`

// layout is a home, a project inside it and the user's skills dir.
type layout struct {
	home, project, userDir string
	store                  *approval.Store
}

func newLayout(t *testing.T) layout {
	t.Helper()
	root := t.TempDir()
	l := layout{home: filepath.Join(root, "home"), userDir: filepath.Join(root, "config", "agent", "skills")}
	l.project = filepath.Join(l.home, "src", "repo")
	must(t, os.MkdirAll(filepath.Join(l.project, "sub"), 0o755))
	l.store = approval.Open(filepath.Join(root, "data"))
	return l
}

func (l layout) catalog() *Catalog {
	return NewCatalog(Roots{Dir: filepath.Join(l.project, "sub"), Home: l.home, UserDir: l.userDir}, l.store)
}

func write(t *testing.T, path, text string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, []byte(text), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func skillText(name, desc string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\nBody of %s.\n", name, desc, name)
}

func TestParseSkill(t *testing.T) {
	cases := []struct {
		name, text, broken string
		tools              []string
	}{
		{"claude", claudeSkill, "", []string{"Bash(bash scripts/hello.sh:*)", "Read"}},
		{"list tools", "---\nname: a\ndescription: d\nallowed-tools: [Read, Grep]\n---\nx", "", []string{"Read", "Grep"}},
		{"other keys ignored", "---\nname: a\ndescription: d\nmetadata: v1\nmodel: sonnet\n---\nx", "", nil},
		{"crlf and bom", "\ufeff---\r\nname: a\r\ndescription: d\r\n---\r\nx", "", nil},
		{"no front matter", "# Hello\n", "no front matter", nil},
		{"unclosed", "---\nname: a\ndescription: d\n", "not closed", nil},
		{"bad yaml", "---\nname: [a\ndescription: d\n---\n", "not valid YAML", nil},
		{"no description", "---\nname: a\n---\nbody", "no description", nil},
		{"bad name", "---\nname: Hello World\ndescription: d\n---\n", "not a skill name", nil},
		{"tools not names", "---\nname: a\ndescription: d\nallowed-tools: {x: 1}\n---\n", "allowed-tools", nil},
		{"binary", "---\nname: a\x00\n---\n", "not UTF-8", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := parseSkill([]byte(c.text), "folder")
			if c.broken == "" && p.broken != "" || !strings.Contains(p.broken, c.broken) {
				t.Fatalf("broken = %q, want %q", p.broken, c.broken)
			}
			if c.broken == "" && strings.Join(p.tools, "|") != strings.Join(c.tools, "|") {
				t.Errorf("tools = %q, want %q", p.tools, c.tools)
			}
		})
	}
	if p := parseSkill([]byte("---\ndescription: \"d\\x1b[31m red\\nsecond\"\n---\n"), "my-skill"); p.fm.Name != "my-skill" || p.fm.Description != "d[31m red second" {
		t.Errorf("name %q (the folder stands for a missing one), description %q (one line, escapes removed)", p.fm.Name, p.fm.Description)
	}
}

func TestCatalogUserWinsAndProjectNeedsApproval(t *testing.T) {
	l := newLayout(t)
	write(t, filepath.Join(l.project, ".claude", "skills", "hello", "SKILL.md"), claudeSkill)
	write(t, filepath.Join(l.project, ".agents", "skills", "deploy", "SKILL.md"), skillText("deploy", "project deploy"))
	write(t, filepath.Join(l.userDir, "deploy", "SKILL.md"), skillText("deploy", "my deploy"))
	cat := l.catalog()

	set := cat.Load()
	hello, ok := set.Find("hello")
	if !ok || hello.Source != SourceProject || hello.Approved || hello.Usable() || hello.Broken != "" {
		t.Fatalf("hello = %+v, want a project skill listed, not approved", hello)
	}
	if got := Prompt(set, filepath.Join(l.project, "sub"), l.home, PromptBudgetChars); strings.Contains(got, "hello") {
		t.Errorf("an unapproved project skill is in the prompt:\n%s", got)
	}
	deploy, _ := set.Find("deploy")
	if deploy.Source != SourceUser || deploy.Description != "my deploy" || !deploy.Usable() {
		t.Errorf("deploy = %+v, want the user's", deploy)
	}
	if len(set.Shadowed) != 1 || set.Shadowed[0].Source != SourceProject || set.Shadowed[0].ShadowedBy != deploy.Path {
		t.Errorf("shadowed = %+v, want the project's deploy, shadowed by the user's", set.Shadowed)
	}

	must(t, l.store.Approve(hello.Dir, KindSkill, hello.Name, hello.Digest))
	if hello, _ = cat.Load().Find("hello"); !hello.Usable() {
		t.Fatalf("approved hello = %+v, want usable", hello)
	}
	// An edit needs approving again.
	write(t, hello.Path, strings.Replace(claudeSkill, "Greets", "Greets warmly", 1))
	if hello, _ = cat.Load().Find("hello"); hello.Usable() {
		t.Errorf("an edited project skill is still approved")
	}
}

func TestCatalogRefusesHostileFiles(t *testing.T) {
	l := newLayout(t)
	outside := filepath.Join(l.home, "secret")
	write(t, filepath.Join(outside, "SKILL.md"), skillText("leak", "reads your secrets"))
	skills := filepath.Join(l.project, ".agent", "skills")
	must(t, os.MkdirAll(skills, 0o755))
	must(t, os.Symlink(outside, filepath.Join(skills, "leak")))                                                         // a folder linked out
	must(t, os.MkdirAll(filepath.Join(skills, "file-link"), 0o755))                                                     //
	must(t, os.Symlink(filepath.Join(outside, "SKILL.md"), filepath.Join(skills, "file-link", "SKILL.md")))             // a file linked out
	must(t, os.MkdirAll(filepath.Join(skills, "fifo"), 0o755))                                                          //
	must(t, syscall.Mkfifo(filepath.Join(skills, "fifo", "SKILL.md"), 0o644))                                           // would block a plain read
	write(t, filepath.Join(skills, "huge", "SKILL.md"), skillText("huge", "big")+strings.Repeat("x", MaxFileBytes))     //
	write(t, filepath.Join(skills, "bad-yaml", "SKILL.md"), "---\nname: bad-yaml\ndescription: [unclosed\n---\nbody\n") //
	write(t, filepath.Join(skills, "ok", "SKILL.md"), skillText("ok", "fine"))

	set := l.catalog().Load()
	want := map[string]string{
		"leak":      "leads outside the project",
		"file-link": "leads outside the project",
		"fifo":      "not a regular file",
		"huge":      "over the 256 KB limit",
		"bad-yaml":  "not valid YAML",
	}
	for name, reason := range want {
		sk, ok := set.Find(name)
		if !ok || !strings.Contains(sk.Broken, reason) {
			t.Errorf("%s = %+v, want broken: %s", name, sk, reason)
		}
		if sk.Body() != "" || sk.Usable() {
			t.Errorf("%s is loaded: %q", name, sk.Body())
		}
	}
	if ok, _ := set.Find("ok"); ok.Broken != "" {
		t.Errorf("ok = %+v", ok)
	}
}

func TestPromptListsNameDescriptionAndFolderWithinBudget(t *testing.T) {
	l := newLayout(t)
	write(t, filepath.Join(l.userDir, "short", "SKILL.md"), skillText("short", "A short one."))
	long := strings.Repeat("very long description ", 40)
	write(t, filepath.Join(l.userDir, "wordy", "SKILL.md"), skillText("wordy", long))
	set := l.catalog().Load()

	whole := Prompt(set, l.project, l.home, PromptBudgetChars)
	if !strings.HasPrefix(whole, PromptHeader) || !strings.Contains(whole, "- short (") || !strings.Contains(whole, "): A short one.") || strings.Contains(whole, "Body of") {
		t.Fatalf("prompt:\n%s", whole)
	}
	if got := Prompt(set, l.project, l.home, PromptBudgetChars); got != whole {
		t.Error("the list is not the same bytes twice")
	}
	small := Prompt(set, l.project, l.home, len(PromptHeader)+200)
	if !strings.Contains(small, "A short one.") || strings.Contains(small, strings.TrimSpace(long)) || !strings.Contains(small, "…") {
		t.Errorf("the longest description is not the one cut:\n%s", small)
	}
	tiny := Prompt(set, l.project, l.home, len(PromptHeader)+80)
	if !strings.Contains(tiny, "1 more skills not listed") {
		t.Errorf("a skill that does not fit is not counted:\n%s", tiny)
	}
}

func TestCapFor(t *testing.T) {
	cases := []struct {
		descs      []int
		room, want int
	}{
		{[]int{10, 20}, 30, -1},
		{[]int{10, 100}, 60, 50},
		{[]int{100, 100}, 100, 50},
		{[]int{5}, 0, 0},
	}
	for _, c := range cases {
		if got := capFor(c.descs, c.room); got != c.want {
			t.Errorf("capFor(%v, %d) = %d, want %d", c.descs, c.room, got, c.want)
		}
	}
}

func TestToolLoadsBodyWithFolder(t *testing.T) {
	l := newLayout(t)
	dir := filepath.Join(l.userDir, "hello")
	write(t, filepath.Join(dir, "SKILL.md"), claudeSkill)
	write(t, filepath.Join(dir, "scripts", "hello.sh"), "echo hello\n")
	write(t, filepath.Join(l.project, ".claude", "skills", "theirs", "SKILL.md"), skillText("theirs", "unapproved"))
	write(t, filepath.Join(l.userDir, "broken", "SKILL.md"), "no front matter")
	tool := Tool(l.catalog())
	run := func(name string) tools.Result {
		in, _ := json.Marshal(map[string]string{"name": name})
		res, err := tool.Run(context.Background(), &tools.Env{Dir: l.project}, tools.Call{Name: ToolName, Input: in})
		must(t, err)
		return res
	}
	res := run("hello")
	if res.IsError || !strings.Contains(res.Output, dir) || !strings.Contains(res.Output, "scripts/hello.sh") ||
		!strings.Contains(res.Output, "Run `bash scripts/hello.sh`") || strings.Contains(res.Output, "description:") ||
		!strings.Contains(res.Output, "grant nothing") {
		t.Errorf("hello:\n%s", res.Output)
	}
	for name, want := range map[string]string{"theirs": "not approved", "broken": "broken", "nope": "no skill named"} {
		if res := run(name); !res.IsError || !strings.Contains(res.Output, want) {
			t.Errorf("%s: %+v, want an error saying %q", name, res, want)
		}
	}
}

func TestSkillsAsCommandsLoseToACommandOfTheSameName(t *testing.T) {
	l := newLayout(t)
	write(t, filepath.Join(l.userDir, "review", "SKILL.md"), skillText("review", "review skill"))
	write(t, filepath.Join(l.userDir, "hello", "SKILL.md"), claudeSkill)
	write(t, filepath.Join(l.userDir, "help", "SKILL.md"), skillText("help", "takes a built-in's name"))
	userCmds := filepath.Join(l.home, "cmds")
	write(t, filepath.Join(userCmds, "review.md"), "Review my code.")
	cat := commands.NewCatalog(commands.Roots{UserDir: userCmds, Skills: Commands(l.catalog())}, []string{"help"})
	set := cat.Load()
	hello, ok := set.Find("hello")
	if !ok || hello.Source != commands.SourceSkill || !strings.Contains(commands.Expand(hello.Body, "", nil), "Run `bash scripts/hello.sh`") {
		t.Fatalf("hello = %+v", hello)
	}
	review, _ := set.Find("review")
	if review.Source != commands.SourceUser || review.OverridesSource != commands.SourceSkill {
		t.Errorf("review = %+v, want the command, overriding the skill", review)
	}
	if len(set.Shadowed) != 1 || set.Shadowed[0].Source != commands.SourceSkill {
		t.Errorf("shadowed = %+v, want the review skill", set.Shadowed)
	}
	if _, ok := set.Find("help"); ok || !strings.Contains(strings.Join(set.Notices, "\n"), "/help is a built-in") {
		t.Errorf("a skill took a built-in's name: %v", set.Notices)
	}
}

func TestBrokenFolderNameIsSafeToPrint(t *testing.T) {
	l := newLayout(t)
	write(t, filepath.Join(l.userDir, "evil\x1b]0;pwned\x07", "SKILL.md"), "no front matter")
	set := l.catalog().Load()
	if len(set.Skills) != 1 || strings.ContainsAny(set.Skills[0].Name, "\x1b\x07") || set.Skills[0].Broken == "" {
		t.Fatalf("skills = %+v", set.Skills)
	}
}

// BenchmarkCatalogLoad is a turn's scan: 50 user skills, unchanged since
// the last scan (the cache answers), and none at all.
func BenchmarkCatalogLoad(b *testing.B) {
	for _, n := range []int{0, 50} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			root := b.TempDir()
			userDir := filepath.Join(root, "skills")
			for i := range n {
				path := filepath.Join(userDir, fmt.Sprintf("s%02d", i), "SKILL.md")
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(skillText(fmt.Sprintf("s%02d", i), strings.Repeat("describes ", 20))), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			cat := NewCatalog(Roots{Dir: filepath.Join(root, "project"), Home: root, UserDir: userDir}, nil)
			cat.Load()
			b.ResetTimer()
			for b.Loop() {
				set := cat.Load()
				_ = Prompt(set, root, root, PromptBudgetChars)
			}
		})
	}
}
