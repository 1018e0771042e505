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
func (sp *stepper) toolsOff(model string) bool {
	if info, _ := sp.opt.Config.ModelInfo(model); info.NoTools {
		return true
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.toolless[model]
}

// turnToolsOff records that model refused tools (err says so) and tells
// the user. It reports false when the request had none to drop.
func (sp *stepper) turnToolsOff(model string, err error) bool {
	sp.mu.Lock()
	if sp.toolless[model] {
		sp.mu.Unlock()
		return false
	}
	if sp.toolless == nil {
		sp.toolless = map[string]bool{}
	}
	sp.toolless[model] = true
	sp.mu.Unlock()
	sp.calc().SetFixed(sp.fixedTokens()) // the tool schemas are no longer sent
	msg := "the server does not take tools for it"
	if pe := provider.Classify(err); pe != nil && pe.Message != "" {
		msg = fmt.Sprintf("the server said %q", pe.Message)
	}
	sp.emit(message.Event{Type: message.EventNote, SessionID: sp.sessionID, Note: fmt.Sprintf(
		"model %s cannot use tools (%s): chat only for the rest of this session; set models.%s.tools to false in your config to say so up front",
		model, msg, model)})
	return true
}
