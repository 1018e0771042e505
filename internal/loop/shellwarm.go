package loop

// The next request's shell — everything but its messages: the model, the
// output cap, the effort, the tools' schemas — is encoded by the
// provider while the user types (provider.ShellWarmer), started with the
// request cache's warming (warmRequestCache), so that the first request
// of a session, or the first after the tools changed, does not encode
// the schemas between Enter and the wire. It is made as finishRequest
// makes the request (the same tools slice: Registry.OpenAITools is kept),
// and only warms: what is sent is encoded from the request as before.

import (
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/provider"
)

// shellOfNext is the next request as finishRequest would make it, without
// its messages (a breakpoint stands for the cache marks it would have).
func (sp *stepper) shellOfNext() provider.Request {
	var req provider.Request
	sp.modelSteady(func() {
		m := sp.modelPricing()
		req = provider.Request{Model: m.model, MaxTokens: int(m.info.MaxOutput), Effort: EffortSent(sp.opt.Effort, m.model, m.info)}
		if m.info.Cache == config.CacheExplicit {
			req.CacheBreakpoints = []int{0} // the system message's mark (cacheBreakpoints)
		}
		if !sp.toolsOff(m.model) {
			req.Tools = sp.offered().OpenAITools()
		}
	})
	return req
}

// warmShell has the provider encode the next request's shell on a
// goroutine stopWarming waits for. It returns at once.
func (sp *stepper) warmShell() {
	w, ok := sp.opt.Provider.(provider.ShellWarmer)
	if !ok {
		return
	}
	if !sp.warm.begin() {
		return // the runner closes
	}
	go func() {
		defer sp.warm.running.Done()
		w.WarmShell(sp.shellOfNext())
	}()
}
