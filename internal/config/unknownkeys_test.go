package config

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestUnknownConfigKeysWarn: a typo at any depth of a user or project
// file is named with its file and line, and the rest of the file still
// applies; the keys of maps (model and server names) and the object forms
// of verify and sandbox are known.
func TestUnknownConfigKeysWarn(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	user := filepath.Join(home, ".config", "agent", "config.json")
	writeJSON(t, user, `{
  "model": "gpt-4o",
  "permisions": {"bash": "allow"},
  "tools": {"bash": {"timeout_s": 5, "timeuot_s": 9}},
  "models": {"my-model": {"context_window": 1000, "price": {"input": 1, "inptu": 2}}},
  "mcp": {"srv": {"command": "x", "comand": "y"}},
  "verify": {"enabled": true, "commands": ["go test"]},
  "sandbox": {"mode": "read-only", "network": "off", "writable": []},
  "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "true", "timout": 3}]}]},
  "Budget": 2
}`)
	project := filepath.Join(repo, ".agent", "config.json")
	writeJSON(t, project, "{\n  \"mode\": \"plan\",\n  \"ui\": {\"mdoe\": \"inline\"}\n}")
	c, err := Load(Flags{}, repo, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "gpt-4o" || c.Tools.BashTimeoutS != 5 || c.Mode != ModePlan {
		t.Errorf("the known keys did not apply: model %q timeout %d mode %q", c.Model, c.Tools.BashTimeoutS, c.Mode)
	}
	want := []string{
		fmt.Sprintf("%s:3: unknown key %q is ignored", user, "permisions"),
		fmt.Sprintf("%s:4: unknown key %q is ignored", user, "tools.bash.timeuot_s"),
		fmt.Sprintf("%s:5: unknown key %q is ignored", user, "models.my-model.price.inptu"),
		fmt.Sprintf("%s:6: unknown key %q is ignored", user, "mcp.srv.comand"),
		fmt.Sprintf("%s:9: unknown key %q is ignored", user, "hooks.PreToolUse.hooks.timout"),
		fmt.Sprintf("%s:3: unknown key %q is ignored", project, "ui.mdoe"),
	}
	var got []string
	for _, w := range c.Warnings {
		if strings.Contains(w, "unknown key") {
			got = append(got, w)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestUnknownKeysOfAShape covers the walker alone: embedded fields,
// arrays of objects, free-form values and broken JSON.
func TestUnknownKeysOfAShape(t *testing.T) {
	type inner struct {
		A int `json:"a"`
	}
	type shape struct {
		inner
		List []inner        `json:"list"`
		Raw  any            `json:"raw"`
		M    map[string]int `json:"m"`
	}
	for _, tt := range []struct{ in, want string }{
		{`{"a": 1, "list": [{"a": 1}, {"b": 2}], "raw": {"z": 1}, "m": {"k": 1}}`, "list.b@1"},
		{"{\n\"x\": [1, {\"y\": 2}]\n}", "x@2"},
		{`{"a": 1, "q": `, "q@1"},
		{`[]`, ""},
	} {
		var got []string
		for _, k := range unknownKeys([]byte(tt.in), reflect.TypeOf(shape{})) {
			got = append(got, fmt.Sprintf("%s@%d", k.path, k.line))
		}
		if g := strings.Join(got, ","); g != tt.want {
			t.Errorf("unknownKeys(%s) = %q, want %q", tt.in, g, tt.want)
		}
	}
}
