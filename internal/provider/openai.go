package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// DefaultBaseURL is used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// maxErrorBodyBytes bounds how much of an error response is read.
const maxErrorBodyBytes = 64 << 10

// maxJSONBodyBytes bounds a non-streamed answer (a server that ignored
// stream:true).
const maxJSONBodyBytes = 32 << 20

type openAIProvider struct {
	baseURL string
	apiKey  string
	client  *http.Client
	headers map[string]string
	idle    time.Duration // <= 0: no idle timeout
	models  modelCache
	pre     *preconnector // nil: this provider does not preconnect (preconnect.go)
	effort  effortDialect // how the server takes Request.Effort (effort.go)
}

// NewOpenAI returns a Provider for any OpenAI-compatible chat-completions
// server (OpenAI, OpenRouter, vLLM, llama.cpp server, Ollama, LM Studio,
// DeepSeek, Groq, ...).
func NewOpenAI(cfg Config) Provider {
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	if base == "" {
		base = DefaultBaseURL
	}
	client := cfg.HTTPClient
	var pre *preconnector
	if client == nil {
		client, pre = newClient(base)
	}
	idle := cfg.StreamIdleTimeout
	if idle == 0 {
		idle = DefaultStreamIdleTimeout
	}
	return &openAIProvider{baseURL: base, apiKey: cfg.APIKey, client: client, headers: cfg.ExtraHeaders, idle: idle, pre: pre,
		effort: effortDialectOf(base)}
}

// Stream sends the request with stream:true and stream_options.include_usage.
// A server that rejects stream_options (some strict validators do) gets the
// request again without it.
func (p *openAIProvider) Stream(ctx context.Context, req Request) (Stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, &Error{Class: ClassCanceled, Err: err}
	}
	body := p.chatRequest(req, true)
	s, err := p.send(ctx, body, req)
	var pe *Error
	if err != nil && errors.As(err, &pe) && pe.Class == ClassBadRequest && strings.Contains(pe.Message, "stream_options") {
		s, err = p.send(ctx, p.chatRequest(req, false), req)
	}
	return s, err
}

// chatRequest builds the go-openai request.
func (p *openAIProvider) chatRequest(req Request, includeUsage bool) openai.ChatCompletionRequest {
	cr := openai.ChatCompletionRequest{
		Model:    req.Model,
		Messages: req.Messages,
		Tools:    req.Tools,
		Stream:   true,
		// The effort in OpenAI's dialect; the others' are added in send.
		ReasoningEffort: p.effort.topLevel(req.Effort),
	}
	if includeUsage {
		cr.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	if req.MaxTokens > 0 {
		if p.wantsMaxCompletionTokens(req.Model) {
			cr.MaxCompletionTokens = req.MaxTokens
		} else {
			cr.MaxTokens = req.MaxTokens
		}
	}
	if req.Temperature != nil {
		t := *req.Temperature
		if t == 0 {
			// go-openai omits a zero temperature; the smallest float is
			// zero to every sampler.
			t = math.SmallestNonzeroFloat32
		}
		cr.Temperature = t
	}
	return cr
}

// wantsMaxCompletionTokens reports whether the output cap must be sent as
// max_completion_tokens: OpenAI itself takes it for every model and refuses
// max_tokens for reasoning models; other servers know max_tokens best.
func (p *openAIProvider) wantsMaxCompletionTokens(model string) bool {
	if u, err := url.Parse(p.baseURL); err == nil && u.Hostname() == "api.openai.com" {
		return true
	}
	for _, prefix := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(model, prefix) {
			return true
		}
	}
	return false
}

