package commands

import (
	"reflect"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	for _, tc := range []struct {
		name, body, args, want string
	}{
		{"arguments", "Review $ARGUMENTS carefully.", "main.go util.go", "Review main.go util.go carefully."},
		{"arguments twice", "$ARGUMENTS / $ARGUMENTS", "x", "x / x"},
		{"positional", "Fix issue $1 in $2.", `42 "the parser"`, "Fix issue 42 in the parser."},
		{"missing positional is empty", "a=$1 b=$2.", "one", "a=one b=."},
		{"$0 and $10 are not placeholders beyond $1", "$0 $10", "x", "$0 x0"},
		{"no re-expansion", "say $1", "$ARGUMENTS", "say $ARGUMENTS"},
		{"dollar at the end", "costs 5$", "", "costs 5$"},
		{"no placeholder appends", "Explain the code.", "main.go", "Explain the code.\n\nARGUMENTS: main.go"},
		{"no placeholder and no args", "Explain the code.", "", "Explain the code."},
		{"empty body", "", "just this", "just this"},
		{"multi-line args kept as typed", "Do: $ARGUMENTS", "a\nb", "Do: a\nb"},
		{"lower-case is not a placeholder", "$arguments", "x", "$arguments\n\nARGUMENTS: x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Expand(tc.body, tc.args, SplitArgs(tc.args)); got != tc.want {
				t.Errorf("Expand(%q, %q) = %q, want %q", tc.body, tc.args, got, tc.want)
			}
		})
	}
}

func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  a  b\tc\n", []string{"a", "b", "c"}},
		{`"a b" c`, []string{"a b", "c"}},
		{`'it "is"' x`, []string{`it "is"`, "x"}},
		{`"say \"hi\"" \n`, []string{`say "hi"`, `\n`}},
		{`pre"fix suf"fix`, []string{"prefix suffix"}},
		{`""`, []string{""}},
		{`"unclosed quote`, []string{"unclosed quote"}},
		{"é ü", []string{"é", "ü"}},
	} {
		if got := SplitArgs(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestInvocation(t *testing.T) {
	for _, tc := range []struct {
		in, name, args string
		ok             bool
	}{
		{"/review", "review", "", true},
		{"/Review  main.go  now ", "review", "main.go  now", true},
		{"/git:commit fix the bug", "git:commit", "fix the bug", true},
		{"/fix\nline two", "fix", "line two", true},
		{"review", "", "", false},
		{" /review", "", "", false},
		{"/etc/passwd what is this", "", "", false},
		{"/file.go", "", "", false},
		{"/", "", "", false},
		{"/git:", "", "", false},
	} {
		name, args, ok := Invocation(tc.in)
		if name != tc.name || args != tc.args || ok != tc.ok {
			t.Errorf("Invocation(%q) = %q, %q, %v; want %q, %q, %v", tc.in, name, args, ok, tc.name, tc.args, tc.ok)
		}
	}
}

func TestNameOf(t *testing.T) {
	for rel, want := range map[string]string{
		"review.md":               "review",
		"Review.MD":               "review",
		"git/commit.md":           "git:commit",
		"Git Tools/Commit Msg.md": "git-tools:commit-msg",
		"a/b/c/d.md":              "a:b:c:d",
		"fix__it.md":              "fix__it",
		"--x--.md":                "x",
		"é.md":                    "",
		"ok/\x1b[31m.md":          "ok:31m",
		"v1.2.md":                 "v1-2",
	} {
		if got := nameOf(rel); got != want {
			t.Errorf("nameOf(%q) = %q, want %q", rel, got, want)
		}
	}
}

func TestParseFile(t *testing.T) {
	for _, tc := range []struct {
		name, file       string
		desc, hint, body string
		ok               bool
	}{
		{"front matter", "---\ndescription: Review a file\nargument-hint: [file]\nmodel: x\n---\n\nReview $1.\n",
			"Review a file", "[file]", "Review $1.", true},
		{"quoted values and CRLF", "---\r\ndescription: \"Quoted: yes\"\r\nargument-hint: '<n>'\r\n---\r\nBody\r\n",
			"Quoted: yes", "<n>", "Body", true},
		{"no front matter: first line describes", "# Explain the code\n\nExplain $ARGUMENTS.", "Explain the code", "", "# Explain the code\n\nExplain $ARGUMENTS.", true},
		{"unclosed front matter is body", "---\ndescription: x\nbody", "---", "", "---\ndescription: x\nbody", true},
		{"escapes stripped", "---\ndescription: \x1b]0;pwned\x07Red \x1b[31mtext\n---\nb", "Red text", "", "b", true},
		{"BOM", "\uFEFF---\ndescription: d\n---\nb", "d", "", "b", true},
		{"binary", "abc\x00def", "", "", "", false},
		{"invalid UTF-8", "abc\xff", "", "", "", false},
		{"empty front matter", "---\n---\nonly body", "only body", "", "only body", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseFile([]byte(tc.file))
			if ok != tc.ok || got.description != tc.desc || got.hint != tc.hint || got.body != tc.body {
				t.Errorf("parseFile = %+v, %v; want desc %q hint %q body %q ok %v", got, ok, tc.desc, tc.hint, tc.body, tc.ok)
			}
			if strings.ContainsRune(got.description, 0x1b) {
				t.Errorf("escape left in %q", got.description)
			}
		})
	}
}

func TestLongDescriptionIsCut(t *testing.T) {
	got, _ := parseFile([]byte("---\ndescription: " + strings.Repeat("word ", 100) + "\n---\nb"))
	if n := len([]rune(got.description)); n != maxDescription || !strings.HasSuffix(got.description, "…") {
		t.Errorf("description of %d runes: %q", n, got.description)
	}
}
