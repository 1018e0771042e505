package mcp

// What an entry a project file declares may do, and how it is shown to the
// user who approves it. A cloned repository's .agent/config.json is
// someone else's, so:
//
//   - ${VAR} (and $VAR) in its env and header values expands only when the
//     user's own config grants VAR to that server by name (mcp_allow_env,
//     config.MCPServer.AllowEnv); any other variable expands to nothing, so
//     a header such as "X-Client: ${GITHUB_TOKEN}" cannot carry the user's
//     token to a URL the repository chose.
//   - Its env may not set a variable that changes what a program loads or
//     runs (LD_PRELOAD, PYTHONPATH, NODE_OPTIONS, BASH_ENV, PATH, HOME, a
//     package index, …: loaderEnv), nor a name that is not a plain
//     environment name (a "=" or a NUL would smuggle another variable in).
//     Names are compared without regard to case: ld_preload is refused like
//     LD_PRELOAD (some programs read names case-insensitively, Windows
//     does, and no server needs such a name in lower case). Such an entry
//     is refused: never started, whatever was approved (Refusal).
//   - The approval shows everything the entry sends (Describe): the full
//     command and arguments or the URL, every env entry and header with its
//     value as written, and the variables it references, each saying
//     whether the user's config grants it. Every value is made safe to
//     show (Printable): no terminal escape reaches the screen raw.
//
// The user's own entries are the user's: none of this applies to them.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ctxloop/agent/internal/config"
)

// loaderNames are environment names that change what a program loads or
// runs: dynamic linkers, interpreters' module paths and start-up files,
// shells' start-up files, the search path, the home and config
// directories programs read their configuration from, and package
// managers' indexes (npx or uvx would fetch the server from elsewhere).
// Upper case; compared with the name upper-cased.
var loaderNames = []string{
	"PATH", "HOME", "BASH_ENV", "ENV", "ZDOTDIR", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "IFS", "CDPATH",
	"PERLLIB", "RUBYLIB", "RUBYOPT", "GEM_HOME", "GEM_PATH", "BUNDLE_GEMFILE",
	"CLASSPATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
	"GCONV_PATH", "GLIBC_TUNABLES", "LOCPATH", "NLSPATH", "HOSTALIASES", "MALLOC_CHECK_",
	"LUA_PATH", "LUA_CPATH", "LUA_INIT", "TCLLIBPATH", "PHPRC", "PHP_INI_SCAN_DIR",
	"R_PROFILE", "R_PROFILE_USER", "R_ENVIRON", "R_ENVIRON_USER",
	"RUSTC_WRAPPER", "RUSTC", "GOFLAGS", "GOTOOLCHAIN", "GOPROXY", "GONOSUMDB", "GONOSUMCHECK", "GOINSECURE",
	"EDITOR", "VISUAL", "PAGER", "BROWSER", "SSH_ASKPASS", "SUDO_ASKPASS",
	"XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME", "XDG_DATA_DIRS",
	"CURL_HOME", "WGETRC", "INPUTRC", "NODE_PATH",
}

// loaderPrefixes are the families of such names.
var loaderPrefixes = []string{
	"LD_", "DYLD_", "PYTHON", "PERL5", "NODE_OPTIONS", "NPM_CONFIG_", "YARN_", "PNPM_", "BUN_", "DENO_",
	"PIP_", "UV_", "PIPX_", "POETRY_", "CONDA", "RUBY", "JAVA_", "CARGO_", "GIT_", "BASH_FUNC_",
	"DOTNET_", "COREHOST_", "MAVEN_", "GRADLE_",
}

