package skills

// waiting.go: the project's skills that wait for the user's approval, as
// a session's start tells of them once (the chat's notice, `agent run`'s
// line on stderr): a project's skill is never listed to the model until
// approved, so a user who does not know of it would not find it but by
// /skills.

import (
	"fmt"
	"strings"
)

// waitingNamesShown bounds the names a notice spells out.
const waitingNamesShown = 5

// Waiting returns the project's skills that wait for approval: not
// approved (never, or not as their SKILL.md is now), not broken.
func (s Set) Waiting() []Skill {
	var out []Skill
	for _, sk := range s.Skills {
		if sk.Source == SourceProject && sk.Broken == "" && !sk.Approved {
			out = append(out, sk)
		}
	}
	return out
}

// WaitingNotice is the one line that tells of set's waiting skills, ""
// when none waits; review says how the user reviews them ("/skills").
func WaitingNotice(set Set, review string) string {
	waiting := set.Waiting()
	if len(waiting) == 0 {
		return ""
	}
	var names []string
	for i, sk := range waiting {
		if i == waitingNamesShown {
			names[i-1] += fmt.Sprintf(" and %d more", len(waiting)-i)
			break
		}
		names = append(names, sk.Name)
	}
	noun, why := "skills", "they are not loaded, since their scripts would run; review them"
	if len(waiting) == 1 {
		noun, why = "skill", "it is not loaded, since its scripts would run; review it"
	}
	return fmt.Sprintf("this project has %d %s not yet approved (%s): %s with %s",
		len(waiting), noun, strings.Join(names, ", "), why, review)
}
