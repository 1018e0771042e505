package loop

// Models without tools: a model whose config says tools: false, or whose
// server refused a request for its tools (provider.ClassToolsUnsupported:
// Ollama's "does not support tools", llama.cpp without --jinja, vLLM
// without --enable-auto-tool-choice), is sent no tools for the rest of the
// session: the turn goes on as a chat. The user is told once per model.

import (
	"fmt"

	"github.com/ctxloop/agent/internal/message"
	"github.com/ctxloop/agent/internal/provider"
)

// toolsOff reports whether model is sent no tools.
func (r *Runner) toolsOff(model string) bool {
	if info, _ := r.opt.Config.ModelInfo(model); info.NoTools {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.toolless[model]
}

// turnToolsOff records that model refused tools (err says so) and tells
// the user. It reports false when the request had none to drop.
func (r *Runner) turnToolsOff(model string, err error) bool {
	r.mu.Lock()
	if r.toolless[model] {
		r.mu.Unlock()
		return false
	}
	if r.toolless == nil {
		r.toolless = map[string]bool{}
	}
	r.toolless[model] = true
	r.mu.Unlock()
	r.calc().SetFixed(r.fixedTokens()) // the tool schemas are no longer sent
	msg := "the server does not take tools for it"
	if pe := provider.Classify(err); pe != nil && pe.Message != "" {
		msg = fmt.Sprintf("the server said %q", pe.Message)
	}
	r.emit(message.Event{Type: message.EventNote, SessionID: r.sess.ID, Note: fmt.Sprintf(
		"model %s cannot use tools (%s): chat only for the rest of this session; set models.%s.tools to false in your config to say so up front",
		model, msg, model)})
	return true
}
