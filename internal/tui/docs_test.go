package tui

// The words that list the chat's keys and commands — the README's "In the
// chat" table and /help (overlay/help.go) — against the code: every slash
// command they name exists, every command exists in both, and every key
// they name is bound somewhere in the chat's code. It reads the lists
// rather than holding a copy of them, so keys and commands added on other
// branches (Ctrl+G, Ctrl+R, /mcp) are checked the same way once merged.

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeChatTable is the first column of each row of the README's "In the
// chat" table.
func readmeChatTable(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## In the chat\n")
	if !ok {
		t.Fatal(`README.md has no "## In the chat" section`)
	}
	var cells []string
	inTable := false
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cell := strings.TrimSpace(strings.Split(line, "|")[1])
		if cell == "key or command" || strings.HasPrefix(cell, "---") {
			continue
		}
		cells = append(cells, cell)
	}
	if len(cells) < 20 {
		t.Fatalf("read %d rows of the README's chat table; the parse is broken", len(cells))
	}
	return cells
}

// helpLists are the key column of /help's keys (overlay/help.go's
// literal pairs).
func helpKeys(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("overlay/help.go")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, m := range regexp.MustCompile(`\{"([^"]*)", "`).FindAllStringSubmatch(string(src), -1) {
		if m[1] != "" && m[1] != "inline mode" {
			keys = append(keys, m[1])
		}
	}
	if len(keys) < 15 {
		t.Fatalf("read %d keys from overlay/help.go; the parse is broken", len(keys))
	}
	return keys
}

// chatSource is the text of the chat's non-test Go files (this package and
// its overlays), where a key is bound as a string literal.
func chatSource(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, pattern := range []string{"*.go", "overlay/*.go"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") || f == filepath.Join("overlay", "help.go") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(data)
		}
	}
	return b.String()
}

var (
	slashRE = regexp.MustCompile("`/([a-z]+)")
	// keyRE finds a key in prose: Ctrl+X, Alt+↑, Shift+Tab, Enter, Esc….
	keyRE = regexp.MustCompile(`\b(?:(?:Ctrl|Alt|Shift)\+(?:[A-Za-z]\w*|↑|↓)|Enter|Esc|Tab|PgUp|PgDn|Backspace)\b|(?:Ctrl|Alt|Shift)\+[↑↓]`)
)

// keyName is a key as the chat's code spells it ("ctrl+q", "pgdown").
func keyName(k string) string {
	k = strings.ToLower(k)
	k = strings.NewReplacer("↑", "up", "↓", "down", "pgdn", "pgdown").Replace(k)
	return k
}

func TestDocumentedCommandsExist(t *testing.T) {
	known := map[string]bool{}
	for _, c := range commands {
		known[c.name] = true
	}
	readme := map[string]bool{}
	for _, cell := range readmeChatTable(t) {
		for _, m := range slashRE.FindAllStringSubmatch(cell, -1) {
			readme[m[1]] = true
			if !known[m[1]] && m[1] != "name" { // "/name": a custom command
				t.Errorf("README's chat table lists /%s, which is no command (internal/tui/commands.go)", m[1])
			}
		}
	}
	for _, c := range commands {
		if !readme[c.name] {
			t.Errorf("/%s is a command the README's chat table does not list", c.name)
		}
	}
	// /help lists the commands from the same table the chat runs.
	for _, c := range commands {
		if name, _, ok := parseCommand("/" + c.name); !ok || name != c.name {
			t.Errorf("/%s is listed but does not parse", c.name)
		}
	}
}

func TestDocumentedKeysAreBound(t *testing.T) {
	src := chatSource(t)
	bound := func(k string) bool { return strings.Contains(src, `"`+k+`"`) }
	// Keys the terminal or the text area handles, not the chat's code.
	terminal := map[string]bool{"shift+drag": true, "wheel": true, "click": true}

	for _, entry := range helpKeys(t) {
		switch {
		case strings.HasPrefix(entry, "@"):
			if !strings.Contains(src, `"@"`) {
				t.Errorf("/help lists %s but nothing handles \"@\"", entry)
			}
			continue
		case strings.HasPrefix(entry, "!"):
			if !strings.Contains(src, `"!"`) {
				t.Errorf("/help lists %s but nothing handles \"!\"", entry)
			}
			continue
		}
		for _, k := range strings.Fields(entry) {
			if strings.HasPrefix(k, "(") { // a condition, "esc (ui.vi)": not a key
				continue
			}
			name := keyName(k)
			if terminal[name] {
				continue
			}
			if !bound(name) {
				t.Errorf("/help lists %q (%q), which no code of the chat binds", entry, name)
			}
		}
	}
	for _, cell := range readmeChatTable(t) {
		for _, k := range keyRE.FindAllString(cell, -1) {
			if name := keyName(k); !bound(name) {
				t.Errorf("the README's chat table lists %s (%q), which no code of the chat binds", k, name)
			}
		}
	}
}

// TestHelpSaysEnterSteers: /help, the welcome tip and the README say what
// Enter and Tab do while the agent works (issue 32 item 6).
func TestHelpSaysEnterSteers(t *testing.T) {
	help, err := os.ReadFile("overlay/help.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"queued while the agent works", "your messages queue"} {
		for name, text := range map[string]string{"/help": string(help), "welcome": welcomeTipsSource(t)} {
			if strings.Contains(text, bad) {
				t.Errorf("%s still says %q: Enter steers, Tab queues", name, bad)
			}
		}
	}
	keys := helpKeys(t)
	for _, want := range []string{"@path", "!command"} {
		if !slices.Contains(keys, want) {
			t.Errorf("/help does not mention %s", want)
		}
	}
}

func welcomeTipsSource(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("welcome.go")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
