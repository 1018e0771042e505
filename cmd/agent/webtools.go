package main

import (
	"github.com/ctxloop/agent/internal/approval"
	"github.com/ctxloop/agent/internal/config"
	"github.com/ctxloop/agent/internal/tools"
	"github.com/ctxloop/agent/internal/webfetch"
)

// baseTools are the tools every session offers before its own: the
// built-in ones, then the web tools the configuration enables
// (tools.web_fetch, tools.web_search; internal/webfetch).
func baseTools(cfg *config.Config) *tools.Registry {
	w := cfg.Tools.WebFetch
	return tools.NewRegistry().With(webfetch.Tools(webfetch.Config{
		Enabled: w.Enabled, AllowPrivate: w.AllowPrivate, Timeout: w.Timeout, MaxBytes: w.MaxBytes,
		SearchEndpoint: cfg.Tools.WebSearch.Endpoint,
	})...)
}

// domainMemory is where the domains the user allowed "always" are kept:
// the data dir's approvals (internal/approval).
func domainMemory(cfg *config.Config) tools.DomainMemory {
	return approval.Domains{Store: approval.Open(cfg.DataDir)}
}
