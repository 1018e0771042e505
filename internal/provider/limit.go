package provider

// Context limits stated by context-length errors. A server that refuses a
// request for its size often says how large the request was and what the
// limit is; the loop remembers the limit for the session and uses both
// figures to correct its own count.

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// limitPatterns find the limit and the prompt's size in the messages of
// context-length errors. Each pattern names its groups "limit" and "prompt";
// the first match of each wins.
var limitPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		// OpenAI, vLLM, DeepSeek, OpenRouter: "This model's maximum context
		// length is 128000 tokens. However, your messages resulted in 130000
		// tokens" / "you requested 5000 tokens (4000 in the messages, 1000 in
		// the completion)" / "and your request has 3500 input tokens".
		regexp.MustCompile(`maximum context length is (?P<limit>[\d,]+)`),
		regexp.MustCompile(`\((?P<prompt>[\d,]+) in the messages`),
		regexp.MustCompile(`(?:messages )?resulted in (?P<prompt>[\d,]+) tokens`),
		regexp.MustCompile(`request has (?P<prompt>[\d,]+) input tokens`),
		// Anthropic-compatible: "prompt is too long: 210000 tokens > 200000 maximum".
		regexp.MustCompile(`(?P<prompt>[\d,]+) tokens > (?P<limit>[\d,]+)`),
		// xAI: "maximum prompt length is 131072 but the request contains 150000 tokens".
		regexp.MustCompile(`maximum prompt length is (?P<limit>[\d,]+)`),
		regexp.MustCompile(`request contains (?P<prompt>[\d,]+) tokens`),
		// Gemini-compatible: "The input token count (1200000) exceeds the
		// maximum number of tokens allowed (1048576)".
		regexp.MustCompile(`input token count \((?P<prompt>[\d,]+)\) exceeds the maximum number of tokens allowed \((?P<limit>[\d,]+)\)`),
		// llama.cpp: "n_prompt_tokens":5000,"n_ctx":4096 and "the prompt is
		// too long (5000 tokens, max 4092)"; Ollama-style "context size 4096".
		regexp.MustCompile(`n_prompt_tokens\W+(?P<prompt>\d+)`),
		regexp.MustCompile(`n_ctx\W+(?P<limit>\d+)`),
		regexp.MustCompile(`\((?P<prompt>[\d,]+) tokens, max (?P<limit>[\d,]+)\)`),
		regexp.MustCompile(`context (?:size|window|length) (?:of |is )?(?P<limit>[\d,]+)`),
	}
})

// ContextLimit reads what a context-length error states: the limit in
// tokens and the size of the refused prompt, each 0 when the error does not
// say. It returns zeros for any other error.
func ContextLimit(err error) (limit, prompt int64) {
	var pe *Error
	if !errors.As(err, &pe) || pe.Class != ClassContextOverflow {
		return 0, 0
	}
	return parseContextLimit(strings.ToLower(pe.Message))
}

func parseContextLimit(text string) (limit, prompt int64) {
	for _, re := range limitPatterns() {
		m := re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		for i, name := range re.SubexpNames() {
			n, err := strconv.ParseInt(strings.ReplaceAll(m[i], ",", ""), 10, 64)
			if err != nil || n <= 0 {
				continue
			}
			switch {
			case name == "limit" && limit == 0:
				limit = n
			case name == "prompt" && prompt == 0:
				prompt = n
			}
		}
	}
	return limit, prompt
}
