package markdown

import (
	"strings"
	"testing"
)

// tokensOf maps each non-plain token's text to its kind.
func tokensOf(code, lang string) map[string]kind {
	m := map[string]kind{}
	for _, t := range highlight(code, lang) {
		if t.kind != kindPlain {
			m[t.text] = t.kind
		}
	}
	return m
}

func TestHighlightLanguages(t *testing.T) {
	tests := []struct {
		lang string
		code string
		want map[string]kind
		// plain lists words that must not be coloured.
		plain []string
	}{
		{"go", "func main() {\n\ts := \"a \\\" b\" + `raw\nline` // note\n\tx := 0x1F + 3.5 /* c */\n\treturn nil\n}",
			map[string]kind{"func": kindKeyword, "return": kindKeyword, `"a \" b"`: kindString, "`raw\nline`": kindString,
				"// note": kindComment, "0x1F": kindNumber, "3.5": kindNumber, "/* c */": kindComment, "nil": kindType},
			[]string{"main", "s", "x"}},
		{"python", "def f(x):  # c\n    return None if x else 'y'\ns = \"\"\"doc\nmore\"\"\"\n",
			map[string]kind{"def": kindKeyword, "return": kindKeyword, "None": kindKeyword, "# c": kindComment,
				"'y'": kindString, "\"\"\"doc\nmore\"\"\"": kindString, "if": kindKeyword}, []string{"f", "x"}},
		{"js", "const a = `t ${x}`; // c\nlet b = 'q' + 42;\nawait fetch(null)",
			map[string]kind{"const": kindKeyword, "let": kindKeyword, "await": kindKeyword, "`t ${x}`": kindString,
				"// c": kindComment, "'q'": kindString, "42": kindNumber, "null": kindType}, []string{"fetch"}},
		{"typescript", "interface A { n: number }\nexport type B = A | undefined",
			map[string]kind{"interface": kindKeyword, "number": kindType, "export": kindKeyword, "type": kindKeyword,
				"undefined": kindType}, nil},
		{"rust", "fn f<'a>(s: &'a str) -> Option<u8> {\n    let c = 'x'; // c\n    None\n}",
			map[string]kind{"fn": kindKeyword, "let": kindKeyword, "str": kindType, "Option": kindType, "u8": kindType,
				"'x'": kindString, "// c": kindComment, "None": kindType}, []string{"f", "a"}},
		{"c", "#include <stdio.h>\nint main(void) { printf(\"%d\\n\", 1); /* c */ }",
			map[string]kind{"#include": kindKeyword, "int": kindKeyword, "void": kindKeyword, "\"%d\\n\"": kindString,
				"1": kindNumber, "/* c */": kindComment, "printf": kindType}, []string{"main"}},
		{"cpp", "template <typename T> class V { public: std::vector<T> v; };",
			map[string]kind{"template": kindKeyword, "typename": kindKeyword, "class": kindKeyword, "public": kindKeyword,
				"std": kindType, "vector": kindType}, []string{"V", "T"}},
		{"java", "public class A { // c\n  String s = \"x\"; int n = 10; }",
			map[string]kind{"public": kindKeyword, "class": kindKeyword, "String": kindType, "\"x\"": kindString,
				"int": kindKeyword, "10": kindNumber, "// c": kindComment}, []string{"A"}},
		{"bash", "if [ -n \"$X\" ]; then echo ${HOME} $# # comment\nfi",
			map[string]kind{"if": kindKeyword, "then": kindKeyword, "fi": kindKeyword, "\"$X\"": kindString,
				"echo": kindType, "${HOME}": kindType, "# comment": kindComment}, nil},
		{"json", "{\"key\": \"value\", \"n\": 1.5, \"ok\": true, \"z\": null}",
			map[string]kind{"\"key\"": kindKey, "\"value\"": kindString, "1.5": kindNumber, "true": kindType, "null": kindType}, nil},
		{"yaml", "name: app # c\nitems:\n  - id: 3\n    on: true\nurl: \"http://x#y\"",
			map[string]kind{"name": kindKey, "items": kindKey, "id": kindKey, "3": kindNumber, "# c": kindComment,
				"true": kindType, "\"http://x#y\"": kindString}, nil},
		{"sql", "SELECT id, name FROM users WHERE age > 21 -- adults\nAND name LIKE 'a%';",
			map[string]kind{"SELECT": kindKeyword, "FROM": kindKeyword, "WHERE": kindKeyword, "AND": kindKeyword,
				"LIKE": kindKeyword, "21": kindNumber, "-- adults": kindComment, "'a%'": kindString}, []string{"users", "age"}},
		{"diff", "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n ctx\n-old\n+new\n",
			map[string]kind{"diff --git a/f b/f\n": kindHeader, "--- a/f\n": kindHeader, "+++ b/f\n": kindHeader,
				"@@ -1,2 +1,2 @@\n": kindHunk, "-old\n": kindDel, "+new\n": kindAdd}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			got := tokensOf(tt.code, tt.lang)
			for text, k := range tt.want {
				if got[text] != k {
					t.Errorf("%q: kind %d, want %d (tokens %q)", text, got[text], k, got)
				}
			}
			for _, w := range tt.plain {
				if _, ok := got[w]; ok {
					t.Errorf("%q coloured, want plain", w)
				}
			}
			// Tokens cover the code exactly.
			var b strings.Builder
			for _, tok := range highlight(tt.code, tt.lang) {
				b.WriteString(tok.text)
			}
			if b.String() != tt.code {
				t.Errorf("tokens do not add up to the code:\n%q\n%q", b.String(), tt.code)
			}
		})
	}
}

