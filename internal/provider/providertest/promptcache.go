package providertest

// A prompt cache as a real provider keeps one: when SetPromptCache is on,
// AutoUsageChunk reports the prompt in tokens of the prompt's bytes
// (PromptBytes, at four bytes a token) and, as cached, the longest prefix
// it shares with any of the last cachedPrompts prompts it reported on. A request that extends the one before
// it is therefore cached up to the end of that one: cached[n] ≥ prompt[n-1];
// one that changes a byte of the tools or of an earlier message is cached
// only up to that byte.

import (
	"encoding/json"
)

// cachedPrompts is how many prompts the cache holds: enough for a step's
// request and the summary requests beside it, few enough that a long
// scripted session stays quick.
const cachedPrompts = 8

// SetPromptCache turns the prompt cache on or off (off by default: then
// AutoUsageChunk counts the whole body and reports nothing cached).
func (s *Server) SetPromptCache(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cacheOn = on
}

// PromptBytes is what a provider tokenises of a request body, in the
// order it does: the tools array, then each message's JSON. It is nil
// when the body does not decode.
func PromptBytes(body []byte) []byte {
	var req struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    json.RawMessage   `json:"tools"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	out := append([]byte(nil), req.Tools...)
	for _, m := range req.Messages {
		out = append(out, m...)
	}
	return out
}

// cachedPrompt records prompt and returns its tokens and those read from
// the cache: the longest common prefix with an earlier prompt. It reports
// false when the cache is off.
func (s *Server) cachedPrompt(prompt []byte) (tokens, cached int, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.cacheOn {
		return 0, 0, false
	}
	best := 0
	for _, p := range s.prompts {
		best = max(best, commonPrefix(p, prompt))
	}
	s.prompts = append(s.prompts, prompt)
	if len(s.prompts) > cachedPrompts {
		s.prompts = s.prompts[1:]
	}
	return max(1, len(prompt)/4), best / 4, true
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
