package provider

// The server's own model list (GET /v1/models): what a local server such
// as Ollama, llama.cpp or vLLM actually serves, which the built-in catalog
// cannot know. A successful answer is cached for the provider's life (one
// process); a failure is not, so a server started later is found.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// ModelListTimeout bounds a model listing when the caller's context has no
// earlier deadline: a picker or a first run must not wait on a dead server.
const ModelListTimeout = 3 * time.Second

// maxModelListBytes bounds the answer read (OpenRouter lists hundreds).
const maxModelListBytes = 8 << 20

// ModelLister lists the models a server offers.
type ModelLister interface {
	// ListModels returns the ids of the models the server offers, sorted.
	// Errors are *Error, classified as a chat request's are.
	ListModels(ctx context.Context) ([]string, error)
}

// modelCache holds a provider's listed models once one listing succeeded.
type modelCache struct {
	mu  sync.Mutex
	ids []string
	ok  bool
}

// ListModels asks GET {base}/models, within ModelListTimeout.
func (p *openAIProvider) ListModels(ctx context.Context) ([]string, error) {
	p.models.mu.Lock()
	defer p.models.mu.Unlock() // one listing at a time; the others wait for its answer
	if p.models.ok {
		return append([]string(nil), p.models.ids...), nil
	}
	ctx, cancel := context.WithTimeout(ctx, ModelListTimeout)
	defer cancel()
	ids, err := p.listModels(ctx)
	if err != nil {
		return nil, err
	}
	p.models.ids, p.models.ok = ids, true
	return append([]string(nil), ids...), nil
}

func (p *openAIProvider) listModels(ctx context.Context) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.baseURL+"/models", nil)
	if err != nil {
		return nil, &Error{Class: ClassOther, Message: "invalid base URL " + displayURL(p.baseURL), Err: err}
	}
	req.Header.Set("Accept", "application/json")
	if p.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.apiKey)
	}
	for k, v := range p.headers {
		req.Header.Set(k, v)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, p.transportError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := p.responseError(resp)
		e.Err = fmt.Errorf("GET %s/models: %s", displayURL(p.baseURL), resp.Status)
		return nil, e
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		// Ollama's native /api/tags shape, which some proxies forward.
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxModelListBytes))
	if err != nil {
		return nil, p.transportError(ctx, err)
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, &Error{Class: ClassOther, Message: fmt.Sprintf("%s/models did not answer a model list", displayURL(p.baseURL)), Err: err}
	}
	seen := map[string]bool{}
	var ids []string
	add := func(id string) {
		if id = strings.TrimSpace(id); id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, m := range list.Data {
		add(m.ID)
	}
	for _, m := range list.Models {
		add(m.Name)
	}
	sort.Strings(ids)
	return ids, nil
}
