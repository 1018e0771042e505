package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	pt "github.com/ctxloop/agent/internal/provider/providertest"
)

// A vendor-faithful fake of each family: it streams what the vendor
// streams (its signatures, reasoning fields and call ids), and validates
// the next request as the vendor does, answering the vendor's own 400
// when a field it requires back is missing or changed, or when a field it
// refuses is sent. Three tool steps, then an answer.

// wireMsg is a message of a request as the fake reads it.
type wireMsg map[string]json.RawMessage

func (m wireMsg) str(k string) string {
	var s string
	_ = json.Unmarshal(m[k], &s)
	return s
}

func (m wireMsg) calls() []wireMsg {
	var cs []wireMsg
	_ = json.Unmarshal(m["tool_calls"], &cs)
	return cs
}

// sameJSON reports whether raw holds the JSON value of want.
func sameJSON(raw json.RawMessage, want string) bool {
	var a, b any
	if json.Unmarshal(raw, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

type roundtripFamily struct {
	name, model string
	// step is the n-th answer's chunks (n from 1) with a call "c<n>".
	step func(n int) []pt.Chunk
	// refuse is the vendor's error body for the n-th step's assistant
	// message (with its calls) as the request carries it; "" accepts it.
	refuse func(n int, m wireMsg) string
	// refused fields: any of them on any message is refused.
	refused []string
}

func chunk(delta string) pt.Chunk {
	return pt.JSONChunk(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":` + delta + `}]}`)
}

func callDelta(n int, extra string) string {
	return fmt.Sprintf(`{"tool_calls":[{"index":0,"id":"c%d","type":"function",%s"function":{"name":"read","arguments":"{\"path\":\"notes%d.txt\"}"}}]}`, n, extra, n)
}

func finishChunk() pt.Chunk {
	return pt.JSONChunk(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}`)
}

const (
	geminiMissing    = `[{"error":{"code":400,"message":"Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call ` + "`default_api:read`" + ` , position 2. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.","status":"INVALID_ARGUMENT"}}]`
	anthropicMissing = `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages.1.content.0.type: Expected ` + "`thinking`" + ` or ` + "`redacted_thinking`" + `, but found ` + "`tool_use`" + `. When ` + "`thinking`" + ` is enabled, a final ` + "`assistant`" + ` message must start with a thinking block.\"}}","provider_name":"Anthropic"}}}`
	orGeminiMissing  = `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"Function call is missing a thought_signature in functionCall parts.","provider_name":"Google AI Studio"}}}`
	kimiMissing      = `{"error":{"message":"thinking is enabled but reasoning_content is missing in assistant tool call message at index 2","type":"invalid_request_error"}}`
	deepseekMissing  = `{"error":{"message":"Missing ` + "`reasoning_content`" + ` field in the assistant message at message index 2. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`
	unrecognised     = `{"error":{"message":"Unrecognized request argument supplied: %s","type":"invalid_request_error","param":null,"code":null}}`
)

func roundtripFamilies() []roundtripFamily {
	reasoningContent := func(who, missing string) roundtripFamily {
		return roundtripFamily{
			step: func(n int) []pt.Chunk {
				return []pt.Chunk{chunk(fmt.Sprintf(`{"role":"assistant","reasoning_content":"%s thinks %d."}`, who, n)),
					chunk(callDelta(n, "")), finishChunk()}
			},
			refuse: func(n int, m wireMsg) string {
				if m.str("reasoning_content") != fmt.Sprintf("%s thinks %d.", who, n) {
					return missing
				}
				return ""
			},
			refused: []string{"reasoning_details", "extra_content", "reasoning"},
		}
	}
	kimi := reasoningContent("Kimi", kimiMissing)
	kimi.name, kimi.model = "kimi", "kimi-k2-thinking"
	deepseek := reasoningContent("DeepSeek", deepseekMissing)
	deepseek.name, deepseek.model = "deepseek", "deepseek-v4-flash"
	return []roundtripFamily{
		{name: "gemini-openai-compat", model: "gemini-3-pro-preview",
			step: func(n int) []pt.Chunk {
				return []pt.Chunk{
					chunk(fmt.Sprintf(`{"role":"assistant","content":"Step %d.","extra_content":{"google":{"thought_signature":"tsig-%d"}}}`, n, n)),
					chunk(callDelta(n, fmt.Sprintf(`"extra_content":{"google":{"thought_signature":"sig-%d"}},`, n))), finishChunk()}
			},
			refuse: func(n int, m wireMsg) string {
				for _, c := range m.calls() {
					// Its own signature, or Google's documented stand-in
					// for a call that has none.
					if !sameJSON(c["extra_content"], fmt.Sprintf(`{"google":{"thought_signature":"sig-%d"}}`, n)) &&
						!sameJSON(c["extra_content"], `{"google":{"thought_signature":"skip_thought_signature_validator"}}`) {
						return geminiMissing
					}
				}
				return ""
			},
			refused: []string{"reasoning_content", "reasoning_details"}},
		{name: "openrouter-anthropic", model: "anthropic/claude-sonnet-4.5",
			step: func(n int) []pt.Chunk {
				d := func(s string) pt.Chunk {
					return chunk(`{"role":"assistant","reasoning":"","reasoning_details":[` + s + `]}`)
				}
				return []pt.Chunk{
					pt.Comment("OPENROUTER PROCESSING"),
					d(`{"type":"reasoning.text","text":"Think ","format":"anthropic-claude-v1","index":0}`),
					d(fmt.Sprintf(`{"type":"reasoning.text","text":"%d.","format":"anthropic-claude-v1","index":0}`, n)),
					d(fmt.Sprintf(`{"type":"reasoning.text","signature":"asig-%d","format":"anthropic-claude-v1","index":0}`, n)),
					chunk(callDelta(n, "")), finishChunk()}
			},
			refuse: func(n int, m wireMsg) string {
				want := fmt.Sprintf(`[{"type":"reasoning.text","text":"Think %d.","format":"anthropic-claude-v1","index":0,"signature":"asig-%d"}]`, n, n)
				if !sameJSON(m["reasoning_details"], want) {
					return anthropicMissing
				}
				return ""
			},
			refused: []string{"reasoning_content", "extra_content"}},
		{name: "openrouter-gemini", model: "google/gemini-3.1-pro-preview",
			step: func(n int) []pt.Chunk {
				return []pt.Chunk{
					chunk(fmt.Sprintf(`{"role":"assistant","reasoning":"Plan %d.","reasoning_details":[{"type":"reasoning.text","text":"Plan %d.","format":"google-gemini-v1","index":0}]}`, n, n)),
					chunk(fmt.Sprintf(`{"reasoning_details":[{"type":"reasoning.encrypted","data":"gsig-%d","id":"c%d","format":"google-gemini-v1","index":1}],`, n, n) +
						strings.TrimPrefix(callDelta(n, ""), "{")),
					finishChunk()}
			},
			refuse: func(n int, m wireMsg) string {
				want := fmt.Sprintf(`[{"type":"reasoning.text","text":"Plan %d.","format":"google-gemini-v1","index":0},{"type":"reasoning.encrypted","data":"gsig-%d","id":"c%d","format":"google-gemini-v1","index":1}]`, n, n, n)
				if !sameJSON(m["reasoning_details"], want) {
					return orGeminiMissing
				}
				return ""
			},
			refused: []string{"reasoning_content", "extra_content"}},
		kimi,
		deepseek,
		{name: "openai-o-series", model: "o3",
			step: func(n int) []pt.Chunk {
				return []pt.Chunk{chunk(`{"role":"assistant","content":null,"refusal":null}`), chunk(callDelta(n, "")), finishChunk()}
			},
			refuse:  func(int, wireMsg) string { return "" },
			refused: []string{"reasoning_content", "reasoning_details", "extra_content", "reasoning"}},
		{name: "local-llama-cpp", model: "local-coder",
			step: func(n int) []pt.Chunk {
				// llama.cpp with --reasoning-format deepseek streams
				// reasoning_content; nothing asks for it back.
				return []pt.Chunk{chunk(fmt.Sprintf(`{"role":"assistant","reasoning_content":"local %d"}`, n)), chunk(callDelta(n, "")), finishChunk()}
			},
			refuse:  func(int, wireMsg) string { return "" },
			refused: []string{"reasoning_content", "reasoning_details", "extra_content", "reasoning"}},
	}
}

// handler answers a request as the family's vendor does: its 400 for a
// missing or refused field, else the next step (an answer after three).
func (f roundtripFamily) handler(req pt.Request) pt.Step {
	var body struct {
		Messages []wireMsg `json:"messages"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return pt.HTTPError(400, nil, `{"error":{"message":"bad json"}}`)
	}
	n := 0 // the assistant messages with calls so far
	for _, m := range body.Messages {
		for _, k := range f.refused {
			if _, ok := m[k]; ok {
				return pt.HTTPError(400, nil, fmt.Sprintf(unrecognised, "messages[]."+k))
			}
		}
		if m.str("role") != "assistant" || len(m.calls()) == 0 {
			continue
		}
		n++
		if why := f.refuse(n, m); why != "" {
			return pt.HTTPError(400, nil, why)
		}
	}
	if n >= 3 {
		return pt.Text("Done after " + strconv.Itoa(n) + " reads.")
	}
	return pt.Reply(f.step(n + 1)...)
}

// TestE2ERoundtripFamilies drives the binary through three tool steps
// against each family's vendor-faithful fake: every step's request must
// carry back exactly what the vendor requires, and nothing it refuses.
func TestE2ERoundtripFamilies(t *testing.T) {
	for _, f := range roundtripFamilies() {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			for n := 1; n <= 3; n++ {
				if err := os.WriteFile(filepath.Join(e.work, fmt.Sprintf("notes%d.txt", n)), []byte("the notes\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			e.srv.Handle(f.handler)
			res := e.run("", "run", "--model", f.model, "Read the three notes.")
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			if !strings.Contains(res.stdout, "Done after 3 reads.") {
				t.Errorf("stdout %q", res.stdout)
			}
			if got := len(e.srv.Requests()); got != 4 {
				t.Errorf("%d requests, want 4 (three tool steps and the answer)", got)
			}
			if f.name == "gemini-openai-compat" {
				// The text part's signature goes back too (not enforced).
				last := e.srv.Requests()[3].Body
				for n := 1; n <= 3; n++ {
					if !strings.Contains(string(last), fmt.Sprintf(`"extra_content":{"google":{"thought_signature":"tsig-%d"}}`, n)) {
						t.Errorf("step %d's text signature is not sent back", n)
					}
				}
			}
			assertNoKey(t, e.home)
		})
	}
}

// TestE2ERoundtripSurvivesResume: the signatures are stored with their
// parts, so a session continued by another process (-c) sends them back.
func TestE2ERoundtripSurvivesResume(t *testing.T) {
	f := roundtripFamilies()[0] // Gemini
	e := newEnv(t)
	for n := 1; n <= 3; n++ {
		if err := os.WriteFile(filepath.Join(e.work, fmt.Sprintf("notes%d.txt", n)), []byte("the notes\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.srv.Handle(f.handler)
	if res := e.run("", "run", "--model", f.model, "Read the three notes."); res.code != 0 {
		t.Fatalf("first run: exit %d: %s", res.code, res.stderr)
	}
	res := e.run("", "run", "-c", "--model", f.model, "Once more.")
	if res.code != 0 {
		t.Fatalf("continued: exit %d: %s", res.code, res.stderr)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 5 || !strings.Contains(string(reqs[4].Body), "Once more.") {
		t.Fatalf("%d requests; want the continued one last", len(reqs))
	}
	for n := 1; n <= 3; n++ {
		if !strings.Contains(string(reqs[4].Body), fmt.Sprintf(`"thought_signature":"sig-%d"`, n)) {
			t.Errorf("the continued session's request lacks call %d's signature", n)
		}
	}
}

// TestE2EGeminiAfterAnotherModel: a session whose calls another model
// made (or that was stored before signatures were kept) carries on with
// Gemini 3: its unsigned calls go with Google's stand-in signature.
func TestE2EGeminiAfterAnotherModel(t *testing.T) {
	fams := roundtripFamilies()
	gemini, local := fams[0], fams[len(fams)-1]
	e := newEnv(t)
	for n := 1; n <= 3; n++ {
		if err := os.WriteFile(filepath.Join(e.work, fmt.Sprintf("notes%d.txt", n)), []byte("the notes\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.srv.Handle(local.handler)
	if res := e.run("", "run", "--model", local.model, "Read the three notes."); res.code != 0 {
		t.Fatalf("first run: exit %d: %s", res.code, res.stderr)
	}
	e.srv.Handle(gemini.handler)
	res := e.run("", "run", "-c", "--model", gemini.model, "Go on.")
	if res.code != 0 {
		t.Fatalf("continued with %s: exit %d: %s", gemini.model, res.code, res.stderr)
	}
	if last := e.srv.Requests()[4].Body; strings.Count(string(last), "skip_thought_signature_validator") != 3 {
		t.Errorf("want the stand-in on each of the three calls: %s", last)
	}
}
