package skills

// tool.go: the skill tool, skill{name}. It returns a usable skill's body
// with its folder and the files in it, read again at the call (an edited
// SKILL.md is what the model gets; a project's edited one is refused until
// approved again). It reads and runs nothing else: the model reads the
// references and runs the scripts through the usual tools, asked for or
// refused as always. The body is an ordinary tool result: pruning may
// clear it, and the model loads it again.

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxloop/agent/internal/termsafe"
	"github.com/ctxloop/agent/internal/tools"
)

// ToolName is the skill tool's name.
const ToolName = "skill"

// maxListedFiles bounds the files of a skill's folder the result names.
const maxListedFiles = 40

// Tool returns the skill tool over c.
func Tool(c *Catalog) tools.Tool { return skillTool{c: c} }

type skillTool struct{ c *Catalog }

func (skillTool) Name() string { return ToolName }

func (skillTool) Description() string {
	return "Load a skill listed in the system prompt by its name: returns its instructions and its folder. Load one when the task matches its description, then follow it; run its scripts and read its files with the usual tools (paths in it are relative to its folder)."
}

var toolParameters = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"the skill's name, as listed"}},"required":["name"]}`)

func (skillTool) Parameters() json.RawMessage { return toolParameters }

// ReadOnly: it reads one file the user has approved (or wrote).
func (skillTool) ReadOnly() bool { return true }

func (t skillTool) Run(_ context.Context, _ *tools.Env, call tools.Call) (tools.Result, error) {
	var in struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return failed("skill: bad input", "skill: the input is not {\"name\": …}: %v", err), nil
	}
	name := strings.ToLower(strings.TrimSpace(in.Name))
	sk, set, ok := t.c.Lookup(name)
	switch {
	case !ok:
		return failed("skill: "+oneLine(name, 64)+" unknown", "There is no skill named %q. The skills you can load: %s.", oneLine(name, 64), names(set)), nil
	case sk.Broken != "":
		return failed("skill: "+name+" broken", "The skill %s (%s) is broken and not loaded: %s.", name, sk.Path, sk.Broken), nil
	case !sk.Approved:
		return failed("skill: "+name+" not approved", "The project's skill %s is not approved by the user, so it is not loaded. The user can read it and approve it with `agent skills approve %s` (or in /skills); do without it meanwhile.", name, name), nil
	case sk.ModelHidden:
		return failed("skill: "+name+" is the user's to invoke", "The skill %s is for the user to invoke (/%s), not for you to load (disable-model-invocation).", name, name), nil
	}
	return tools.Result{Title: "skill: " + name, Output: Loaded(sk),
		Metadata: map[string]any{"skill": name, "dir": sk.Dir, "source": sk.Source}}, nil
}

// Loaded is a skill's text as the model gets it: its folder, the files
// in it, what allowed-tools means here, and the body.
func Loaded(sk Skill) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Skill %s, from the folder %s (paths in it are relative to that folder).\n", sk.Name, termsafe.Strip(sk.Dir))
	if files := listFiles(sk.Dir); len(files) > 0 {
		fmt.Fprintf(&b, "Its files: %s.\n", strings.Join(files, ", "))
	}
	if len(sk.AllowedTools) > 0 {
		fmt.Fprintf(&b, "Its allowed-tools (%s) grant nothing here: each call is allowed, asked for or refused by the session's permissions and mode as usual.\n", strings.Join(sk.AllowedTools, ", "))
	}
	b.WriteString("\n")
	b.WriteString(strings.TrimSpace(sk.body))
	return b.String()
}

// listFiles names the files of a skill's folder (SKILL.md left out), two
// levels deep, maxListedFiles at most; links are not followed.
func listFiles(dir string) []string {
	var out []string
	more := 0
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if strings.HasPrefix(d.Name(), ".") || strings.Count(filepath.ToSlash(rel), "/") > 2 {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || rel == "SKILL.md" {
			return nil
		}
		if len(out) == maxListedFiles {
			more++
			return nil
		}
		out = append(out, oneLine(filepath.ToSlash(rel), 200))
		return nil
	})
	sort.Strings(out)
	if more > 0 {
		out = append(out, fmt.Sprintf("… %d more", more))
	}
	return out
}

// names lists the skills the model may load.
func names(set Set) string {
	var out []string
	for _, sk := range set.Usable() {
		if !sk.ModelHidden {
			out = append(out, sk.Name)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

func failed(title, format string, args ...any) tools.Result {
	return tools.Result{Title: title, Output: fmt.Sprintf(format, args...), IsError: true}
}
