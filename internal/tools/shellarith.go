package tools

// Where bash runs text that the grant checker (shellgrant.go) cannot see
// as a command. Bash evaluates some operands as arithmetic: $(( )), $[ ],
// (( )), for (( ;; )), [[ x -eq y ]] (and -ne -lt -le -gt -ge), array
// subscripts (${a[i]}) and substring offsets (${x:i:j}); and [[ -v x ]] and
// test -v read a subscript. In arithmetic a name's value is evaluated
// again as arithmetic, and an array subscript in it runs its command
// substitution: with n='a[$(touch X)]', $((n)) runs touch. So an operand
// is safe only when it is a number, or a variable the line cannot have
// set to text: a lower-case name that is not a loop variable of the line
// (unless the loop's words are all numbers), or one of bash's integer
// variables ($#, $?, RANDOM...). Upper-case names other than those (PATH,
// IFS, BASH_REMATCH...), $_, positional parameters ($1 in a function),
// command substitutions, indirection (${!n}) and prompt expansion
// (${n@P}) are not; an arithmetic assignment to such a name ((PATH=1))
// is not either. A line with an unsafe operand is granted exactly.
//
// The builtins that assign a variable by name (printf -v, read, mapfile,
// getopts, wait -p...) or run a command given as an argument (compgen -C,
// jobs -x...) are in exactOnlyCommands or checked by builtinArgsGrantable;
// let and coproc are keywords to the parser (shellgrant.go refuses them).

import (
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// arithTaint is what the checker knows about a line's variables: the
// names its loops (for, select) set to text.
type arithTaint map[string]bool

// lineTaint returns the loop variables of file that may hold text (not
// only numbers).
func lineTaint(file *syntax.File) arithTaint {
	taint := arithTaint{}
	syntax.Walk(file, func(node syntax.Node) bool {
		if fc, ok := node.(*syntax.ForClause); ok {
			if it, ok := fc.Loop.(*syntax.WordIter); ok && (fc.Select || !numericWords(it)) {
				taint[it.Name.Value] = true
			}
		}
		return true
	})
	return taint
}

// numericWords reports whether a for loop iterates over literal integers
// ({1..5} included) only; "for n; do" iterates over the positional
// parameters.
func numericWords(it *syntax.WordIter) bool {
	if !it.InPos.IsValid() {
		return false
	}
	for _, w := range it.Items {
		if !numericWord().MatchString(w.Lit()) {
			return false
		}
	}
	return true
}

var (
	numericWord = onceRegexp(`^(-?[0-9]+|\{-?[0-9]+\.\.-?[0-9]+(\.\.-?[0-9]+)?\})$`)
	lowerName   = onceRegexp(`^([a-z][a-z0-9_]*|_[a-z0-9_]+)$`)
	plainName   = onceRegexp(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// intVariables are bash's variables that always hold an integer.
var intVariables = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"RANDOM": true, "SRANDOM": true, "SECONDS": true, "EPOCHSECONDS": true, "LINENO": true,
		"BASHPID": true, "PPID": true, "UID": true, "EUID": true,
		"#": true, "?": true, "$": true, "!": true,
	}
})

// cleanName reports whether the value of variable name cannot be text
// the line chose.
func (t arithTaint) cleanName(name string) bool {
	return intVariables()[name] || lowerName().MatchString(name) && !t[name]
}

// expr reports whether an arithmetic expression is safe to evaluate.
func (t arithTaint) expr(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case nil:
		return true
	case *syntax.BinaryArithm:
		return t.expr(x.X) && t.expr(x.Y)
	case *syntax.UnaryArithm:
		return t.expr(x.X)
	case *syntax.ParenArithm:
		return t.expr(x.X)
	case *syntax.Word:
		return t.word(x)
	}
	return false
}

// word reports whether a word whose expansion bash evaluates as
// arithmetic is safe: literal numbers and operators, clean names, and
// expansions that give a number.
func (t arithTaint) word(w *syntax.Word) bool {
	return t.parts(w.Parts)
}

