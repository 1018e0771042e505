package tools

// How a bash command line is granted "for this session". The line is
// parsed (mvdan.cc/sh, bash dialect) and every simple command in it is
// found, wherever it sits: in pipelines, && and || lists, loops,
// conditions, case arms, subshells, blocks, function bodies, command and
// process substitutions. Each simple command has a prefix (its name, or
// the name and subcommand for tools like go and git: "go test"), and a
// line runs without a question only when every one of its prefixes was
// granted. Keywords (for, do, case...) are never prefixes.
//
// A line is never granted by prefix (it asks, or matches a grant of the
// exact line) when something in it cannot be judged from its text: a
// command name that is not a plain word ($CMD), commands that run other
// commands or change how later ones run (eval, bash -c, sudo, xargs, env,
// exec, source, export...), variable assignments (PATH=...; ls), loop
// variables that are not lower-case locals, assigning expansions
// (${x:=...}), a subcommand tool whose subcommand is not a plain word
// (git $(...)), output redirection to anything but /dev/null, builtins
// that assign variables by name or run an argument (read, printf -v,
// mapfile, let, compgen -C...), arithmetic whose operands the line may
// have set to text (shellarith.go), control characters other than tab and
// newline (bash and the parser split "ls\r" differently), or a line that
// does not parse.

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// subcommandTools are commands whose first argument names what they do, so
// a grant covers the pair ("go test", "git status").
var subcommandTools = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"go": true, "git": true, "npm": true, "pnpm": true, "yarn": true, "bun": true, "deno": true,
		"cargo": true, "docker": true, "kubectl": true, "make": true, "pip": true, "pip3": true,
		"uv": true, "poetry": true, "dotnet": true, "gradle": true, "mvn": true, "gh": true,
		"brew": true, "apt": true, "apt-get": true, "systemctl": true, "python": true, "python3": true,
	}
})

// wrapperCommands run other commands, or change how the commands after
// them run (variables, aliases, traps, options); granting them by prefix
// would grant anything, so lines using them are granted exactly.
var wrapperCommands = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "fish": true,
		"eval": true, "exec": true, "env": true, "sudo": true, "su": true, "doas": true,
		"xargs": true, "nohup": true, "time": true, "timeout": true, "nice": true, "command": true,
		"builtin": true, "source": true, ".": true, "watch": true, "parallel": true, "find": true,
		"export": true, "declare": true, "typeset": true, "local": true, "readonly": true,
		"set": true, "unset": true, "alias": true, "unalias": true, "trap": true, "shopt": true,
		"enable": true, "hash": true,
	}
})

// loopVar is a loop variable that cannot redirect later commands (PATH,
// IFS, LD_PRELOAD... are upper case).
var loopVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z_][a-z0-9_]*$`) })

// shellCommands returns the simple commands of a command line as written
// (for the dialog) and the prefixes that grant it, or nil prefixes when it
// can only be granted exactly (see the file comment). A line that does not
// parse has no commands either.
func shellCommands(command string) (commands, prefixes []string) {
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, nil
	}
	grantable := true
	taint := lineTaint(file)
	text := func(n syntax.Node) string {
		start, end := int(n.Pos().Offset()), int(n.End().Offset())
		if start < 0 || end > len(command) || start > end {
			return ""
		}
		return command[start:end]
	}
	syntax.Walk(file, func(node syntax.Node) bool {
		switch n := node.(type) {
		case *syntax.CallExpr:
			if len(n.Assigns) > 0 {
				grantable = false
			}
			if len(n.Args) == 0 {
				if len(n.Assigns) > 0 {
					commands = append(commands, text(n))
				}
				return true
			}
			commands = append(commands, text(n))
			prefix, ok := commandPrefix(n.Args)
			if !ok || !builtinArgsGrantable(n.Args[0].Lit(), n.Args[1:]) {
				grantable = false
			} else if !slices.Contains(prefixes, prefix) {
				prefixes = append(prefixes, prefix)
			}
		case *syntax.DeclClause, *syntax.LetClause, *syntax.CoprocClause: // export, local, declare, readonly, typeset; let; coproc
			grantable = false
		case *syntax.ArithmExp:
			grantable = grantable && taint.expr(n.X)
		case *syntax.ArithmCmd:
			grantable = grantable && taint.expr(n.X)
		case *syntax.CStyleLoop:
			grantable = grantable && taint.expr(n.Init) && taint.expr(n.Cond) && taint.expr(n.Post)
		case *syntax.TestClause:
			syntax.Walk(n.X, func(node syntax.Node) bool {
				if x, ok := node.(syntax.TestExpr); ok && !taint.test(x) {
					grantable = false
				}
				return true
			})
		case *syntax.ForClause:
			if it, ok := n.Loop.(*syntax.WordIter); ok && !loopVar().MatchString(it.Name.Value) {
				grantable = false
			}
		case *syntax.ParamExp:
			if !taint.param(n) {
				grantable = false
			}
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
				grantable = false
			}
		case *syntax.Redirect:
			if !harmlessRedirect(n) {
				grantable = false
			}
		}
		return true
	})
	if strings.ContainsFunc(command, isControl) {
		grantable = false // bash and the parser disagree on them: "ls\r" is one word to bash
	}
	if !grantable || len(prefixes) == 0 {
		return commands, nil
	}
	return commands, prefixes
}

// commandPrefix is the grant prefix of a simple command, false when it
// cannot be granted by prefix.
func commandPrefix(args []*syntax.Word) (string, bool) {
	name := args[0].Lit()
	if !isCommandWord(name) || wrapperCommands()[baseName(name)] || exactOnlyCommands()[baseName(name)] {
		return "", false
	}
	if !subcommandTools()[name] || len(args) < 2 {
		return name, true
	}
	sub := args[1].Lit()
	switch {
	case sub == "" && !isPlainWord(args[1]):
		return "", false // git $(...): the subcommand is unknown
	case isSubcommand(sub):
		return name + " " + sub, true
	}
	return name, true
}

// isPlainWord reports whether w is literal text (quoted or not) with no
// expansion.
func isPlainWord(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// harmlessRedirect reports whether a redirection leaves files alone:
// input, here-documents, duplicating descriptors (2>&1), and output to
// /dev/null. {var}> assigns a variable and is not harmless.
func harmlessRedirect(r *syntax.Redirect) bool {
	if r.N != nil && strings.Trim(r.N.Value, "0123456789") != "" {
		return false
	}
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	case syntax.DplIn, syntax.DplOut:
		return strings.Trim(r.Word.Lit(), "0123456789-") == ""
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
		return r.Word.Lit() == "/dev/null"
	}
	return false
}

// isControl reports a control character other than tab and newline.
func isControl(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f
}

func baseName(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// commandPrefixes returns the grant prefixes of a command line ("go test
// ./... && git diff" gives "go test", "git diff"), and false when it can
// only be granted exactly.
func commandPrefixes(command string) ([]string, bool) {
	_, prefixes := shellCommands(command)
	return prefixes, len(prefixes) > 0
}

func isCommandWord(w string) bool {
	for _, r := range w {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/+", r)
		if !ok {
			return false
		}
	}
	return w != ""
}

func isSubcommand(w string) bool {
	if w == "" || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == ':') {
			return false
		}
	}
	return true
}
