// Package verify decides whether a turn that changed files should get one
// more step asking the model to check its work before it says "done".
//
// The contract: a turn needs the check when a call of it changed files and
// no build or test command ran after the last such call (Needed). What
// counts as a build or test command is the rule table below (Ran), plus
// the user's own commands (config verify.commands), matched as a prefix of
// words of any part of a command line (parts split on &&, ||, ;, | and
// newlines; leading VAR=value assignments, `time`, `env` and `cd DIR`
// parts are skipped). The package is pure: no I/O, no clock.
package verify

import (
	"strings"
)

// Prompt is the synthetic user message of the check step. Its first line
// marks it, so a turn asks at most once (Needed sees it).
const Prompt = Marker + " You changed files in this turn and no build or test ran after the last change. " +
	"Verify the change now: run the project's tests or build (as AGENTS.md or the repository suggests, " +
	"e.g. go test ./..., make test, npm test, cargo test, pytest). If you cannot verify it, say why in one sentence. " +
	"Then give your final answer."

// Marker starts the check step's message.
const Marker = "[verify]"

// rules are the known build and test commands: each a prefix of words.
// A "*" word matches any one word (npm run test:unit).
var rules = [][]string{
	{"go", "test"}, {"go", "build"}, {"go", "vet"},
	{"make"}, // make with any target, or the default one, builds
	{"npm", "test"}, {"npm", "t"}, {"npm", "run", "test"}, {"npm", "run", "build"}, {"npm", "run", "check"},
	{"npm", "run", "lint"}, {"npm", "run", "typecheck"},
	{"pnpm", "test"}, {"pnpm", "run", "test"}, {"pnpm", "build"}, {"pnpm", "run", "build"},
	{"yarn", "test"}, {"yarn", "run", "test"}, {"yarn", "build"}, {"yarn", "run", "build"},
	{"bun", "test"}, {"bun", "run", "test"}, {"bun", "run", "build"},
	{"npx", "jest"}, {"npx", "vitest"}, {"npx", "tsc"}, {"tsc"}, {"jest"}, {"vitest"}, {"deno", "test"},
	{"cargo", "test"}, {"cargo", "build"}, {"cargo", "check"}, {"cargo", "nextest"}, {"cargo", "clippy"},
	{"pytest"}, {"py.test"}, {"tox"}, {"nox"},
	{"python", "-m", "pytest"}, {"python3", "-m", "pytest"}, {"python", "-m", "unittest"}, {"python3", "-m", "unittest"},
	{"uv", "run", "pytest"}, {"poetry", "run", "pytest"},
	{"mvn", "test"}, {"mvn", "verify"}, {"mvn", "package"}, {"mvn", "install"}, {"mvn", "compile"},
	{"./mvnw", "test"}, {"./mvnw", "verify"},
	{"gradle", "test"}, {"gradle", "build"}, {"gradle", "check"}, {"./gradlew", "test"}, {"./gradlew", "build"}, {"./gradlew", "check"},
	{"ctest"}, {"cmake", "--build"}, {"ninja"}, {"meson", "test"},
	{"dotnet", "test"}, {"dotnet", "build"},
	{"rspec"}, {"bundle", "exec", "rspec"}, {"rake", "test"}, {"bundle", "exec", "rake", "test"},
	{"mix", "test"}, {"swift", "test"}, {"swift", "build"}, {"zig", "build"}, {"phpunit"}, {"vendor/bin/phpunit"},
}

// Ran reports whether command (a shell command line) runs a build or test:
// one of its parts matches the rule table or one of own (the user's
// verify.commands, each a command prefix such as "./check.sh").
func Ran(command string, own []string) bool {
	for _, part := range parts(command) {
		words := strings.Fields(part)
		words = skipPrefix(words)
		if len(words) == 0 {
			continue
		}
		for _, r := range rules {
			if hasPrefix(words, r) {
				return true
			}
		}
		for _, o := range own {
			if ow := strings.Fields(o); len(ow) > 0 && hasPrefix(words, ow) {
				return true
			}
		}
	}
	return false
}

// parts splits a command line at its control operators. Quoting is not
// parsed: an operator inside quotes splits too, which can only find a
// rule that a real shell would not run as a command (harmless: the check
// is skipped).
func parts(command string) []string {
	r := strings.NewReplacer("&&", "\n", "||", "\n", ";", "\n", "|", "\n", "(", "\n", ")", "\n", "&", "\n")
	return strings.Split(r.Replace(command), "\n")
}

// skipPrefix drops what runs a command rather than being it: VAR=value
// assignments, time, env, sudo, nice, timeout N; and a cd part is empty.
func skipPrefix(words []string) []string {
	for len(words) > 0 {
		w := words[0]
		switch {
		case w == "cd" || w == "pushd" || w == "popd" || w == "echo" || w == "export":
			return nil
		case w == "time" || w == "env" || w == "sudo" || w == "nice" || w == "command" || w == "exec":
			words = words[1:]
		case w == "timeout" && len(words) > 1:
			words = words[2:]
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "="):
			words = words[1:]
		default:
			return words
		}
	}
	return words
}

func hasPrefix(words, prefix []string) bool {
	if len(words) < len(prefix) {
		return false
	}
	for i, p := range prefix {
		w := words[i]
		if p == w || p == "*" {
			continue
		}
		// npm run test:unit, make test-all: a rule's last word matches
		// the word's stem before ':' or '-' too.
		if i == len(prefix)-1 && i > 0 && (strings.HasPrefix(w, p+":") || strings.HasPrefix(w, p+"-")) {
			continue
		}
		return false
	}
	return true
}

// Markers are the files that show a directory has a build or tests to
// run (or instructions saying how: AGENTS.md). Without one of them in the
// session's directory, and without verify.commands, the check is not
// asked for: a model writing notes in a scratch directory has nothing to
// verify, and the step would only cost a request.
var Markers = []string{
	"go.mod", "Makefile", "makefile", "GNUmakefile", "package.json", "deno.json", "Cargo.toml",
	"pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "pytest.ini", "noxfile.py",
	"pom.xml", "build.gradle", "build.gradle.kts", "CMakeLists.txt", "meson.build", "build.zig",
	"Gemfile", "Rakefile", "mix.exs", "Package.swift", "composer.json", "justfile", "Taskfile.yml",
	"AGENTS.md", "CLAUDE.md",
}

// Call is one tool call of a turn, in the order the calls ran.
type Call struct {
	// Changed is set when the call changed files: a write or an edit that
	// succeeded, or a command of a step whose checkpoint recorded changes.
	Changed bool
	// Command is a bash call's command line ("" for other tools).
	Command string
	// Asked marks the check step's own message (Prompt): the turn has
	// asked already.
	Asked bool
}

// Needed reports whether a turn of these calls needs the check step: some
// call changed files, no call after the last change ran a build or test
// (a call that both changes and tests counts as tested), and the turn has
// not asked already.
func Needed(calls []Call, own []string) bool {
	last := -1
	for i, c := range calls {
		if c.Asked {
			return false
		}
		if c.Changed {
			last = i
		}
	}
	if last < 0 {
		return false
	}
	for _, c := range calls[last:] {
		if c.Command != "" && Ran(c.Command, own) {
			return false
		}
	}
	return true
}