func (p *openAIProvider) send(ctx context.Context, cr openai.ChatCompletionRequest, req Request) (Stream, error) {
	sent := onceFunc(req.Sent)
	defer sent() // a request that failed before its body's end
	payload, err := encodeRequest(cr, req.CacheBreakpoints, req.Encoded)
	if err != nil {
		return nil, &Error{Class: ClassBadRequest, Message: "encode request: " + err.Error(), Err: err}
	}
	payload = payload.withFields(p.effort.fields(req.Effort, req.MaxTokens))
	reqCtx, idle := watchIdle(ctx, p.idle)
	httpReq, err := http.NewRequestWithContext(reqCtx, http.MethodPost, p.baseURL+"/chat/completions", &sentReader{r: payload.reader(), left: payload.size, sent: sent})
	if err != nil {
		idle.release()
		return nil, &Error{Class: ClassOther, Message: "invalid base URL " + displayURL(p.baseURL), Err: err}
	}
	httpReq.ContentLength = int64(payload.size)
	httpReq.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(payload.reader()), nil }
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("Accept", "text/event-stream")
	httpReq.Header.Set("Cache-Control", "no-cache")
	if p.apiKey != "" {
		httpReq.Header.Set("Authorization", "Bearer "+p.apiKey)
	}
	for k, v := range p.headers {
		httpReq.Header.Set(k, v)
	}

	resp, err := p.client.Do(httpReq)
	if err != nil {
		idle.release()
		if idle.timedOut() && ctx.Err() == nil {
			return nil, p.idleError()
		}
		return nil, p.transportError(ctx, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer idle.release()
		defer resp.Body.Close()
		return nil, p.responseError(resp)
	}
	s := newStream(ctx, resp.Body, p.apiKey)
	s.idle, s.idleErr = idle, p.idleError
	s.maxTokens = req.MaxTokens
	switch mediaType(resp.Header.Get("Content-Type")) {
	case "application/json":
		s.loadJSON(activityReader{io.LimitReader(resp.Body, maxJSONBodyBytes), idle})
	case "text/html":
		idle.release()
		resp.Body.Close()
		return nil, &Error{Class: ClassOther, StatusCode: resp.StatusCode,
			Message: "the server answered with an HTML page, not a chat-completions stream (is " + displayURL(p.baseURL) + " an OpenAI-compatible API root?)"}
	}
	return s, nil
}

// idleError says the server sent no data for the idle timeout.
func (p *openAIProvider) idleError() *Error { return idleError(p.baseURL, p.idle) }

// transportError classifies a failure to get a response, naming the base URL
// (never the key).
func (p *openAIProvider) transportError(ctx context.Context, err error) *Error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return canceledError(ctxErr)
	}
	e := Classify(err)
	e.StatusCode = 0
	e.Message = redact(fmt.Sprintf("cannot reach %s: %s", displayURL(p.baseURL), e.Message), p.apiKey)
	return e
}

// responseError classifies an HTTP error response from its status, headers
// and (bounded) body.
func (p *openAIProvider) responseError(resp *http.Response) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyBytes))
	// Redact before anything cuts the text, so no piece of the key survives.
	body = []byte(redact(string(body), p.apiKey))
	ae, ok := parseAPIError(body)
	if !ok {
		ae = apiError{Message: plainErrorText(resp.StatusCode, body)}
	}
	msg := cleanMessage(ae.Message)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	class := classifyAPI(resp.StatusCode, ae.Code, ae.Type, ae.Message)
	outOfCredit := resp.StatusCode == http.StatusPaymentRequired || mentionsQuota(strings.ToLower(ae.Code+" "+ae.Message))
	if class == ClassOther && outOfCredit && !strings.Contains(strings.ToLower(msg), "billing") {
		msg += " (check the account's credits, plan and billing)"
	}
	return &Error{
		Class:      class,
		StatusCode: resp.StatusCode,
		Message:    msg,
		RetryAfter: parseRetryAfter(resp.Header),
		Err:        fmt.Errorf("POST %s/chat/completions: %s", displayURL(p.baseURL), resp.Status),
	}
}

var htmlTitle = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`) })

// plainErrorText is a short message for an error body that is not JSON: an
// HTML page's title, the first line of plain text, or the status text.
func plainErrorText(status int, body []byte) string {
	text := strings.TrimSpace(string(body))
	lower := strings.ToLower(text)
	if strings.HasPrefix(lower, "<!doctype") || strings.HasPrefix(lower, "<html") || strings.Contains(lower, "<body") {
		if m := htmlTitle().FindStringSubmatch(text); m != nil {
			if title := strings.TrimSpace(m[1]); title != "" {
				return title
			}
		}
		return http.StatusText(status)
	}
	if line, _, _ := strings.Cut(text, "\n"); strings.TrimSpace(line) != "" {
		if len(line) > 200 {
			return cleanMessage(line[:200]) + "…"
		}
		return line
	}
	return http.StatusText(status)
}

// displayURL is u without credentials or query, for error messages.
func displayURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the configured base URL"
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}

func mediaType(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return mt
}

func canceledError(err error) *Error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Class: ClassRetryable, Message: "timed out", Err: err}
	}
	return &Error{Class: ClassCanceled, Err: err}
}
