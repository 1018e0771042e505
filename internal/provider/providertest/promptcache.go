package providertest

// A prompt cache as a real provider keeps one. PromptCache.Answer gives a
// step's AutoUsageChunk the prompt in tokens of the prompt's bytes
// (PromptBytes, at four bytes a token) and, as cached, the longest prefix
// it shares with any of the last cachedPrompts prompts answered. A
// request that extends the one before it is therefore cached up to the end
// of that one (cached[n] ≥ prompt[n-1]); one that changes a byte of the
// tools or of an earlier message is cached only up to that byte.
//
// A test plays it from a Handle function:
//
//	cache := &providertest.PromptCache{}
//	srv.Handle(func(req providertest.Request) providertest.Step {
//		return cache.Answer(req, providertest.Text("hi"))
//	})

import (
	"encoding/json"
	"sync"
)

// cachedPrompts is how many prompts the cache holds: enough for a step's
// request and the summary requests beside it, few enough that a long
// scripted session stays quick.
const cachedPrompts = 8

// PromptCache is a provider's prompt cache; the zero value is empty and
// ready. It is safe for concurrent use.
type PromptCache struct {
	mu      sync.Mutex
	prompts [][]byte
}

// Answer returns step with its AutoUsageChunks reporting req's prompt as
// the cache counts it, and records req's prompt.
func (c *PromptCache) Answer(req Request, step Step) Step {
	tokens, cached := c.read(PromptBytes(req.Body))
	chunks := make([]Chunk, len(step.Chunks))
	for i, ch := range step.Chunks {
		if ch.autoUsage {
			ch.prompt = &[2]int{tokens, cached}
		}
		chunks[i] = ch
	}
	step.Chunks = chunks
	return step
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

// read records prompt and returns its tokens and those read from the
// cache: the longest common prefix with a prompt it holds.
func (c *PromptCache) read(prompt []byte) (tokens, cached int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	best := 0
	for _, p := range c.prompts {
		best = max(best, commonPrefix(p, prompt))
	}
	c.prompts = append(c.prompts, prompt)
	if len(c.prompts) > cachedPrompts {
		c.prompts = c.prompts[1:]
	}
	return max(1, len(prompt)/4), best / 4
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
