package provider

// Warming the request's shell. A request's body is its messages inside
// the rest of the request — the model, the output cap, the tools'
// schemas — which encodeShell encodes once and keeps for the requests
// that follow with the same tools. The first request of a process (or
// the first after the tools changed) would encode the schemas between
// Enter and the wire: 0.25–0.4 ms, encoding/json's first pass over the
// types included. WarmShell does it ahead, off the request's path, from
// the request as it will be made but without its messages; the request
// then finds it kept. What is sent is what encodeShell makes either way.

// ShellWarmer is implemented by a Provider that can encode a request's
// fixed part ahead of it.
type ShellWarmer interface {
	// WarmShell encodes req's all but its messages as Stream would
	// encode them; it may be called from any goroutine.
	WarmShell(req Request)
}

// WarmShell keeps the encoding of req's shell for the request that has
// the same one (encodeShell).
func (p *openAIProvider) WarmShell(req Request) {
	shell := p.chatRequest(req, true)
	shell.Messages = nil
	_, _ = encodeShell(shell, len(req.CacheBreakpoints) > 0)
}
