package tools

// codepaths.go: writes that become code. Some files are not data but
// commands that run on the user's next action — a git hook on the next
// commit, an .envrc on the next cd, an editor task on opening the folder,
// the agent's own project configuration and hooks on the next session.
// With `write: allow` and `bash: deny` a model must not be able to run a
// command by writing one of them, so a write or edit to such a file always
// asks (Request.RunsCode), whatever the tool's mode, is never granted for
// the session, and the question says what would run it (the entry's
// reason). --yes approves it like any question; headless without --yes it
// is denied.
//
// Which files: the table codePaths, the directory the repository's
// core.hooksPath names (read from the git configuration files by
// gitcmd.CachedHooksPath, never by running git; read again when a file it
// depends on changes), and Env.CodeFiles (what the
// configured hooks run). A path matches as the model wrote it (made
// absolute and clean: ".." removed) and as it really leads (every symlink
// followed, dangling ones included), in any letter case (a
// case-insensitive file system opens .ENVRC for .envrc; on a
// case-sensitive one the extra question is harmless). Inside the session's
// directory only the components below it count, as for .git.
//
// Left out on purpose, because editing them is the job or nothing runs
// them by itself: build files (Makefile, package.json, go.mod: the user
// runs the build knowing the model edits it), CI workflows (they run on a
// push, elsewhere), .vscode/launch.json (runs only when the user starts a
// debugger), .env (variables, not a script), .gitattributes (a filter runs
// only if the configuration, itself under .git, defines it), .gitmodules
// (git ignores "!command" updates from it). bash is not handled here: it
// asks unless the user allowed or granted it, and what it writes is its
// own business.

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ctxloop/agent/internal/gitcmd"
)

// codePath is one kind of file that runs as code.
type codePath struct {
	// pattern is matched case-insensitively against a path's components,
	// each with path.Match: "a/b" matches when the path's last components
	// are a and b; "a/**" matches anything below a component a, at any
	// depth.
	pattern string
	// reason completes "<path> …, so a change to it always asks": what
	// runs the file, and when. The permission dialog and the headless
	// denial show it.
	reason string
}

const (
	gitReason          = "is in a .git directory: git's configuration and hooks can make git run commands"
	devcontainerReason = "is a dev container configuration: its initializeCommand runs on your machine when the container is built or opened"
	lefthookReason     = "is lefthook's configuration: its commands run as git hooks on commit and push"
	claudeReason       = "is Claude Code's project settings: its hooks are commands Claude Code runs"
)

// codePaths are the files that run as code on the user's next action,
// with why.
var codePaths = []codePath{
	{".git", "is a .git file: it names the repository, whose configuration and hooks git runs"},
	{".git/**", gitReason},
	{".githooks/**", "is in .githooks, the usual core.hooksPath: git runs these hooks on commit, checkout, merge and push"},
	{".husky/**", "is in .husky: husky makes git run these as hooks on commit and push"},
	{".pre-commit-config.yaml", "is pre-commit's configuration: its hooks are commands git runs on every commit"},
	{"lefthook.*", lefthookReason},
	{".lefthook.*", lefthookReason},
	{"lefthook-local.*", lefthookReason},
	{".lefthook-local.*", lefthookReason},
	{".envrc", "is a direnv .envrc: a shell script run when a shell enters its directory"},
	{".vscode/tasks.json", "is a VS Code tasks file: a task can run by itself when the folder is opened (runOn: folderOpen)"},
	{".vscode/settings.json", "is VS Code's workspace settings: some settings name programs the editor runs (terminal profiles, interpreters, linters, git.path)"},
	{"*.code-workspace", "is a VS Code workspace: its settings and tasks run when it is opened"},
	{".idea/**", "is in .idea, JetBrains' project settings: run configurations and startup tasks run when the project is opened"},
	{".devcontainer/**", devcontainerReason},
	{".devcontainer.json", devcontainerReason},
	{".agent/config.json", "is the agent's project configuration: it declares MCP servers and hooks, commands the agent runs"},
	{".agent/hooks/**", "is in .agent/hooks, where project hooks' scripts live: the agent runs them at points of a session"},
	{".claude/settings.json", claudeReason},
	{".claude/settings.local.json", claudeReason},
}