func TestHighlightUnknownIsPlain(t *testing.T) {
	for _, lang := range []string{"", "brainfuck", "text"} {
		toks := highlight("if x { return 1 } // c", lang)
		if len(toks) != 1 || toks[0].kind != kindPlain {
			t.Errorf("%q: tokens %q", lang, toks)
		}
	}
}

func TestLangName(t *testing.T) {
	for info, want := range map[string]string{"go": "go", "Go": "go", "python title=x": "python", "{.rust}": "rust",
		"language-js": "js", "": ""} {
		if got := langName(info); got != want {
			t.Errorf("langName(%q) = %q, want %q", info, got, want)
		}
	}
}

// In a rendered code block each language's keyword carries the keyword
// colour, and an unterminated string or comment does not run past its
// block.
func TestRenderCodeBlockHighlighted(t *testing.T) {
	p := paletteFor(true)
	kw := p.tok[kindKeyword].sgr()
	for lang, code := range map[string]string{
		"go": "func f() {}", "python": "def f(): pass", "js": "function f() {}", "ts": "const x = 1",
		"rust": "fn f() {}", "c": "int x;", "cpp": "class A {};", "java": "class A {}", "sh": "if true; then :; fi",
		"sql": "select 1", "json": "", "yaml": "",
	} {
		if code == "" {
			continue
		}
		src := "```" + lang + "\n" + code + "\n```"
		out := strings.Join(Render(src, 40, true), "\n")
		if !strings.Contains(out, kw) {
			t.Errorf("%s: no keyword colour in %q", lang, out)
		}
	}
	out := Render("```go\nx := \"open\n/* open\n```\n\nafter", 40, true)
	if last := out[len(out)-1]; last != "after" {
		t.Errorf("text after the block is styled: %q", last)
	}
	diff := strings.Join(Render("```diff\n-a\n+b\n@@ x @@\n```", 40, true), "\n")
	for _, k := range []kind{kindAdd, kindDel, kindHunk} {
		if !strings.Contains(diff, p.tok[k].sgr()) {
			t.Errorf("diff lacks kind %d colour: %q", k, diff)
		}
	}
}
