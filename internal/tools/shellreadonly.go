package tools

// Which bash command lines are proven read-only (plan mode runs only
// those: internal/plan). A line is read-only when the grant checker
// (shellgrant.go) can judge it from its text at all — no wrappers (bash
// -c, eval, xargs, find, env, sudo...), no assignments, no redirection
// other than input and /dev/null, no tainted arithmetic — and every simple
// command in it, wherever it sits, is one of readOnlyCommands with
// arguments that are literal text (no $var, no $(…), no <(…)) and none of
// the options that make that command write or run another program (sort
// -o, tree -o, rg --pre, git diff --output, git grep -O...) — and, for
// git and the commands that have such options, no word bash could expand
// into one (a glob or a brace: git diff * with a file named --output=x).
// Anything
// else is not proven, and is refused: the list errs on the side of
// leaving a command out (sed, awk, find, xargs, uniq, xxd and every
// interpreter are out because some use of them writes or runs code).

import (
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// argRule reports the first argument (after the command name, or after
// the subcommand of git) that makes the command able to write or run
// something, "" when none does.
type argRule func(args []string) string

// readOnlyCommands are the commands (and git subcommands, as "git log")
// that only read, with the rule their arguments must pass; nil: any
// literal arguments.
var readOnlyCommands = sync.OnceValue(func() map[string]argRule {
	return map[string]argRule{
		"ls": nil, "cat": nil, "head": nil, "tail": nil, "wc": nil, "pwd": nil, "echo": nil,
		"printf": nil, "true": nil, "false": nil, "test": nil, "stat": nil, "du": nil,
		"df": nil, "basename": nil, "dirname": nil, "realpath": nil, "readlink": nil, "which": nil,
		"grep": nil, "egrep": nil, "fgrep": nil, "diff": nil, "cmp": nil, "cut": nil, "tr": nil,
		"nl": nil, "column": nil, "fold": nil, "rev": nil, "seq": nil, "sha256sum": nil,
		"sha1sum": nil, "md5sum": nil, "jq": nil,
		"sort":    refuseOptions("oT", "--output", "--compress-program", "--temporary-directory"),
		"tree":    refuseOptions("oR", "--output"),
		"rg":      refuseOptions("", "--pre"),
		"git log": refuseOptions("", "--output", "--ext-diff"), "git diff": refuseOptions("", "--output", "--ext-diff"),
		"git show": refuseOptions("", "--output", "--ext-diff"), "git blame": nil, "git ls-files": nil,
		"git rev-parse": nil, "git shortlog": refuseOptions("", "--output"), "git cat-file": refuseOptions("", "--textconv", "--filters"),
		"git grep": refuseOptions("O", "--open-files-in-pager", "--ext-grep"),
	}
})

// refuseOptions is the rule refusing short options containing any of the
// letters in short (bundled: sort -uo) and long options starting with any
// of long (--output, --output=FILE).
func refuseOptions(short string, long ...string) argRule {
	return func(args []string) string {
		for _, a := range args {
			if strings.HasPrefix(a, "--") {
				for _, l := range long {
					if strings.HasPrefix(a, l) {
						return a
					}
				}
				continue
			}
			if strings.HasPrefix(a, "-") && short != "" && strings.ContainsAny(a[1:], short) {
				return a
			}
		}
		return ""
	}
}

// ReadOnlyCommand reports whether the command line is proven read-only
// (see the file comment); when it is not, why says what could not be
// proven, naming the command.
func ReadOnlyCommand(command string) (ok bool, why string) {
	if strings.TrimSpace(command) == "" {
		return false, "the command is empty"
	}
	if _, prefixes := shellCommands(command); prefixes == nil {
		return false, "it cannot be judged from its text (a wrapper such as bash -c, eval, xargs or find, an assignment, an output redirection, or a line that does not parse)"
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return false, "it does not parse"
	}
	syntax.Walk(file, func(node syntax.Node) bool {
		if why != "" {
			return false
		}
		switch n := node.(type) {
		case *syntax.ProcSubst:
			why = "it uses process substitution"
		case *syntax.CallExpr:
			why = readOnlyCall(n.Args)
		}
		return why == ""
	})
	return why == "", why
}

// readOnlyCall says why one simple command is not proven read-only, ""
// when it is.
func readOnlyCall(args []*syntax.Word) string {
	if len(args) == 0 {
		return "it assigns a variable"
	}
	words := make([]string, len(args))
	patterns := false
	for i, a := range args {
		if !isPlainWord(a) {
			return fmt.Sprintf("an argument of %s is not literal text", args[0].Lit())
		}
		words[i] = unquotedLit(a)
		patterns = patterns || i > 0 && expands(a)
	}
	name, rest := words[0], words[1:]
	if name == "git" && len(rest) > 0 {
		name, rest = "git "+rest[0], rest[1:]
	}
	rule, ok := readOnlyCommands()[name]
	if !ok {
		return fmt.Sprintf("%s is not a known read-only command", name)
	}
	if patterns && (rule != nil || words[0] == "git") {
		return fmt.Sprintf("%s has a pattern that could expand to one of its options (a file named --output=...)", name)
	}
	if rule != nil {
		if bad := rule(rest); bad != "" {
			return fmt.Sprintf("%s %s may write or run another program", name, bad)
		}
	}
	return ""
}

// expands reports whether bash could expand the plain word w into other
// words: an unquoted glob or brace character.
func expands(w *syntax.Word) bool {
	for _, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok && strings.ContainsAny(l.Value, "*?[{") {
			return true
		}
	}
	return false
}