// hookFileReason is the reason of a file in Env.CodeFiles.
const hookFileReason = "is a file a configured hook runs: a change to it is code the agent runs (see `agent hooks list`)"

// codeFile reports why a write to a file runs as code, or returns "".
// lexical is the path as written (absolute, clean), resolved where it
// leads ("" when it cannot be resolved). gitDir says the reason is a .git
// directory's.
func codeFile(env *Env, lexical, resolved string) (reason string, gitDir bool) {
	dir := resolvePath(env.Dir)
	for _, c := range []struct{ base, p string }{{env.Dir, lexical}, {dir, resolved}} {
		if c.p == "" {
			continue
		}
		if cp, ok := matchCodePath(c.base, c.p); ok {
			return cp.reason, cp.reason == gitReason || cp.pattern == ".git"
		}
	}
	for _, f := range env.CodeFiles {
		f = absPath(env.Dir, f)
		if strings.EqualFold(f, lexical) || resolved != "" && strings.EqualFold(resolvePath(f), resolved) {
			return hookFileReason, false
		}
	}
	if hooks, ok := gitcmd.CachedHooksPath(env.Dir, os.Environ()); ok && hooks != "" {
		if inHooksDir(env, hooks, lexical) || resolved != "" && inHooksDir(env, resolvePath(hooks), resolved) {
			return fmt.Sprintf("is in this repository's git hooks directory (core.hooksPath = %s): git runs these hooks on commit, checkout, merge and push", hooks), false
		}
	}
	return "", false
}

// inHooksDir reports whether p is in the hooks directory hooks. Anything
// in a directory of hooks counts (a hook may source its neighbours); but
// when that directory holds the session's directory (core.hooksPath = .),
// only a file directly in it with a hook's name does.
func inHooksDir(env *Env, hooks, p string) bool {
	if !withinFold(hooks, p) {
		return false
	}
	if !withinFold(hooks, env.Dir) && !withinFold(hooks, resolvePath(env.Dir)) {
		return true
	}
	return strings.EqualFold(filepath.Dir(p), hooks) && gitHookNames()[strings.ToLower(filepath.Base(p))]
}

// gitHookNames are the hooks git runs (githooks(5)).
var gitHookNames = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"applypatch-msg": true, "pre-applypatch": true, "post-applypatch": true, "pre-commit": true, "pre-merge-commit": true,
		"prepare-commit-msg": true, "commit-msg": true, "post-commit": true, "pre-rebase": true, "post-checkout": true,
		"post-merge": true, "pre-push": true, "pre-receive": true, "update": true, "proc-receive": true, "post-receive": true,
		"post-update": true, "reference-transaction": true, "push-to-checkout": true, "pre-auto-gc": true, "post-rewrite": true,
		"sendemail-validate": true, "fsmonitor-watchman": true, "p4-changelist": true, "p4-prepare-changelist": true,
		"p4-post-changelist": true, "p4-pre-submit": true, "post-index-change": true,
	}
})

// matchCodePath returns the entry of codePaths p matches, looking only at
// its components below base when it is inside base.
func matchCodePath(base, p string) (codePath, bool) {
	if within(base, p) {
		p, _ = filepath.Rel(base, p)
	}
	parts := strings.Split(strings.ToLower(filepath.ToSlash(p)), "/")
	for _, cp := range codePaths {
		if matchComponents(strings.Split(cp.pattern, "/"), parts) {
			return cp, true
		}
	}
	return codePath{}, false
}

// matchComponents matches a pattern's components (lower case) against a
// path's (see codePath.pattern).
func matchComponents(pat, parts []string) bool {
	if pat[len(pat)-1] == "**" {
		pat = pat[:len(pat)-1]
		for i := 0; i+len(pat) < len(parts); i++ { // something below is needed
			if matchAt(pat, parts[i:]) {
				return true
			}
		}
		return false
	}
	return len(parts) >= len(pat) && matchAt(pat, parts[len(parts)-len(pat):])
}

// matchAt reports whether parts begins with components matching pat.
func matchAt(pat, parts []string) bool {
	for i, p := range pat {
		if ok, _ := path.Match(p, parts[i]); !ok {
			return false
		}
	}
	return true
}

// withinFold is within in any letter case.
func withinFold(dir, p string) bool {
	return within(strings.ToLower(dir), strings.ToLower(p))
}
