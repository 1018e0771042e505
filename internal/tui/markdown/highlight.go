package markdown

import (
	"strings"
	"sync"
)

// The highlighter is a single generic tokenizer: strings, comments,
// numbers, keywords and builtin names, configured per language by a few
// facts (which comment markers, which quotes, which words). It does not
// parse; a construct it does not know is shown plain. Diffs are coloured
// by line.

// kind is what a token is; the palette styles each kind.
type kind uint8

const (
	kindPlain kind = iota
	kindKeyword
	kindType // builtin types, constants and functions
	kindString
	kindComment
	kindNumber
	kindKey // a key in JSON or YAML
	kindAdd
	kindDel
	kindHunk
	kindHeader
	numKinds
)

// token is a piece of code; its text may span lines.
type token struct {
	text string
	kind kind
}

// language holds what the tokenizer needs to know about one language.
type language struct {
	keywords, types map[string]bool
	lineComments    []string
	blockComment    [2]string
	quotes          string // quote characters of one-line strings
	multiline       string // quote characters of strings that span lines
	tripleQuotes    bool   // Python's """ and '''
	charQuote       bool   // ' starts a string only when it closes soon (Rust lifetimes)
	hashAtWord      bool   // # starts a comment only at the start of a word (shells)
	caseFold        bool   // keywords in any case (SQL)
	keys            bool   // a name or string before ':' is a key (JSON, YAML)
	variables       bool   // $name and ${name} are variables (shells)
	preprocessor    bool   // #include and friends at the start of a line (C)
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// languages maps a fence's info word to its language, built on first use.
var languages = sync.OnceValue(func() map[string]*language {
	cStyle := []string{"//"}
	cBlock := [2]string{"/*", "*/"}
	goLang := &language{
		keywords: words(`break case chan const continue default defer else fallthrough for func go goto if
			import interface map package range return select struct switch type var`),
		types: words(`bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune
			string uint uint8 uint16 uint32 uint64 uintptr any comparable true false nil iota
			append cap clear close complex copy delete imag len make max min new panic print println real recover`),
		lineComments: cStyle, blockComment: cBlock, quotes: `"'`, multiline: "`",
	}
	python := &language{
		keywords: words(`False None True and as assert async await break class continue def del elif else except
			finally for from global if import in is lambda match case nonlocal not or pass raise return try while with yield`),
		types: words(`int float str bool list dict set tuple bytes object self cls print len range type
			isinstance super open enumerate zip map filter sorted`),
		lineComments: []string{"#"}, quotes: `"'`, tripleQuotes: true,
	}
	js := &language{
		keywords: words(`break case catch class const continue debugger default delete do else export extends
			finally for function if import in instanceof let new return super switch this throw try typeof var void
			while with yield async await of static get set from
			interface type enum implements namespace declare abstract private protected public readonly as keyof infer is`),
		types: words(`true false null undefined NaN Infinity number string boolean any unknown never object
			symbol bigint console Promise Array Object Map Set Error JSON Math`),
		lineComments: cStyle, blockComment: cBlock, quotes: `"'`, multiline: "`",
	}
	rust := &language{
		keywords: words(`as async await break const continue crate dyn else enum extern fn for if impl in let loop
			match mod move mut pub ref return self Self static struct super trait type unsafe use where while`),
		types: words(`bool char str u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64 String Vec
			Option Result Some None Ok Err Box true false println format vec panic`),
		lineComments: cStyle, blockComment: cBlock, quotes: `"'`, charQuote: true,
	}
	cKeywords := `auto break case char const continue default do double else enum extern float for goto if
		inline int long register restrict return short signed sizeof static struct switch typedef union unsigned
		void volatile while`
	cTypes := `size_t ssize_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t uintptr_t
		bool true false NULL FILE printf malloc free`
	c := &language{
		keywords: words(cKeywords), types: words(cTypes),
		lineComments: cStyle, blockComment: cBlock, quotes: `"'`, preprocessor: true,
	}
	cpp := &language{
		keywords: words(cKeywords + ` alignas alignof catch class constexpr const_cast decltype delete
			dynamic_cast explicit export friend mutable namespace new noexcept nullptr operator private protected
			public reinterpret_cast static_assert static_cast template this thread_local throw try typeid typename
			using virtual override final co_await co_return co_yield concept requires`),
		types:        words(cTypes + ` std string vector map unique_ptr shared_ptr auto`),
		lineComments: cStyle, blockComment: cBlock, quotes: `"'`, preprocessor: true,
	}
	java := &language{
		keywords: words(`abstract assert boolean break byte case catch char class const continue default do double
			else enum extends final finally float for goto if implements import instanceof int interface long native
			new package private protected public return short static strictfp super switch synchronized this throw
			throws transient try void volatile while var record sealed permits yield`),
		types:        words(`true false null String Object Integer Long Double Boolean List Map Set System Override`),
		lineComments: cStyle, blockComment: cBlock, quotes: `"'`,
	}
	sh := &language{
		keywords: words(`if then else elif fi case esac for while until do done in function return local export
			readonly declare unset shift exit break continue select time`),
		types:        words(`echo printf cd test set source read eval exec trap true false alias pwd kill wait`),
		lineComments: []string{"#"}, quotes: `"'`, hashAtWord: true, variables: true,
	}
	json := &language{types: words(`true false null`), quotes: `"`, keys: true}
	yaml := &language{
		types:        words(`true false null yes no on off True False TRUE FALSE Null NULL ~`),
		lineComments: []string{"#"}, quotes: `"'`, keys: true, hashAtWord: true,
	}
	sql := &language{
		keywords: words(`select from where insert into values update set delete create table drop alter add column
			index primary key foreign references join inner left right outer full cross on as and or not null is in
			exists between like ilike group by order having limit offset union all distinct case when then else end
			begin commit rollback transaction view with returning default unique check constraint if replace asc desc
			pragma trigger explain`),
		types: words(`int integer bigint smallint text varchar char boolean bool real float double numeric decimal
			date time timestamp blob json jsonb true false count sum avg min max coalesce now`),
		lineComments: []string{"--"}, blockComment: cBlock, quotes: `'"`, caseFold: true,
	}
	m := map[string]*language{}
	for _, e := range []struct {
		names string
		l     *language
	}{
		{"go golang", goLang},
		{"python py python3 py3", python},
		{"javascript js jsx mjs cjs typescript ts tsx", js},
		{"rust rs", rust},
		{"c h", c},
		{"cpp c++ cc cxx hpp hh hxx", cpp},
		{"java", java},
		{"sh bash shell zsh ksh console shell-session", sh},
		{"json jsonc json5", json},
		{"yaml yml", yaml},
		{"sql sqlite postgresql postgres mysql plpgsql", sql},
	} {
		for _, n := range strings.Fields(e.names) {
			m[n] = e.l
		}
	}
	return m
})

// isDiff reports whether a fence's language is a diff.
func isDiff(lang string) bool { return lang == "diff" || lang == "patch" || lang == "udiff" }

// langName is the language word of a fence's info string ("go {.x}",
// "Go", "language-go").
func langName(info string) string {
	f := strings.Fields(info)
	if len(f) == 0 {
		return ""
	}
	s := strings.ToLower(f[0])
	s = strings.TrimPrefix(s, "language-")
	s = strings.Trim(s, "{}.")
	return s
}

// highlight splits code into tokens for the language named in a fence's
// info string; an unknown language is one plain token.
func highlight(code, info string) []token {
	name := langName(info)
	if isDiff(name) {
		return highlightDiff(code)
	}
	l := languages()[name]
	if l == nil {
		return []token{{text: code}}
	}
	return l.tokenize(code)
}

// highlightDiff colours a unified diff line by line.
func highlightDiff(code string) []token {
	var out []token
	for len(code) > 0 {
		end := strings.IndexByte(code, '\n')
		if end < 0 {
			end = len(code)
		} else {
			end++
		}
		line := code[:end]
		code = code[end:]
		k := kindPlain
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"),
			strings.HasPrefix(line, "diff "), strings.HasPrefix(line, "index "):
			k = kindHeader
		case strings.HasPrefix(line, "@@"):
			k = kindHunk
		case strings.HasPrefix(line, "+"):
			k = kindAdd
		case strings.HasPrefix(line, "-"):
			k = kindDel
		}
		out = append(out, token{text: line, kind: k})
	}
	return out
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// tokenize scans code once, left to right.
func (l *language) tokenize(code string) []token {
	var out []token
	plainFrom := 0
	i := 0
	lineStart := true // only spaces since the last newline
	push := func(end int, k kind) {
		if plainFrom < i {
			out = append(out, token{text: code[plainFrom:i]})
		}
		out = append(out, token{text: code[i:end], kind: k})
		i, plainFrom = end, end
	}
	for i < len(code) {
		c := code[i]
		atLineStart := lineStart
		if c == '\n' {
			lineStart = true
			i++
			continue
		}
		if c != ' ' && c != '\t' {
			lineStart = false
		}
		rest := code[i:]
		// Comments.
		if b := l.blockComment[0]; b != "" && strings.HasPrefix(rest, b) {
			end := strings.Index(rest[len(b):], l.blockComment[1])
			if end < 0 {
				push(len(code), kindComment)
			} else {
				push(i+len(b)+end+len(l.blockComment[1]), kindComment)
			}
			continue
		}
		if l.lineComment(code, i) {
			push(lineEnd(code, i), kindComment)
			continue
		}
		if l.preprocessor && c == '#' && atLineStart {
			j := i + 1
			for j < len(code) && (code[j] == ' ' || code[j] == '\t') {
				j++
			}
			for j < len(code) && isIdent(code[j]) {
				j++
			}
			push(j, kindKeyword)
			continue
		}
		// Strings.
		if l.tripleQuotes && (strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, `'''`)) {
			end := strings.Index(rest[3:], rest[:3])
			if end < 0 {
				push(len(code), kindString)
			} else {
				push(i+3+end+3, kindString)
			}
			continue
		}
		if strings.IndexByte(l.quotes, c) >= 0 || strings.IndexByte(l.multiline, c) >= 0 {
			multi := strings.IndexByte(l.multiline, c) >= 0
			end, closed := stringEnd(code, i, multi)
			if c == '\'' && l.charQuote && (!closed || end-i > 12) {
				i++ // a lifetime, not a character
				continue
			}
			k := kindString
			if l.keys && l.beforeColon(code, end) {
				k = kindKey
			}
			push(end, k)
			continue
		}
		// Numbers.
		if isDigit(c) && (i == 0 || !isIdent(code[i-1]) && code[i-1] != '.') {
			j := i + 1
			for j < len(code) && (isIdent(code[j]) || code[j] == '.' && j+1 < len(code) && isDigit(code[j+1])) {
				j++
			}
			push(j, kindNumber)
			continue
		}
		// Variables.
		if l.variables && c == '$' && i+1 < len(code) {
			j := i + 1
			if code[j] == '{' {
				if e := strings.IndexByte(code[j:], '}'); e >= 0 && !strings.Contains(code[j:j+e], "\n") {
					push(j+e+1, kindType)
					continue
				}
			}
			for j < len(code) && isIdent(code[j]) {
				j++
			}
			if j > i+1 {
				push(j, kindType)
				continue
			}
		}
		// Words.
		if isIdentStart(c) {
			j := i + 1
			for j < len(code) && (isIdent(code[j]) || l.variables && code[j] == '-') {
				j++
			}
			w := code[i:j]
			if l.caseFold {
				w = strings.ToLower(w)
			}
			switch {
			case l.keys && l.beforeColon(code, j) && (atLineStart || l.afterListDash(code, i)):
				push(j, kindKey)
			case l.keywords[w]:
				push(j, kindKeyword)
			case l.types[w]:
				push(j, kindType)
			default:
				i = j // plain
			}
			continue
		}
		i++
	}
	if plainFrom < len(code) {
		out = append(out, token{text: code[plainFrom:]})
	}
	return out
}

