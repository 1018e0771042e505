package loop

// skills.go: the session's skills (internal/skills) as the loop meets
// them — the list in the system prompt and the skill tool. The list is a
// system message of its own after the environment's (systemOf): made at
// the start of a turn with the rest of the prompt and unchanged through
// its steps, the same bytes while the skills on disk are the same, so the
// cached prefix holds; compaction never touches the system part. Its
// estimate is the "skills" row of the prompt lines (promptlines.go).

import (
	"sync/atomic"

	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/context/tokens"
	"github.com/ctxloop/agent/internal/skills"
	"github.com/ctxloop/agent/internal/tools"
)

// Skills are a session's skills (Options.Skills): the catalog, and the
// estimate of the list last put in the prompt.
type Skills struct {
	catalog *skills.Catalog
	tokens  atomic.Int64
}

// NewSkills returns the skills of catalog for Options.Skills.
func NewSkills(catalog *skills.Catalog) *Skills { return &Skills{catalog: catalog} }

// Catalog is the skills' catalog (nil for nil s), for the chat's /skills.
func (s *Skills) Catalog() *skills.Catalog {
	if s == nil {
		return nil
	}
	return s.catalog
}

// withList appends the skills list for a session in dir to the system
// messages msgs (nil s: msgs as they are).
func (s *Skills) withList(msgs []string, dir string) []string {
	if s == nil || s.catalog == nil {
		return msgs
	}
	list := skills.Prompt(s.catalog.Load(), dir, config.Home(getenv), skills.PromptBudgetChars)
	s.tokens.Store(SkillsTokens(list))
	if list == "" {
		return msgs
	}
	return append(msgs[:len(msgs):len(msgs)], list)
}

// tool is the skill tool, nil without skills.
func (s *Skills) tool() tools.Tool {
	if s == nil || s.catalog == nil {
		return nil
	}
	return skills.Tool(s.catalog)
}

// row is r with the skills row of the prompt lines: the list last made.
func (s *Skills) row(r tokens.Reading) tokens.Reading {
	if s != nil {
		r.Breakdown.PromptLines.Skills = s.tokens.Load()
	}
	return r
}

// SkillsTokens estimates a skills list as the prompt lines count a named
// line (a plain character estimate); 0 for none. `agent context` counts a
// stored session's row with it.
func SkillsTokens(list string) int64 {
	if list == "" {
		return 0
	}
	return int64(tokens.Chars{}.Count(list))
}
