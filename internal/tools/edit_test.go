package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWrite(t *testing.T) {
	env := newEnv(t)
	res := call(t, env, "write", map[string]any{"path": "new dir/sub/file one.txt", "content": "a\nb\n"})
	if res.IsError {
		t.Fatal(res.Output)
	}
	p := filepath.Join(env.Dir, "new dir/sub/file one.txt")
	if got := readFile(t, p); got != "a\nb\n" {
		t.Fatalf("content %q", got)
	}
	mustContain(t, res.Output, "Created new dir/sub/file one.txt (2 lines")
	mustContain(t, res.Metadata["diff"].(string), "+a\n+b\n")
	if res.Metadata["created"] != true || res.Title != "write new dir/sub/file one.txt" {
		t.Fatalf("%+v", res)
	}

	// Its own write counts as seen: overwriting needs no read.
	res = call(t, env, "write", map[string]any{"path": "new dir/sub/file one.txt", "content": "a\nc\n"})
	if res.IsError {
		t.Fatal(res.Output)
	}
	mustContain(t, res.Output, "Overwrote")
	mustContain(t, res.Metadata["diff"].(string), "-b\n+c\n")
	if res.Metadata["additions"] != 1 || res.Metadata["deletions"] != 1 {
		t.Fatalf("counts: %v", res.Metadata)
	}
}

func TestWriteRefusesUnreadAndStaleFiles(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{"f.txt": "original\n"})
	res := call(t, env, "write", map[string]any{"path": "f.txt", "content": "clobbered\n"})
	if !res.IsError || readFile(t, filepath.Join(env.Dir, "f.txt")) != "original\n" {
		t.Fatalf("overwrote an unread file: %q", res.Output)
	}
	mustContain(t, res.Output, "f.txt has not been read in this session: read it first")

	call(t, env, "read", map[string]any{"path": "f.txt"})
	changeOnDisk(t, filepath.Join(env.Dir, "f.txt"), "changed by the user\n")
	res = call(t, env, "write", map[string]any{"path": "f.txt", "content": "clobbered\n"})
	if !res.IsError {
		t.Fatalf("overwrote a stale file: %q", res.Output)
	}
	mustContain(t, res.Output, "has changed on disk since you last read it", "read it again")

	call(t, env, "read", map[string]any{"path": "f.txt"})
	if res := call(t, env, "write", map[string]any{"path": "f.txt", "content": "ok\n"}); res.IsError {
		t.Fatalf("refused after a fresh read: %s", res.Output)
	}
	if res := call(t, env, "write", map[string]any{"path": ".", "content": "x"}); !res.IsError {
		t.Fatal("wrote over a directory")
	}
}

