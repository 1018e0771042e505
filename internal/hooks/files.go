package hooks

// files.go: the repository files a hook runs. A hook such as
// `./scripts/check.sh` or `python tools/lint.py` runs whatever the file
// says when the hook fires, so a write to that file is code execution:
// with `write: allow` and `bash: deny` the model would get a shell by
// writing the script and waiting for the event. RepositoryFiles finds
// those files so that a write to one always asks (tools.Env.CodeFiles) and
// `agent hooks list` says so. It reads the command statically, never runs
// any of it: a word counts when, expanded as sh would (the project-dir
// variables, ~, quotes; a command substitution or an unknown variable
// leaves the word out), it names a path inside the session's directory
// that is not a directory and looks like a file — it has a slash, a
// script's extension, or exists (a word inside a command substitution
// too: what it prints becomes the command). A `sh -c '…'` argument is read
// the same way; a cd in the command is not followed. A build tool (make, npm test) reads its own files, which are not
// found here: see README "Hooks".

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// scriptExts are extensions that make a word without a slash a file
// (`python lint.py` before lint.py exists).
var scriptExts = []string{".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".lua", ".ps1"}

// shells are commands whose -c argument is a command line.
var shells = []string{"sh", "bash", "zsh", "dash", "ksh"}

// RepositoryFiles returns the files inside dir (absolute, clean, in the
// order found, each once) that command, run as a hook in dir, names.
func RepositoryFiles(command, dir string) []string {
	dir = filepath.Clean(dir)
	cfg := &expand.Config{Env: expand.ListEnviron("HOME="+os.Getenv("HOME"), "AGENT_PROJECT_DIR="+dir, "CLAUDE_PROJECT_DIR="+dir)}
	var files []string
	var walk func(command string, depth int)
	walk = func(command string, depth int) {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
		if err != nil || depth > 3 {
			return
		}
		syntax.Walk(f, func(node syntax.Node) bool {
			call, ok := node.(*syntax.CallExpr)
			if !ok {
				return true
			}
			var words []string
			for _, w := range call.Args {
				fields, err := expand.Fields(cfg, w)
				if err != nil || len(fields) != 1 {
					words = append(words, "")
					continue
				}
				words = append(words, fields[0])
			}
			for i, w := range words {
				if i > 0 && words[i-1] == "-c" && slices.Contains(shells, filepath.Base(words[0])) {
					walk(w, depth+1)
					continue
				}
				if p, ok := repositoryFile(w, dir); ok && !slices.Contains(files, p) {
					files = append(files, p)
				}
			}
			return true
		})
	}
	walk(command, 0)
	return files
}

// repositoryFile returns the file inside dir a command's word names.
func repositoryFile(word, dir string) (string, bool) {
	if word == "" || strings.HasPrefix(word, "-") {
		return "", false
	}
	p := word
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	if p == dir || !strings.HasPrefix(p, dir+string(filepath.Separator)) {
		return "", false
	}
	info, err := os.Stat(p)
	if err == nil && info.IsDir() {
		return "", false
	}
	looksLikeFile := err == nil || strings.Contains(word, "/") || slices.Contains(scriptExts, strings.ToLower(filepath.Ext(word)))
	return p, looksLikeFile
}

// RepositoryFiles returns the files inside dir that r's hooks run (see
// the function RepositoryFiles), each once; nil for a nil Runner.
func (r *Runner) RepositoryFiles(dir string) []string {
	var files []string
	for _, h := range r.Hooks() {
		for _, f := range RepositoryFiles(h.Command, dir) {
			if !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
	}
	return files
}

// buildTools run what the repository's own build files say (a Makefile,
// package.json's scripts, go generate, a Cargo build script...).
var buildTools = []string{"make", "gmake", "just", "npm", "npx", "yarn", "pnpm", "bun", "go", "cargo", "pytest", "tox", "nox",
	"gradle", "gradlew", "mvn", "mvnw", "rake", "bundle", "composer", "dotnet", "cmake", "ninja", "bazel", "task"}

// RunsBuild returns the build tool command runs (make, npm, go...), or
// "": the files that tool reads are ordinary files the model edits, so
// with bash denied such a hook still runs code the model wrote.
func RunsBuild(command string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return ""
	}
	found := ""
	syntax.Walk(f, func(node syntax.Node) bool {
		call, ok := node.(*syntax.CallExpr)
		if !ok || found != "" || len(call.Args) == 0 {
			return found == ""
		}
		if name := filepath.Base(call.Args[0].Lit()); slices.Contains(buildTools, name) {
			found = name
		}
		return true
	})
	return found
}