func (t arithTaint) parts(parts []syntax.WordPart) bool {
	for _, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if !t.text(p.Value) {
				return false
			}
		case *syntax.SglQuoted:
			if !t.text(p.Value) {
				return false
			}
		case *syntax.DblQuoted:
			if !t.parts(p.Parts) {
				return false
			}
		case *syntax.ArithmExp: // a number; its own operands are checked where it is
		case *syntax.ParamExp:
			if !t.operandParam(p) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// operandParam: $name, ${name}, ${#x} (a length is a number) and a[i]
// inside $(( )).
func (t arithTaint) operandParam(p *syntax.ParamExp) bool {
	if p.Length {
		return t.param(p)
	}
	if p.Excl || p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Names != 0 || p.Param == nil {
		return false
	}
	return t.cleanName(p.Param.Value) && t.param(p)
}

// text reports whether literal text, evaluated as arithmetic, reads only
// clean names: no subscripts, quotes or expansions, and every name clean.
func (t arithTaint) text(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= '0' && c <= '9': // a number: 42, 0x1f, 16#ff
			for i < len(s) && (isAlnum(s[i]) || s[i] == '#') {
				i++
			}
		case isAlnum(c):
			j := i
			for j < len(s) && isAlnum(s[j]) {
				j++
			}
			if !t.cleanName(s[i:j]) {
				return false
			}
			i = j
		case strings.IndexByte("+-*/%<>=!&|^~?:(), \t\n", c) >= 0:
			i++
		default:
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// param reports whether a parameter expansion anywhere in the line is
// safe: its subscript and substring offsets are safe arithmetic, it is
// not indirect (${!n}, except ${!a[@]} and ${!prefix*}), and of the @
// transformations only Q, U, u and L (${n@P} expands the value as a
// prompt, running its command substitutions).
func (t arithTaint) param(p *syntax.ParamExp) bool {
	allIndex := p.Index != nil && isWordOf(p.Index, "@", "*")
	if p.Excl && p.Names == 0 && !allIndex {
		return false
	}
	if p.Index != nil && !allIndex && !t.expr(p.Index) {
		return false
	}
	if p.Slice != nil && (!t.expr(p.Slice.Offset) || !t.expr(p.Slice.Length)) {
		return false
	}
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && (p.Exp.Word == nil || p.Exp.Word.Lit() != "Q" && p.Exp.Word.Lit() != "U" && p.Exp.Word.Lit() != "u" && p.Exp.Word.Lit() != "L") {
		return false
	}
	return true
}

// isWordOf reports whether x is a word with one of the literal values.
func isWordOf(x syntax.ArithmExpr, values ...string) bool {
	w, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	lit := w.Lit()
	for _, v := range values {
		if lit == v {
			return true
		}
	}
	return false
}

// arithTestOps are the [[ ]] operators whose operands are arithmetic.
var arithTestOps = sync.OnceValue(func() map[syntax.BinTestOperator]bool {
	return map[syntax.BinTestOperator]bool{
		syntax.TsEql: true, syntax.TsNeq: true, syntax.TsLss: true,
		syntax.TsLeq: true, syntax.TsGtr: true, syntax.TsGeq: true,
	}
})

// test reports whether a [[ ]] test is safe: arithmetic comparisons of
// safe operands, -v and -R of a plain name.
func (t arithTaint) test(x syntax.TestExpr) bool {
	switch x := x.(type) {
	case *syntax.BinaryTest:
		if arithTestOps()[x.Op] {
			return t.testOperand(x.X) && t.testOperand(x.Y)
		}
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			w, ok := x.X.(*syntax.Word)
			return ok && plainName().MatchString(w.Lit())
		}
	}
	return true
}

func (t arithTaint) testOperand(x syntax.TestExpr) bool {
	w, ok := x.(*syntax.Word)
	return ok && t.word(w)
}

// exactOnlyCommands are builtins (and programs) that assign variables by
// name, run a command given as an argument, or read or define shell
// state that decides which program runs: a line using them is granted
// exactly. wrapperCommands (shellgrant.go) holds the older ones.
var exactOnlyCommands = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"let": true, "read": true, "mapfile": true, "readarray": true, "getopts": true,
		"compgen": true, "complete": true, "compopt": true, "bind": true, "fc": true, "history": true, "jobs": true,
		"setsid": true, "stdbuf": true, "chroot": true, "flock": true, "strace": true, "ltrace": true,
		"unshare": true, "nsenter": true, "busybox": true, "script": true, "runuser": true,
		"pkexec": true, "ionice": true, "taskset": true, "chrt": true, "prlimit": true, "systemd-run": true,
	}
})

// builtinArgsGrantable reports whether a builtin whose options decide
// whether it assigns or evaluates can be granted by prefix with these
// arguments: printf without -v (its first word cannot expand to -v),
// wait without -p, test without -v and expansions (an expansion can
// become an operator).
func builtinArgsGrantable(name string, args []*syntax.Word) bool {
	switch name {
	case "printf":
		if len(args) == 0 {
			return true
		}
		first := args[0]
		if isPlainWord(first) {
			v := unquotedLit(first)
			return v == "--" || !strings.HasPrefix(v, "-")
		}
		lead := leadingLiteral(first)
		return lead != "" && !strings.HasPrefix(lead, "-")
	case "wait":
		for _, a := range args {
			if !isPlainWord(a) || strings.HasPrefix(unquotedLit(a), "-") && strings.Contains(unquotedLit(a), "p") {
				return false
			}
		}
	case "test":
		for _, a := range args {
			if v := unquotedLit(a); !isPlainWord(a) || v == "-v" || v == "-R" {
				return false
			}
		}
	}
	return true
}

// unquotedLit is the value of a plain word with its quotes removed.
func unquotedLit(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				}
			}
		}
	}
	return b.String()
}

// leadingLiteral is the literal text a word starts with, before its
// first expansion.
func leadingLiteral(w *syntax.Word) string {
	var b strings.Builder
	var walk func(parts []syntax.WordPart) bool
	walk = func(parts []syntax.WordPart) bool {
		for _, part := range parts {
			switch p := part.(type) {
			case *syntax.Lit:
				b.WriteString(p.Value)
			case *syntax.SglQuoted:
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				if !walk(p.Parts) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	walk(w.Parts)
	return b.String()
}

// onceRegexp compiles expr on first use, once.
func onceRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
