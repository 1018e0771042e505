package skills

// parse.go: SKILL.md's front matter and body, a pure function of the
// file's bytes. The front matter is YAML (go.yaml.in/yaml/v3, the YAML
// organisation's maintained v3) between a first line "---" and the next
// line "---"; keys other than the ones read here (Claude Code's model,
// argument-hint, user-invocable…) are ignored.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ctxloop/agent/internal/termsafe"
)

// frontMatter is what is read of SKILL.md's YAML.
type frontMatter struct {
	Name         string `yaml:"name"`
	Description  string `yaml:"description"`
	AllowedTools any    `yaml:"allowed-tools"` // "Read, Bash(git:*)" or a list
	License      string `yaml:"license"`
	NoModel      bool   `yaml:"disable-model-invocation"`
}

// parsed is SKILL.md read: its fields, or why it is broken.
type parsed struct {
	fm     frontMatter
	tools  []string
	body   string
	broken string
}

// parseSkill reads SKILL.md's bytes. folder is the skill's folder name,
// which stands for a missing name.
func parseSkill(data []byte, folder string) parsed {
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return parsed{broken: "SKILL.md is not UTF-8 text"}
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	head, body, err := splitFrontMatter(text)
	if err != nil {
		return parsed{broken: err.Error()}
	}
	var p parsed
	if err := yaml.Unmarshal([]byte(head), &p.fm); err != nil {
		return parsed{broken: "front matter is not valid YAML: " + oneLine(strings.TrimPrefix(err.Error(), "yaml: "), 200)}
	}
	p.body = strings.TrimLeft(body, "\n")
	p.fm.Name = strings.TrimSpace(p.fm.Name)
	if p.fm.Name == "" {
		p.fm.Name = folder
	}
	if why := badName(p.fm.Name); why != "" {
		p.broken = why
		return p
	}
	p.fm.Description = oneLine(p.fm.Description, maxDescriptionRunes)
	if p.fm.Description == "" {
		p.broken = "front matter has no description"
		return p
	}
	p.fm.License = oneLine(p.fm.License, 200)
	p.tools, err = toolList(p.fm.AllowedTools)
	if err != nil {
		p.broken = err.Error()
	}
	return p
}

// splitFrontMatter returns the YAML between the opening "---" line and
// the closing one, and the rest.
func splitFrontMatter(text string) (head, body string, err error) {
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return "", "", errors.New("no front matter: SKILL.md must open with a line \"---\", then name and description")
	}
	for off := 0; off <= len(rest); {
		line, next, more := strings.Cut(rest[off:], "\n")
		if t := strings.TrimRight(line, " \t"); t == "---" || t == "..." {
			return rest[:off], next, nil
		}
		if !more {
			break
		}
		off += len(line) + 1
	}
	return "", "", errors.New("front matter is not closed: no line \"---\" after it")
}

// badName says why name is not a skill's name: the format's lower-case
// letters, digits and hyphens, at most 64, no hyphen at either end.
func badName(name string) string {
	ok := name != "" && len(name) <= maxNameRunes && !strings.HasPrefix(name, "-") && !strings.HasSuffix(name, "-")
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			ok = false
		}
	}
	if ok {
		return ""
	}
	return fmt.Sprintf("name %q is not a skill name (lower-case letters, digits and hyphens, at most %d)", oneLine(name, maxNameRunes+8), maxNameRunes)
}

// toolList reads allowed-tools: a comma- or space-separated string, or a
// list of strings.
func toolList(v any) ([]string, error) {
	var raw []string
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		raw = splitTools(t)
	case []any:
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil, errors.New("allowed-tools is not a list of tool names")
			}
			raw = append(raw, s)
		}
	default:
		return nil, errors.New("allowed-tools is not a list of tool names")
	}
	var out []string
	for _, s := range raw {
		if s = oneLine(s, 200); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// splitTools splits "Read, Bash(git add:*) Grep" at commas, and at spaces
// outside parentheses.
func splitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth = max(depth-1, 0)
		case r == ',' || depth == 0 && (r == ' ' || r == '\t'):
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// oneLine is s on one line, terminal escapes removed, white space
// collapsed, at most n runes (an ellipsis marks a cut).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(termsafe.Strip(s)), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:max(n-1, 0)])) + "…"
}