// harmlessNames are names of those families that change only how a
// program behaves, which Python servers' entries commonly set.
var harmlessNames = []string{"PYTHONUNBUFFERED", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONDONTWRITEBYTECODE"}

// loaderEnv reports whether a project's env may not set name: it changes
// what a program loads, or it is not a plain name.
func loaderEnv(name string) bool {
	if !plainName(name) {
		return true
	}
	up := strings.ToUpper(name)
	if slices.Contains(harmlessNames, up) {
		return false
	}
	if slices.Contains(loaderNames, up) {
		return true
	}
	for _, p := range loaderPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	return false
}

// plainName reports whether name is an environment name a shell would
// take: a letter or _, then letters, digits and _.
func plainName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// Refusal says why an entry a project declares may not start, or "" when
// it may (once approved). The user's own entries are never refused.
func Refusal(spec config.MCPServer) string {
	if spec.Project == "" {
		return ""
	}
	var refused []string
	for k := range spec.Env {
		if loaderEnv(k) {
			refused = append(refused, Printable(k))
		}
	}
	if len(refused) == 0 {
		return ""
	}
	sort.Strings(refused)
	return fmt.Sprintf("refused: its env sets %s, which a project may not set (it changes what a program loads or runs); "+
		"move the server to your user config if you trust it", strings.Join(refused, ", "))
}

// References are the variables an entry's env and header values name as
// ${VAR} or $VAR, sorted, each once.
func References(spec config.MCPServer) []string {
	seen := map[string]bool{}
	collect := func(kv map[string]string) {
		for _, v := range kv {
			os.Expand(v, func(name string) string {
				seen[name] = true
				return ""
			})
		}
	}
	collect(spec.Env)
	collect(spec.Headers)
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// mayExpand reports whether the entry's ${name} expands from the
// environment: always for the user's entries, for a project's only when
// the user granted it.
func mayExpand(spec config.MCPServer, name string) bool {
	return spec.Project == "" || slices.Contains(spec.AllowEnv, name)
}

// Describe is everything an entry sends and runs, a line each, safe to
// show on a terminal: the command and its arguments (with a note when the
// command is a file of the directory it runs in) or the URL, every env
// entry and header with its value as written, and the variables they
// reference, each saying whether it expands.
func Describe(spec config.MCPServer) []string {
	var lines []string
	if spec.URL != "" {
		lines = append(lines, "url: "+Printable(spec.URL))
	} else {
		lines = append(lines, "command: "+Printable(spec.Command))
		if RunsProjectFile(spec) {
			lines = append(lines, "  (a file of the project: the repository's own code runs)")
		}
		for i, a := range spec.Args {
			lines = append(lines, fmt.Sprintf("arg %d: %s", i+1, Printable(a)))
		}
	}
	return append(lines, Sends(spec)...)
}

// RunsProjectFile reports whether the entry's command is a file of the
// directory it runs in (./evil.sh, bin/server): the repository's own code.
func RunsProjectFile(spec config.MCPServer) bool {
	return spec.URL == "" && !filepath.IsAbs(spec.Command) && strings.ContainsRune(spec.Command, filepath.Separator)
}

// Sends is the part of Describe past the command or URL: every env entry
// and header with its value as written, and the variables they reference.
func Sends(spec config.MCPServer) []string {
	var lines []string
	for _, k := range sortedKeys(spec.Env) {
		line := "env " + Printable(k) + "=" + Printable(spec.Env[k])
		if spec.Project != "" && loaderEnv(k) {
			line += "  (refused: changes what a program loads)"
		}
		lines = append(lines, line)
	}
	for _, k := range sortedKeys(spec.Headers) {
		lines = append(lines, "header "+Printable(k)+": "+Printable(spec.Headers[k]))
	}
	for _, v := range References(spec) {
		switch {
		case spec.Project == "":
			lines = append(lines, "references $"+Printable(v)+" (expanded from your environment)")
		case mayExpand(spec, v):
			lines = append(lines, "references $"+Printable(v)+" (your config's mcp_allow_env grants it: expanded)")
		default:
			lines = append(lines, "references $"+Printable(v)+" (not granted: expands to nothing; your config's mcp_allow_env can grant it)")
		}
	}
	return lines
}

func sortedKeys(kv map[string]string) []string {
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