// changeOnDisk rewrites a file as another program would, with a later
// modification time.
func changeOnDisk(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

func readThenEdit(t *testing.T, env *Env, path string, input map[string]any) Result {
	t.Helper()
	if res := call(t, env, "read", map[string]any{"path": path}); res.IsError {
		t.Fatal(res.Output)
	}
	input["path"] = path
	return call(t, env, "edit", input)
}

func TestEdit(t *testing.T) {
	tests := []struct {
		name    string
		content string
		input   map[string]any
		want    string // file content after; "" = unchanged
		isError bool
		outputs []string
	}{
		{"unique", "a\nb\nc\n", map[string]any{"old_string": "b", "new_string": "B"}, "a\nB\nc\n", false,
			[]string{"replaced 1 occurrence (now lines 2-2)", "     2\tB\n"}},
		{"old string twice", "x = 1\ny = 2\nx = 1\n", map[string]any{"old_string": "x = 1", "new_string": "x = 3"}, "", true,
			[]string{"appears 2 times", "at lines 1, 3", "replace_all"}},
		{"replace all", "x = 1\ny = 2\nx = 1\n", map[string]any{"old_string": "x = 1", "new_string": "x = 3", "replace_all": true}, "x = 3\ny = 2\nx = 3\n", false,
			[]string{"replaced all 2 occurrences"}},
		{"not found", "alpha\n", map[string]any{"old_string": "beta", "new_string": "gamma"}, "", true,
			[]string{"old_string was not found in f.txt"}},
		{"indentation differs", "func f() {\n\treturn 1\n}\n", map[string]any{"old_string": "func f() {\n    return 1\n}", "new_string": "x"}, "", true,
			[]string{"whitespace is ignored starts at line 1"}},
		{"line numbers pasted", "alpha\nbeta\n", map[string]any{"old_string": "     1\talpha\n     2\tbeta", "new_string": "x"}, "", true,
			[]string{"line-number prefixes"}},
		{"identical", "a\n", map[string]any{"old_string": "a", "new_string": "a"}, "", true,
			[]string{"identical"}},
		{"CRLF kept", "one\r\ntwo\r\nthree\r\n", map[string]any{"old_string": "one\ntwo\n", "new_string": "1\n2\n2.5\n"}, "1\r\n2\r\n2.5\r\nthree\r\n", false, nil},
		{"CRLF single line with new lines", "one\r\ntwo\r\n", map[string]any{"old_string": "one", "new_string": "one\nhalf"}, "one\r\nhalf\r\ntwo\r\n", false, nil},
		{"empty old string on a non-empty file", "a\n", map[string]any{"old_string": "", "new_string": "b"}, "", true,
			[]string{"old_string is empty"}},
		{"multi-line unique", "if x {\n\ty()\n}\nif x {\n\tz()\n}\n", map[string]any{"old_string": "if x {\n\tz()", "new_string": "if x {\n\tw()"}, "if x {\n\ty()\n}\nif x {\n\tw()\n}\n", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			writeFiles(t, env.Dir, map[string]string{"f.txt": tt.content})
			res := readThenEdit(t, env, "f.txt", tt.input)
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, res.Output)
			}
			want := tt.want
			if want == "" {
				want = tt.content
			}
			if got := readFile(t, filepath.Join(env.Dir, "f.txt")); got != want {
				t.Fatalf("file = %q, want %q", got, want)
			}
			mustContain(t, res.Output, tt.outputs...)
			if !tt.isError {
				if d, _ := res.Metadata["diff"].(string); !strings.Contains(d, "@@") {
					t.Fatalf("no unified diff in metadata: %v", res.Metadata)
				}
			}
		})
	}
}

func TestEditNeedsAFreshRead(t *testing.T) {
	env := newEnv(t)
	p := filepath.Join(env.Dir, "f.txt")
	writeFiles(t, env.Dir, map[string]string{"f.txt": "a\n"})
	res := call(t, env, "edit", map[string]any{"path": "f.txt", "old_string": "a", "new_string": "b"})
	if !res.IsError || readFile(t, p) != "a\n" {
		t.Fatalf("edited an unread file: %q", res.Output)
	}
	mustContain(t, res.Output, "has not been read in this session")

	call(t, env, "read", map[string]any{"path": "f.txt"})
	changeOnDisk(t, p, "a\nmore\n")
	res = call(t, env, "edit", map[string]any{"path": "f.txt", "old_string": "a", "new_string": "b"})
	if !res.IsError || readFile(t, p) != "a\nmore\n" {
		t.Fatalf("edited a stale file: %q", res.Output)
	}
	mustContain(t, res.Output, "changed on disk")

	// Two edits in a row need one read: the agent's own write is known.
	call(t, env, "read", map[string]any{"path": "f.txt"})
	for _, e := range [][2]string{{"a", "b"}, {"more", "less"}} {
		if res := call(t, env, "edit", map[string]any{"path": "f.txt", "old_string": e[0], "new_string": e[1]}); res.IsError {
			t.Fatal(res.Output)
		}
	}
	if got := readFile(t, p); got != "b\nless\n" {
		t.Fatalf("file = %q", got)
	}
}

func TestEditCreatesWithEmptyOldString(t *testing.T) {
	env := newEnv(t)
	res := call(t, env, "edit", map[string]any{"path": "sub dir/new.txt", "old_string": "", "new_string": "hello\n"})
	if res.IsError || readFile(t, filepath.Join(env.Dir, "sub dir/new.txt")) != "hello\n" {
		t.Fatalf("%+v", res)
	}
	res = call(t, env, "edit", map[string]any{"path": "missing.txt", "old_string": "x", "new_string": "y"})
	if !res.IsError {
		t.Fatal("edited a missing file")
	}
	mustContain(t, res.Output, "missing.txt does not exist")
}

func TestEditKeepsFileMode(t *testing.T) {
	env := newEnv(t)
	p := filepath.Join(env.Dir, "run.sh")
	if err := os.WriteFile(p, []byte("echo a\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if res := readThenEdit(t, env, "run.sh", map[string]any{"old_string": "a", "new_string": "b"}); res.IsError {
		t.Fatal(res.Output)
	}
	info, _ := os.Stat(p)
	if info.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v", info.Mode())
	}
}
