// Package tokens estimates token counts and keeps the one calculator of a
// session's context size.
//
// The calculator's total is the only "tokens used" number in the program:
// the status bar, /context, `agent context --json` and the compaction
// trigger all read Calculator.Reading. It is anchored on the last call's
// real usage and adds estimates only for what was added since:
//
//	total = lastInput + lastOutput + estimate(text added after the last call)
//
// A call's reported usage becomes lastInput only when it is plausible
// against our own count of the request (usagesanity.go); a suspect report
// is shown, not used.
//
// Estimators are deliberately cheap and never block: chars/4 for every model,
// and for OpenAI model families a BPE tokenizer whose tables load in the
// background on first use (until then, chars/4 answers).
package tokens

import "strings"

// Estimator counts the tokens a text costs when sent to a model.
// Implementations are safe for concurrent use and never block.
type Estimator interface {
	Count(text string) int
}

// Chars is the fallback estimator: one token per four bytes, rounded up.
//
// It counts bytes rather than runes on purpose: BPE tokenizers work on
// UTF-8 bytes, so for ASCII (code, logs, JSON) both are the same, while for
// text outside ASCII a rune costs two to four bytes and usually at least one
// token — runes/4 would underestimate CJK text about fourfold, bytes/4 only
// slightly. Underestimating is the dangerous direction (an overflowing
// request). It is also O(1): len(s) needs no scan.
type Chars struct{}

// Count returns ⌈len(text)/4⌉.
func (Chars) Count(text string) int { return (len(text) + 3) / 4 }

// Token formatting overhead of the chat format, as OpenAI documents it for
// its chat models: every message costs a few tokens for its role and
// delimiters, and every request a few more to prime the reply.
const (
	TokensPerMessage   = 4
	TokensReplyPriming = 3
)

// MessageOverhead returns the formatting overhead of a request carrying the
// given number of messages: TokensPerMessage each plus TokensReplyPriming.
func MessageOverhead(messages int) int64 {
	if messages < 0 {
		messages = 0
	}
	return int64(messages)*TokensPerMessage + TokensReplyPriming
}

// NewEstimator returns the best estimator for a model name. Names of OpenAI
// model families get a tokenizer (o200k_base for gpt-4o, gpt-4.1, gpt-4.5,
// gpt-5, o1/o3/o4, chatgpt-* and gpt-oss; cl100k_base for the other gpt-4
// and gpt-3.5 models); a provider prefix such as "openai/" is ignored.
// Every other model gets Chars.
//
// NewEstimator itself is cheap: the tokenizer's tables are loaded by a
// background goroutine started on the first Count (or Ready), and Count
// answers with Chars until they are loaded.
func NewEstimator(model string) Estimator {
	if enc := encodingFor(model); enc != "" {
		return &Tokenizer{loader: loaderFor(enc)}
	}
	return Chars{}
}

// encodingFor names the BPE encoding of an OpenAI model family, or "".
func encodingFor(model string) string {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	isFamily := func(prefix string) bool {
		// "o1" must not match "o1x-something-else": require the end or a separator.
		if !strings.HasPrefix(name, prefix) {
			return false
		}
		rest := name[len(prefix):]
		return rest == "" || strings.ContainsRune("-.:_", rune(rest[0]))
	}
	switch {
	case strings.HasPrefix(name, "gpt-4o"), strings.HasPrefix(name, "gpt-4.1"),
		strings.HasPrefix(name, "gpt-4.5"), strings.HasPrefix(name, "gpt-5"),
		strings.HasPrefix(name, "chatgpt-"), strings.HasPrefix(name, "gpt-oss"),
		isFamily("o1"), isFamily("o3"), isFamily("o4"):
		return encodingO200k
	case strings.HasPrefix(name, "gpt-4"), strings.HasPrefix(name, "gpt-3.5"):
		return encodingCl100k
	}
	return ""
}

// Ready returns a channel closed once est gives its most accurate counts:
// at once for Chars and other synchronous estimators, after the tables are
// loaded (or failed to load) for a Tokenizer. Calling it starts the load.
func Ready(est Estimator) <-chan struct{} {
	switch e := est.(type) {
	case *Tokenizer:
		return e.Ready()
	case Calibrated:
		return Ready(e.Estimator)
	case *Calibrated:
		return Ready(e.Estimator)
	}
	return closedChan
}

var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()
