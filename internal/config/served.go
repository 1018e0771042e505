package config

// A model a custom server serves. DefaultModel is OpenAI's; a local
// server (Ollama, llama.cpp, vLLM, LM Studio) has its own names, so with a
// custom base URL and no model named anywhere the agent must not guess:
// the chat asks, and a headless run says what to pass.

// NeedsModelChoice reports whether a new session has no model to use: the
// base URL is not OpenAI's and no flag, environment variable or config
// file named a model.
func (c *Config) NeedsModelChoice() bool {
	return !c.ModelConfigured && !c.UsesDefaultEndpoint()
}

// SoleServedModel is the model to use without asking when the server lists
// exactly one (ok false otherwise): a server that serves one model leaves
// nothing to choose.
func SoleServedModel(served []string) (model string, ok bool) {
	if len(served) == 1 && served[0] != "" {
		return served[0], true
	}
	return "", false
}
