package skills

// prompt.go: the system prompt's list of skills, a pure function of a
// Set. It must be the same bytes for the same skills (the prompt cache
// keeps the system part), so it depends on nothing but the skills: names
// sorted, folders as given, no counts of time or size.

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// PromptBudgetChars bounds the list in the system prompt (about 1,500
// tokens): past it the longest descriptions are cut first, and past that
// the skills that do not fit are counted, not listed.
const PromptBudgetChars = 6000

// minDescriptionRunes is the least a cut description keeps before skills
// are left out of the list instead.
const minDescriptionRunes = 60

// PromptHeader opens the list.
const PromptHeader = "Skills: instructions and files for particular tasks, loaded on demand. When a task matches a skill's description, call the skill tool with its name before you start, then follow what it says; its scripts and references are in its folder, to read and run with the usual tools."

// Prompt is the system prompt's list of the usable skills the model may
// load — name, description and folder (relative to dir when inside it,
// ~/ for the home's) — within budget characters; "" when there are none.
func Prompt(set Set, dir, home string, budget int) string {
	type row struct{ head, desc string }
	var rows []row
	for _, sk := range set.Usable() {
		if sk.ModelHidden {
			continue
		}
		rows = append(rows, row{head: "- " + sk.Name + " (" + where(sk.Dir, dir, home) + "): ", desc: sk.Description})
	}
	if len(rows) == 0 {
		return ""
	}
	fixed := len(PromptHeader) + 1
	descs := make([]int, len(rows))
	for i, r := range rows {
		fixed += len(r.head) + 1
		descs[i] = utf8.RuneCountInString(r.desc)
	}
	n := len(rows) // rows listed
	limit := -1    // runes a description keeps (-1: all)
	for {
		cap := capFor(descs[:n], budget-fixed) // -1: all fit whole
		if cap < 0 || cap >= minDescriptionRunes || n == 1 {
			limit = cap
			break
		}
		n--
		fixed -= len(rows[n].head) + 1
	}
	var b strings.Builder
	b.WriteString(PromptHeader)
	b.WriteByte('\n')
	for _, r := range rows[:n] {
		b.WriteString(r.head)
		b.WriteString(cut(r.desc, limit))
		b.WriteByte('\n')
	}
	if left := len(rows) - n; left > 0 {
		fmt.Fprintf(&b, "- … and %d more skills not listed here for room; the skill tool loads any of them by name.\n", left)
	}
	return strings.TrimRight(b.String(), "\n")
}

// capFor is the most runes each description may keep so that together
// they take at most room: the longest are cut first (a water level). It is
// -1 when all fit whole, and never below 0.
func capFor(descs []int, room int) int {
	total := 0
	for _, d := range descs {
		total += d
	}
	if total <= room {
		return -1
	}
	if room <= 0 {
		return 0
	}
	// The largest level at which sum(min(d, level)) <= room.
	lo, hi := 0, 0
	for _, d := range descs {
		hi = max(hi, d)
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		sum := 0
		for _, d := range descs {
			sum += min(d, mid)
		}
		if sum <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// cut keeps n runes of s (an ellipsis in the last when it cuts); n < 0
// keeps all.
func cut(s string, n int) string {
	if n < 0 || utf8.RuneCountInString(s) <= n {
		return s
	}
	if n == 0 {
		return ""
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// where is a skill's folder as the prompt shows it, on one line.
func where(skillDir, dir, home string) string {
	return oneLine(whereRaw(skillDir, dir, home), 400)
}

func whereRaw(skillDir, dir, home string) string {
	if dir != "" {
		if rel, err := filepath.Rel(dir, skillDir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	if home != "" {
		if rel, err := filepath.Rel(home, skillDir); err == nil && !strings.HasPrefix(rel, "..") {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return skillDir
}
