package providertest

import (
	"testing"
)

// TestPromptCacheReadsTheCommonPrefix: a request that extends the one
// before is cached up to the end of it, one that changes an earlier
// message only up to that message, and without the cache nothing is.
func TestPromptCacheReadsTheCommonPrefix(t *testing.T) {
	s := New(t)
	cache := &PromptCache{}
	on := true
	s.Handle(func(req Request) Step {
		if !on {
			return Text("x")
		}
		return cache.Answer(req, Text("x"))
	})
	ctx := t.Context()
	const first = `{"role":"system","content":"you are a test system prompt, long enough to count"}`
	bodies := []string{
		`{"model":"m","messages":[` + first + `],"stream":true}`,
		`{"model":"m","messages":[` + first + `,{"role":"user","content":"more"}],"stream":true}`,
		`{"model":"m","messages":[{"role":"system","content":"changed"}],"stream":true}`,
	}
	var usage []map[string]any
	for _, b := range bodies {
		resp := post(t, ctx, s, b)
		res := readSSE(resp.Body)
		resp.Body.Close()
		usage = append(usage, assemble(res.chunks).usage)
	}
	cached := func(i int) int {
		return int(usage[i]["prompt_tokens_details"].(map[string]any)["cached_tokens"].(float64))
	}
	prompt := func(i int) int { return int(usage[i]["prompt_tokens"].(float64)) }
	if cached(0) != 0 || prompt(0) != len(first)/4 {
		t.Errorf("first: prompt %d cached %d, want %d and 0", prompt(0), cached(0), len(first)/4)
	}
	if cached(1) < prompt(0) || cached(1) >= prompt(1) {
		t.Errorf("extended: cached %d of %d, want ≥ %d (the first prompt)", cached(1), prompt(1), prompt(0))
	}
	if cached(2) > len(`{"role":"system","content":"`)/4 {
		t.Errorf("changed system: cached %d", cached(2))
	}
	on = false
	resp := post(t, ctx, s, bodies[1])
	res := readSSE(resp.Body)
	resp.Body.Close()
	if u := assemble(res.chunks).usage; int(u["prompt_tokens_details"].(map[string]any)["cached_tokens"].(float64)) != 0 {
		t.Errorf("cache off: usage %v", u)
	}
}
