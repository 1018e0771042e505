package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestRead(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{
		"small.txt":           "alpha\nbeta\ngamma",
		"big.txt":             numberedLines(2500),
		"crlf.txt":            "one\r\ntwo\r\n",
		"empty.txt":           "",
		"dir with space/f.go": "package main\n",
		"long.txt":            strings.Repeat("x", 5000) + "\nshort\n",
		"latin1.txt":          "caf\xe9\n",
		"escapes.txt":         "\x1b[31mred\x1b[0m\n",
	})
	tests := []struct {
		name    string
		input   map[string]any
		isError bool
		wants   []string
		unwants []string
	}{
		{"numbered", map[string]any{"path": "small.txt"}, false,
			[]string{"     1\talpha\n     2\tbeta\n     3\tgamma\n"}, []string{"Showing"}},
		{"first page says how to continue", map[string]any{"path": "big.txt"}, false,
			[]string{"     1\tline 1\n", "  2000\tline 2000\n", "Showing lines 1-2000 of 2500. Use offset=2001 to read more."}, []string{"line 2001"}},
		{"offset and limit", map[string]any{"path": "big.txt", "offset": 10, "limit": 3}, false,
			[]string{"    10\tline 10\n    11\tline 11\n    12\tline 12\n", "Use offset=13"}, []string{"line 9\n", "line 13\n"}},
		{"last page", map[string]any{"path": "big.txt", "offset": 2400}, false,
			[]string{"  2500\tline 2500\n"}, []string{"Showing"}},
		{"offset past the end", map[string]any{"path": "small.txt", "offset": 9}, true,
			[]string{"offset 9 is past the end of small.txt, which has 3 lines"}, nil},
		{"CRLF shown without CR", map[string]any{"path": "crlf.txt"}, false,
			[]string{"     1\tone\n     2\ttwo\n"}, []string{"\r"}},
		{"empty", map[string]any{"path": "empty.txt"}, false, []string{"(empty.txt is empty)"}, nil},
		{"path with spaces", map[string]any{"path": "dir with space/f.go"}, false, []string{"package main"}, nil},
		{"absolute path", map[string]any{"path": filepath.Join(env.Dir, "small.txt")}, false, []string{"alpha"}, nil},
		{"long line cut", map[string]any{"path": "long.txt"}, false,
			[]string{strings.Repeat("x", 2000) + " …[line cut]", "     2\tshort", "1 long line(s) were cut at 2000 characters"}, []string{strings.Repeat("x", 2001)}},
		{"invalid UTF-8 replaced", map[string]any{"path": "latin1.txt"}, false, []string{"caf\uFFFD"}, nil},
		{"escapes stripped", map[string]any{"path": "escapes.txt"}, false, []string{"     1\tred\n"}, []string{"\x1b"}},
		{"directory", map[string]any{"path": "dir with space"}, true, []string{"is a directory", "use ls"}, nil},
		{"missing with suggestions", map[string]any{"path": "smal.txt"}, true,
			[]string{"smal.txt does not exist. Did you mean: small.txt"}, nil},
		{"wrong extension", map[string]any{"path": "big.md"}, true, []string{"Did you mean: big.txt"}, nil},
		{"missing directory", map[string]any{"path": "nowhere/at/all.txt"}, true,
			[]string{"nowhere/at/all.txt does not exist", "does not exist either"}, nil},
		{"empty path", map[string]any{"path": ""}, true, []string{"path is empty"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, env, "read", tt.input)
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Output)
			}
			mustContain(t, res.Output, tt.wants...)
			mustNotContain(t, res.Output, tt.unwants...)
		})
	}
}

func TestReadMetadataAndTitle(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{"a/b.txt": numberedLines(10)})
	res := call(t, env, "read", map[string]any{"path": "a/b.txt", "offset": 3, "limit": 2})
	if res.Title != "read a/b.txt (from line 3)" {
		t.Errorf("Title = %q", res.Title)
	}
	if res.Metadata["lines"] != 2 || res.Metadata["total_lines"] != 10 {
		t.Errorf("Metadata = %v", res.Metadata)
	}
}

func TestReadRefusesBinary(t *testing.T) {
	env := newEnv(t)
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 100)...)
	if err := os.WriteFile(filepath.Join(env.Dir, "img.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(env.Dir, "blob"), []byte{1, 2, 3, 4, 5, 6, 7, 8, 'a'}, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"img.png": "image/png", "blob": "binary data"} {
		res := call(t, env, "read", map[string]any{"path": name})
		if !res.IsError {
			t.Fatalf("%s read: %q", name, res.Output)
		}
		mustContain(t, res.Output, "is a binary file", want)
	}
}

func TestReadStaysWithinByteBudget(t *testing.T) {
	env := newEnv(t)
	// 2000 lines of 1000 characters: 2 MB, far above 50 KB.
	line := strings.Repeat("y", 1000) + "\n"
	writeFiles(t, env.Dir, map[string]string{"wide.txt": strings.Repeat(line, 2000)})
	res := call(t, env, "read", map[string]any{"path": "wide.txt"})
	if res.Truncated {
		t.Fatal("read relied on the shared cap instead of paging itself")
	}
	if len(res.Output) > 50*1024 {
		t.Fatalf("read returned %d bytes", len(res.Output))
	}
	shown := res.Metadata["lines"].(int)
	mustContain(t, res.Output, fmt.Sprintf("Showing lines 1-%d of 2000 (output capped at 50.0 KB). Use offset=%d", shown, shown+1))
}

func TestReadRecordsTheFile(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{"f.txt": "x\n"})
	p := filepath.Join(env.Dir, "f.txt")
	info, _ := os.Stat(p)
	if state, _ := env.Files.check(p, info); state != fileNotRead {
		t.Fatal("tracked before reading")
	}
	call(t, env, "read", map[string]any{"path": "f.txt"})
	if state, _ := env.Files.check(p, info); state != fileFresh {
		t.Fatalf("state after read = %v", state)
	}
}

func TestSimilarNames(t *testing.T) {
	names := []string{"main.go", "Main_test.go", "README.md", "config.yaml", "internal/"}
	tests := []struct {
		want string
		top  string
	}{
		{"main.go", "main.go"},
		{"MAIN.GO", "main.go"},
		{"main.rs", "main.go"},
		{"readme.md", "README.md"},
		{"config.yml", "config.yaml"},
		{"internl", "internal/"},
	}
	for _, tt := range tests {
		got := similarNames(tt.want, names, 3)
		if len(got) == 0 || got[0] != tt.top {
			t.Errorf("similarNames(%q) = %v, want %q first", tt.want, got, tt.top)
		}
	}
	if got := similarNames("zzzzzz", names, 3); len(got) != 0 {
		t.Errorf("unrelated name got suggestions %v", got)
	}
}