// lineComment reports whether a line comment starts at i.
func (l *language) lineComment(code string, i int) bool {
	for _, m := range l.lineComments {
		if !strings.HasPrefix(code[i:], m) {
			continue
		}
		if m == "#" && l.hashAtWord && i > 0 && code[i-1] != ' ' && code[i-1] != '\t' && code[i-1] != '\n' {
			continue // $# or a#b
		}
		return true
	}
	return false
}

// beforeColon reports whether the next non-space character from i is a
// ':' (a key in JSON or YAML).
func (l *language) beforeColon(code string, i int) bool {
	for i < len(code) && (code[i] == ' ' || code[i] == '\t') {
		i++
	}
	return i < len(code) && code[i] == ':' && (i+1 == len(code) || code[i+1] == ' ' || code[i+1] == '\n' || code[i+1] == '\t')
}

// afterListDash reports whether the word at i follows a YAML "- " at the
// start of its line.
func (l *language) afterListDash(code string, i int) bool {
	j := i
	for j > 0 && code[j-1] == ' ' {
		j--
	}
	if j == 0 || code[j-1] != '-' {
		return false
	}
	j--
	for j > 0 && code[j-1] == ' ' {
		j--
	}
	return j == 0 || code[j-1] == '\n'
}

func lineEnd(code string, i int) int {
	if e := strings.IndexByte(code[i:], '\n'); e >= 0 {
		return i + e
	}
	return len(code)
}

// stringEnd finds the end of a string opened at i (just past its closing
// quote), honouring backslash escapes. A one-line string left open ends
// at the end of its line.
func stringEnd(code string, i int, multi bool) (end int, closed bool) {
	q := code[i]
	for j := i + 1; j < len(code); j++ {
		switch code[j] {
		case '\\':
			if q != '`' {
				j++
			}
		case q:
			return j + 1, true
		case '\n':
			if !multi {
				return j, false
			}
		}
	}
	return len(code), false
}
